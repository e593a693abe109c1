package io.github.verbs4j.examples.common;

import java.util.concurrent.locks.LockSupport;

/**
 * How a polling loop waits when it found nothing to do: spin, then yield, then park with an
 * exponentially growing pause (Agrona's {@code BackoffIdleStrategy}). On a two-core machine a pure
 * spin loop starves the provider's own threads, so every loop in the examples backs off.
 *
 * <p>Call {@link #idle()} after an empty poll and {@link #reset()} after useful work. Not
 * thread-safe; one per loop.
 */
public final class Backoff {
  private final int maxSpins;
  private final int maxYields;
  private final long minParkNanos;
  private final long maxParkNanos;
  private int spins;
  private int yields;
  private long parkNanos;

  /**
   * @param maxSpins busy spins before yielding
   * @param maxYields yields before parking
   * @param minParkNanos first park
   * @param maxParkNanos longest park
   */
  public Backoff(int maxSpins, int maxYields, long minParkNanos, long maxParkNanos) {
    this.maxSpins = maxSpins;
    this.maxYields = maxYields;
    this.minParkNanos = minParkNanos;
    this.maxParkNanos = maxParkNanos;
    this.parkNanos = minParkNanos;
  }

  /**
   * The back-off for latency loops: 100 spins, then up to 20,000 yields (tens of milliseconds),
   * then 1 µs..100 µs parks. A loop that waits for a message in flight keeps the CPU, as perftest's
   * busy polling does: a park costs ~55 µs here (timer slack), longer than a round trip, and a
   * provider that runs its engine or the fabric's I/O on the polling thread makes progress only
   * while the loop polls. Yielding instead of spinning leaves the core to the other runnable
   * threads of a small machine.
   *
   * @return a new back-off
   */
  public static Backoff forLatency() {
    return new Backoff(100, 20_000, 1_000, 100_000);
  }

  /**
   * The back-off for loops that keep a deep queue full (perftest's bandwidth loops, the raw Netty
   * stream): 100 spins, 100 yields, then 10 µs..200 µs parks. Such a loop has work queued for much
   * longer than its longest park (at 5 GB/s, 200 µs is 1 MB; the queues hold 2 MiB and more), so
   * it need not react within microseconds, and every yield it does not make leaves the CPU to the
   * threads that move the bytes: on a two-core machine a loop yielding for a whole 1 MiB stream
   * took 70 % of a core ({@code docs/benchmarks.md}).
   *
   * @return a new back-off
   */
  public static Backoff forThroughput() {
    return new Backoff(100, 100, 10_000, 200_000);
  }

  /** @return the back-off for loops that may wait long: 20 spins, 10 yields, then 10 µs..1 ms parks */
  public static Backoff forWaiting() {
    return new Backoff(20, 10, 10_000, 1_000_000);
  }

  /** One idle step. */
  public void idle() {
    if (spins < maxSpins) {
      spins++;
      Thread.onSpinWait();
    } else if (yields < maxYields) {
      yields++;
      Thread.yield();
    } else {
      LockSupport.parkNanos(parkNanos);
      parkNanos = Math.min(parkNanos * 2, maxParkNanos);
    }
  }

  /** Starts over with spinning (after work was found). */
  public void reset() {
    spins = 0;
    yields = 0;
    parkNanos = minParkNanos;
  }
}
