package io.github.verbs4j.examples.perftest;

import org.agrona.concurrent.BackoffIdleStrategy;

/**
 * How the benchmark loops wait when a poll found nothing: Agrona's {@link BackoffIdleStrategy}
 * (spin, then yield, then park with a doubling pause) with numbers per kind of loop. On a two-core
 * machine a pure spin loop starves the provider's own threads, so every loop backs off. Call
 * {@code idle()} after an empty poll and {@code reset()} after useful work; one per loop.
 */
final class LoopIdle {
  private LoopIdle() {}

  /**
   * For latency loops: 100 spins, then up to 20,000 yields (tens of milliseconds), then 1 µs..100 µs
   * parks. A loop that waits for a message in flight keeps the CPU, as perftest's busy polling
   * does: a park costs ~55 µs here (timer slack), longer than a round trip, and a provider that runs
   * its engine or the fabric's I/O on the polling thread makes progress only while the loop polls.
   * Yielding instead of spinning leaves the core to the other runnable threads of a small machine.
   *
   * @return a new idle strategy
   */
  static BackoffIdleStrategy latency() {
    return new BackoffIdleStrategy(100, 20_000, 1_000, 100_000);
  }

  /**
   * For loops that keep a deep queue full (perftest's bandwidth loops, the raw Netty stream): 100
   * spins, 100 yields, then 10 µs..200 µs parks. Such a loop has work queued for much longer than
   * its longest park (at 5 GB/s, 200 µs is 1 MB; the queues hold 2 MiB and more), so it need not
   * react within microseconds, and every yield it does not make leaves the CPU to the threads that
   * move the bytes: on a two-core machine a loop yielding for a whole 1 MiB stream took 70 % of a
   * core ({@code docs/benchmarks.md}).
   *
   * @return a new idle strategy
   */
  static BackoffIdleStrategy throughput() {
    return new BackoffIdleStrategy(100, 100, 10_000, 200_000);
  }
}
