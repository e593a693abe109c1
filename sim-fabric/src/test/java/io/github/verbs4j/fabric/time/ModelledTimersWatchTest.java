package io.github.verbs4j.fabric.time;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The wall-time watch of {@link ModelledTimers} on an event loop whose time the test moves (an
 * {@link EmbeddedChannel}'s, frozen): one look per {@link ModelledTimers#WATCH_NANOS}, however
 * many timers the looks fire. A timer that re-arms itself when it fires is what a PCIe link's
 * replay timer does in modelled time while it waits for an Ack from another process; each firing
 * used to start one more watch beside the running one, so a node waiting for a peer took its ten
 * quiet looks ever faster and moved its clock by 24 ms of replay timeouts within a few hundred
 * milliseconds of wall time (the tca PEACH2 links taken down in `gmpi-himeno` over netty).
 */
class ModelledTimersWatchTest {
  private static final int QUIET_LOOKS = 10;
  private static final long DELAY = 1_000;
  private final EmbeddedChannel loop = new EmbeddedChannel();

  @AfterEach
  void close() {
    loop.finishAndReleaseAll();
  }

  /** Moves the loop's time one watch period forward and runs what became due. */
  private void tick() {
    loop.advanceTimeBy(ModelledTimers.WATCH_NANOS, TimeUnit.NANOSECONDS);
    loop.runPendingTasks();
    loop.runScheduledPendingTasks();
  }

  @Test
  void aTimerThatReArmsItselfLeavesOneWatchTakingOneLookPerPeriod() {
    loop.freezeTime();
    NodeClock clock = NodeClock.modelled();
    AtomicInteger looks = new AtomicInteger();
    ModelledTimers timers = new ModelledTimers(clock, loop.eventLoop(), new Quiescence() {
      @Override
      public long activity() {
        return 0; // nothing moves but the timers
      }

      @Override
      public boolean idleUntil(long deadline) {
        looks.incrementAndGet();
        return true;
      }
    }, QUIET_LOOKS, Runnable::run);
    AtomicInteger fired = new AtomicInteger();
    Runnable reArm = new Runnable() {
      @Override
      public void run() {
        fired.incrementAndGet();
        timers.schedule(DELAY, this);
      }
    };
    timers.schedule(DELAY, reArm);

    int periods = 200;
    for (int i = 1; i <= periods; i++) {
      tick();
      // before the fix: two looks in the 11th period, then ever more (the test never ended)
      assertEquals(i, looks.get(), "one look per watch period, after " + fired.get() + " firings");
    }
    assertEquals(periods / QUIET_LOOKS, fired.get(), "one firing per " + QUIET_LOOKS + " quiet looks");
    assertEquals(fired.get() * DELAY, clock.nowNanos(), "the clock moved by one delay per firing");
  }

  @Test
  void theWatchStopsWhenNoTimerIsLeftAndStartsAgainWithTheNextOne() {
    loop.freezeTime();
    NodeClock clock = NodeClock.modelled();
    AtomicInteger looks = new AtomicInteger();
    ModelledTimers timers = new ModelledTimers(clock, loop.eventLoop(), new Quiescence() {
      @Override
      public long activity() {
        return 0;
      }

      @Override
      public boolean idleUntil(long deadline) {
        looks.incrementAndGet();
        return true;
      }
    }, QUIET_LOOKS, Runnable::run);
    AtomicInteger fired = new AtomicInteger();
    timers.schedule(DELAY, fired::incrementAndGet);
    for (int i = 0; i < 3 * QUIET_LOOKS; i++) {
      tick();
    }
    assertEquals(1, fired.get());
    assertEquals(QUIET_LOOKS, looks.get(), "no look once the only timer fired");

    timers.schedule(DELAY, fired::incrementAndGet);
    for (int i = 0; i < 3 * QUIET_LOOKS; i++) {
      tick();
    }
    assertEquals(2, fired.get());
    assertEquals(2 * QUIET_LOOKS, looks.get());
    assertEquals(2 * DELAY, clock.nowNanos());
  }
}
