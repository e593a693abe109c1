package io.github.verbs4j.fabric.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.IoHandlerContext;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A caller that parks between empty polls does not hold the caller lease: the background thread
 * takes the loop as soon as such a caller comes back, and keeps it (blocking in the selector) while
 * the caller keeps parking; a caller that polls again without parking, or one that found work and
 * then was away, keeps or gets back the loop. The lease here is a minute, so only the hand-over can
 * let the background thread in within the test.
 */
class SharedIoEventLoopAwayCallerTest {
  private static final String BACKGROUND = "away-test";
  private static final long LEASE = TimeUnit.MINUTES.toNanos(1);
  private final RecordingSelector selector = new RecordingSelector();
  private SharedIoEventLoop loop;

  @AfterEach
  void close() throws Exception {
    if (loop != null) {
      loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aCallerParkingBetweenEmptyPollsHandsTheLoopToTheBackgroundThread() {
    loop = new SharedIoEventLoop(ctx -> selector, BACKGROUND, LEASE);
    int passes;
    do { // polls in vain as the driver, as a back-off's spins and yields do (again if one came late)
      driveOnce();
      passes = selector.callerPasses.get();
      for (int i = 0; i < SharedIoEventLoop.AWAY_AFTER_IDLE_CALLS; i++) {
        loop.progress(null);
      }
    } while (selector.callerPasses.get() != passes + SharedIoEventLoop.AWAY_AFTER_IDLE_CALLS);
    long takeovers = loop.takeovers().sum();
    int blocking = selector.backgroundBlocking.get();
    away();
    loop.progress(null); // back after a park, having found nothing: hands over
    awaitBackgroundSelecting(blocking);
    assertEquals(takeovers + 1, loop.takeovers().sum(), "the background thread took the loop before the lease ended");
    passes = selector.callerPasses.get();
    int wakeups = selector.wakeups.get();
    for (int i = 0; i < 5; i++) {
      away();
      AtomicInteger ran = new AtomicInteger();
      loop.progress(() -> {
        ran.incrementAndGet();
        return 0; // found nothing
      }); // the caller's own work still runs on it
      assertEquals(1, ran.get());
    }
    assertEquals(passes, selector.callerPasses.get(), "a parking caller read no I/O itself");
    assertEquals(wakeups, selector.wakeups.get(), "a parking caller did not ask the background thread back");
    driveOnce(); // polling without parking: the caller gets the loop back
  }

  @Test
  void aCallerAwayAfterFindingWorkKeepsTheLease() {
    loop = new SharedIoEventLoop(ctx -> selector, BACKGROUND, LEASE);
    IntSupplier foundWork = () -> 1;
    int passes;
    do { // until a call found work as the driver (a call may come late on a loaded machine)
      driveOnce();
      passes = selector.callerPasses.get();
      loop.progress(foundWork);
    } while (selector.callerPasses.get() == passes);
    passes = selector.callerPasses.get();
    long takeovers = loop.takeovers().sum();
    int background = selector.backgroundPasses.get();
    away(); // busy elsewhere, not parked in an empty wait
    loop.progress(null);
    assertEquals(passes + 1, selector.callerPasses.get(), "the returning caller drove the loop itself");
    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
    assertEquals(background, selector.backgroundPasses.get(), "the background thread stayed out for the lease");
    assertEquals(takeovers, loop.takeovers().sum());
  }

  /** Polls without parking until a call of this thread drove the loop (the background thread may hold it first). */
  private void driveOnce() {
    int before = selector.callerPasses.get();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (selector.callerPasses.get() == before) {
      loop.progress(null);
      assertTrue(System.nanoTime() < until, "a polling caller never got the loop");
    }
  }

  /** Longer than {@link SharedIoEventLoop#AWAY_NANOS}, as a back-off's park. */
  private static void away() {
    long until = System.nanoTime() + 5 * SharedIoEventLoop.AWAY_NANOS;
    while (System.nanoTime() < until) {
      LockSupport.parkNanos(until - System.nanoTime());
    }
  }

  private void awaitBackgroundSelecting(int before) {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (selector.backgroundBlocking.get() == before) {
      assertTrue(System.nanoTime() < until, "the background thread never took the loop (lease not ended)");
      Thread.onSpinWait();
    }
  }

  /** Counts passes by thread and wake-ups; the background thread's passes block as epoll's. */
  private static final class RecordingSelector extends BlockingFakeSelector {
    final AtomicInteger callerPasses = new AtomicInteger();
    final AtomicInteger backgroundPasses = new AtomicInteger();
    final AtomicInteger backgroundBlocking = new AtomicInteger();
    final AtomicInteger wakeups = new AtomicInteger();
    @Override
    public int run(IoHandlerContext c) {
      if (!Thread.currentThread().getName().equals(BACKGROUND)) {
        callerPasses.incrementAndGet();
        return 0;
      }
      backgroundPasses.incrementAndGet();
      synchronized (this) {
        if (c.canBlock()) {
          backgroundBlocking.incrementAndGet();
        }
        block(c);
      }
      return 0;
    }

    @Override
    public void wakeup() {
      wakeups.incrementAndGet();
      super.wakeup();
    }
  }
}
