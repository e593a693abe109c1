package io.github.verbs4j.fabric.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.IoHandlerContext;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The extra input of {@link SharedIoEventLoop#pollAlso} (a node's shared-memory ring): read by a
 * polling caller's pass only, never by a pass that blocks in the selector; and once every peer is on
 * the ring, such a pass selects on the sockets at most every 50 µs. The selector is a fake that counts
 * selects per kind of thread and blocks as a real one does.
 */
class SharedIoEventLoopRingInputTest {
  private static final String BACKGROUND = "ring-input-test";
  private final CountingSelector selector = new CountingSelector();
  private final AtomicInteger reads = new AtomicInteger();
  private final Set<Thread> readers = ConcurrentHashMap.newKeySet();
  private SharedIoEventLoop loop;

  @AfterEach
  void close() throws Exception {
    if (loop != null) {
      loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }
  }

  /** A caller's work that found something: its next call drives even if it comes late (no hand-over). */
  private static final IntSupplier FOUND_WORK = () -> 1;

  private void open() {
    loop = new SharedIoEventLoop(ctx -> selector, BACKGROUND, TimeUnit.MILLISECONDS.toNanos(1));
    loop.pollAlso(() -> {
      reads.incrementAndGet();
      readers.add(Thread.currentThread());
      return 0;
    }, null);
  }

  /** Polls until this thread's pass got the loop and read the ring once. */
  private void pollUntilRead() {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (reads.get() == 0) {
      loop.progress(null);
      assertTrue(System.nanoTime() < until, "the caller's passes never read the ring");
    }
  }

  @Test
  void onlyAPollingCallersPassReadsTheRing() throws Exception {
    open();
    for (int i = 0; i < 20; i++) { // the background thread drives: each task wakes its blocking select
      CountDownLatch ran = new CountDownLatch(1);
      loop.execute(ran::countDown);
      assertTrue(ran.await(5, TimeUnit.SECONDS), "task " + i + " never ran");
    }
    assertTrue(selector.backgroundSelects.get() > 0, "the background thread never selected");
    assertEquals(0, reads.get(), "the background thread's blocking pass read the ring");

    assertTrue(loop.awaitIo(null, () -> true, TimeUnit.SECONDS.toNanos(5)), "the caller never got the loop");
    assertEquals(0, reads.get(), "a caller's awaitIo pass read the ring");

    pollUntilRead();
    assertEquals(Set.of(Thread.currentThread()), readers, "only the polling caller reads the ring");
  }

  @Test
  void withEveryPeerOnTheRingACallersPassesSelectAtMostEvery50Microseconds() {
    open();
    pollUntilRead(); // this thread holds the loop now (the lease keeps the background thread out)
    int passes = 20_000;
    int before = selector.callerSelects.get();
    long missesBefore = loop.callerMisses().sum();
    for (int i = 0; i < passes; i++) {
      loop.progress(FOUND_WORK);
    }
    long missed = loop.callerMisses().sum() - missesBefore; // passes that found another thread driving
    assertEquals(passes, selector.callerSelects.get() - before + missed, "a caller's pass selects while peers use sockets");

    loop.extraInputCarriesAll();
    int readsBefore = reads.get();
    int selectsBefore = selector.callerSelects.get();
    missesBefore = loop.callerMisses().sum();
    long start = System.nanoTime();
    for (int i = 0; i < passes; i++) {
      loop.progress(FOUND_WORK);
    }
    long elapsed = System.nanoTime() - start;
    int selects = selector.callerSelects.get() - selectsBefore;
    missed = loop.callerMisses().sum() - missesBefore;
    assertEquals(passes, reads.get() - readsBefore + missed, "every pass that got the loop reads the ring");
    long allowed = elapsed / 50_000 + 1;
    assertTrue(selects <= allowed, selects + " selects in " + elapsed + " ns of " + passes + " passes, at most "
        + allowed + " allowed");
  }

  /** Counts selects by kind of thread; blocks when the context lets it. */
  private static final class CountingSelector extends BlockingFakeSelector {
    final AtomicInteger backgroundSelects = new AtomicInteger();
    final AtomicInteger callerSelects = new AtomicInteger();

    @Override
    public synchronized int run(IoHandlerContext c) {
      (Thread.currentThread().getName().equals(BACKGROUND) ? backgroundSelects : callerSelects).incrementAndGet();
      block(c);
      return 0;
    }
  }
}
