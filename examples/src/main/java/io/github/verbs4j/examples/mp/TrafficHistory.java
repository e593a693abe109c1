package io.github.verbs4j.examples.mp;

/**
 * Seed 003 §3.5's communication history: per source rank, the messages received in each of the
 * last {@link #entries()} time windows, as 64-bit counts, and their sum over the whole history (the
 * n-entry table the method selection reads, §3.5's "8n + 16"). A window is {@code interval} long;
 * when time moves past it the oldest window is dropped from the sums and reused.
 *
 * <p>Windows on the time axis ({@link #entries(int)}, eq. (12)): 1,024 for up to 2^13 processes,
 * fewer above, so that the history stays at most 64 MiB per process.
 */
final class TrafficHistory {
  /** Eq. (12): windows kept for up to 2^13 processes. */
  static final int MAX_ENTRIES = 1024;
  /** Eq. (12): the process count above which fewer windows are kept. */
  static final int FULL_HISTORY_PROCESSES = 1 << 13;

  private final int sources;
  private final int entries;
  private final long intervalNanos;
  /** counts[window * sources + source]. */
  private final long[] counts;
  /** Messages per source over the whole history. */
  private final long[] sums;
  private int current;
  private long windowStart;

  /**
   * @param sources ranks in the job
   * @param intervalNanos the length of one window
   * @param startNanos when the first window begins
   */
  TrafficHistory(int sources, long intervalNanos, long startNanos) {
    this.sources = sources;
    this.entries = entries(sources);
    this.intervalNanos = intervalNanos;
    this.counts = new long[entries * sources];
    this.sums = new long[sources];
    this.windowStart = startNanos;
  }

  /**
   * Eq. (12) of seed 003: windows on the time axis for {@code p} processes.
   *
   * @param p the processes in the job
   * @return 1,024 for p ≤ 2^13, else 1,024 / 2^(⌈log2 p⌉ − 13)
   */
  static int entries(int p) {
    if (p <= FULL_HISTORY_PROCESSES) {
      return MAX_ENTRIES;
    }
    int log2 = 32 - Integer.numberOfLeadingZeros(p - 1);
    return Math.max(1, MAX_ENTRIES >> (log2 - 13));
  }

  /**
   * @param p the processes in the job
   * @return the bytes of the history and its sums: two allocated tables, 8 B per entry
   */
  static long bytes(int p) {
    return MpMemory.arrayBytes(8L * entries(p) * p) + MpMemory.arrayBytes(8L * p);
  }

  /** @return windows on the time axis */
  int entries() {
    return entries;
  }

  /**
   * Counts a message received from {@code source}.
   *
   * @param source its rank
   * @param now the time (nanoTime)
   * @return the source's messages over the history, this one included
   */
  long record(int source, long now) {
    advance(now);
    counts[current * sources + source]++;
    return ++sums[source];
  }

  /**
   * @param source a rank
   * @param now the time
   * @return its messages over the history
   */
  long sum(int source, long now) {
    advance(now);
    return sums[source];
  }

  /** Moves to the window that holds {@code now}, dropping the windows that fall out of the history. */
  void advance(long now) {
    long passed = (now - windowStart) / intervalNanos;
    if (passed <= 0) {
      return;
    }
    long steps = Math.min(passed, entries);
    for (long i = 0; i < steps; i++) {
      current = (current + 1) % entries;
      int base = current * sources;
      for (int s = 0; s < sources; s++) {
        sums[s] -= counts[base + s];
        counts[base + s] = 0;
      }
    }
    windowStart += passed * intervalNanos;
  }
}
