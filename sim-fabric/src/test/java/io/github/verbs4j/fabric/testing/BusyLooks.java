package io.github.verbs4j.fabric.testing;

import io.github.verbs4j.fabric.time.NodeClock;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * Looks at a modelled node's busy probe ({@link NodeClock#busy()}) as its timers' watch does, while
 * another thread runs a load (an application polling a CQ, say): how many looks found it busy.
 */
public final class BusyLooks {
  private BusyLooks() {}

  /** What the looks found. */
  public record Result(int looks, int busy) {
    @Override
    public String toString() {
      return busy + " of " + looks + " looks found the node busy";
    }
  }

  /**
   * Starts {@code load} on a thread of its own, waits (at most 10 s) until the node is not busy
   * (what set-up signalled is taken), then looks every 20 µs for {@code millis}, then stops the load.
   *
   * @param clock the node's modelled clock
   * @param load one step of the load, run in a loop
   * @param millis how long to look
   * @return what the looks found
   * @throws InterruptedException if interrupted
   */
  public static Result whileRunning(NodeClock clock, Runnable load, long millis) throws InterruptedException {
    AtomicBoolean stop = new AtomicBoolean();
    Thread loader = new Thread(() -> {
      while (!stop.get()) {
        load.run();
      }
    }, "busy-looks-load");
    loader.start();
    int busy = 0;
    int looks = 0;
    try {
      long settle = System.nanoTime() + 10_000_000_000L;
      while (clock.busy() && System.nanoTime() < settle) {
        Thread.sleep(1);
      }
      long end = System.nanoTime() + millis * 1_000_000L;
      while (System.nanoTime() < end) {
        looks++;
        if (clock.busy()) {
          busy++;
        }
        LockSupport.parkNanos(20_000);
      }
    } finally {
      stop.set(true);
      loader.join();
    }
    return new Result(looks, busy);
  }
}
