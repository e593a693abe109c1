package io.github.verbs4j.fabric.time;

/**
 * Runs a provider's tasks and timers on its node's fabric thread, the thread that also calls the
 * node's {@link io.github.verbs4j.fabric.FrameReceiver} — so a provider needs no lock between its
 * receive path and its timers (retransmission, RNR, flush).
 *
 * <p>Delays are in wall nanoseconds, except in the local deterministic mode where they are modelled
 * nanoseconds on the node's clock: a timer fires when {@code runUntilIdle()} reaches {@code now +
 * delay} in modelled-time order and the node's clock is advanced to that time.
 */
public interface FabricScheduler {
  /**
   * Runs {@code task} on the fabric thread after {@code delayNanos}.
   *
   * @param delayNanos the delay, at least 0
   * @param task the task
   * @return a handle to cancel it
   */
  FabricTimer schedule(long delayNanos, Runnable task);

  /**
   * Runs {@code task} on the fabric thread as soon as possible (in the deterministic mode: at the
   * node's current modelled time).
   *
   * @param task the task
   */
  void execute(Runnable task);

  /** @return true if the calling thread is this node's fabric thread */
  boolean inFabricThread();
}
