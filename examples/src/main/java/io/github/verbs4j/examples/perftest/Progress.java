package io.github.verbs4j.examples.perftest;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The progress line of a long size sweep: every {@value #PERIOD_SECONDS} s a daemon thread prints
 * {@code # progress: size 65536 B (16/23), iteration 1200/5000, 12.4 s} to stderr (stdout stays
 * the report). The measuring loop only stores counters.
 */
final class Progress implements AutoCloseable {
  static final int PERIOD_SECONDS = 2;
  private final PrintStream err;
  private final String program;
  private final int sizes;
  private final long start = System.nanoTime();
  private final AtomicLong state = new AtomicLong(); // size index << 32 | iteration
  private volatile long currentSize;
  private final ScheduledExecutorService timer;

  Progress(PrintStream err, String program, int sizes) {
    this.err = err;
    this.program = program;
    this.sizes = sizes;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "verbs4j-progress");
      t.setDaemon(true);
      return t;
    });
    timer.scheduleAtFixedRate(this::print, PERIOD_SECONDS, PERIOD_SECONDS, TimeUnit.SECONDS);
  }

  /**
   * @param index which size of the sweep (0-based)
   * @param bytes that size
   */
  void size(int index, long bytes) {
    currentSize = bytes;
    state.lazySet((long) index << 32);
  }

  /**
   * @param index the size index
   * @param iteration iterations done of this size
   */
  void iteration(int index, int iteration) {
    state.lazySet((long) index << 32 | iteration);
  }

  private void print() {
    long s = state.get();
    err.printf(Locale.ROOT, "# progress: %s size %d B (%d/%d), iteration %d, %.1f s%n", program, currentSize,
        (int) (s >>> 32) + 1, sizes, (int) s, (System.nanoTime() - start) / 1e9);
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
