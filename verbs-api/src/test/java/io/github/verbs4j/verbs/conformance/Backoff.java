package io.github.verbs4j.verbs.conformance;

import java.util.concurrent.locks.LockSupport;

/**
 * Spin, then yield, then park with a growing pause (10 µs doubling to 1 ms): the idle strategy of
 * every busy-wait in the kit, so that polling never starves the provider's engine threads on a
 * small machine. One instance per wait loop; {@link #reset()} after progress.
 */
public final class Backoff {
  private static final int SPINS = 64;
  private static final int YIELDS = 32;
  private static final long MIN_PARK_NANOS = 10_000;
  private static final long MAX_PARK_NANOS = 1_000_000;

  private int idle;
  private long parkNanos = MIN_PARK_NANOS;

  /** Creates a fresh back-off. */
  public Backoff() {}

  /** Waits a little longer than last time. */
  public void idle() {
    if (idle < SPINS) {
      idle++;
      Thread.onSpinWait();
    } else if (idle < SPINS + YIELDS) {
      idle++;
      Thread.yield();
    } else {
      LockSupport.parkNanos(parkNanos);
      parkNanos = Math.min(MAX_PARK_NANOS, parkNanos * 2);
    }
  }

  /** Starts over after progress was made. */
  public void reset() {
    idle = 0;
    parkNanos = MIN_PARK_NANOS;
  }
}
