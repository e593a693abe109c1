package io.github.verbs4j.ib.engine;

import java.util.concurrent.locks.LockSupport;

/**
 * How the engine thread waits when a duty cycle found nothing to do (Agrona's {@code
 * BackoffIdleStrategy}): spin a few times, then yield, then park for exponentially longer up to a
 * bound, never longer than the next timer deadline. Any work resets it. A producer that finds the
 * engine parked unparks it, so a post or a packet is never left waiting for the park to end.
 * Not thread-safe: the engine thread owns it.
 */
final class BackoffIdleStrategy {
  private final int maxSpins;
  private final int maxYields;
  private final long minParkNanos;
  private final long maxParkNanos;
  private int spins;
  private int yields;
  private long parkNanos;

  BackoffIdleStrategy(int maxSpins, int maxYields, long minParkNanos, long maxParkNanos) {
    this.maxSpins = maxSpins;
    this.maxYields = maxYields;
    this.minParkNanos = minParkNanos;
    this.maxParkNanos = Math.max(minParkNanos, maxParkNanos);
    reset();
  }

  void reset() {
    spins = 0;
    yields = 0;
    parkNanos = minParkNanos;
  }

  /** @return true once spinning and yielding are exhausted and the next idle call parks */
  boolean willPark() {
    return spins >= maxSpins && yields >= maxYields;
  }

  /**
   * @param workCount what the last duty cycle did
   * @param untilDeadlineNanos nanoseconds until the next timer, Long.MAX_VALUE if none
   * @param parkGate called just before parking; returns false to skip the park (work arrived)
   */
  void idle(int workCount, long untilDeadlineNanos, java.util.function.BooleanSupplier parkGate) {
    if (workCount > 0) {
      reset();
      return;
    }
    if (spins < maxSpins) {
      spins++;
      Thread.onSpinWait();
    } else if (yields < maxYields) {
      yields++;
      Thread.yield();
    } else {
      long nanos = Math.max(1_000, Math.min(parkNanos, untilDeadlineNanos));
      if (parkGate.getAsBoolean()) {
        LockSupport.parkNanos(this, nanos);
      }
      parkNanos = Math.min(parkNanos << 1, maxParkNanos);
    }
  }
}
