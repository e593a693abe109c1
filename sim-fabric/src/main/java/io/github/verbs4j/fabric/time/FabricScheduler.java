package io.github.verbs4j.fabric.time;

/**
 * Runs a provider's tasks and timers on its node's fabric thread, the thread that also calls the
 * node's {@link io.github.verbs4j.fabric.FrameReceiver} — so a provider needs no lock between its
 * receive path and its timers (retransmission, RNR, flush).
 *
 * <p>Delays are nanoseconds of the node's clock ({@link NodeClock}):
 *
 * <ul>
 *   <li>{@code verbs.time=wall}: wall nanoseconds.
 *   <li>local deterministic mode: modelled; a timer fires when {@code runUntilIdle()} reaches
 *       {@code now + delay} in modelled-time order and the node's clock is advanced to that time.
 *   <li>{@code verbs.time=modelled} otherwise (netty, threaded local): modelled; a timer fires when
 *       the node's clock reaches {@code now + delay} — before a frame arriving at or after that
 *       time is delivered (the clock first advanced to the deadline), or once a charge has passed
 *       it — and at the latest, as a safety net when nothing moves the clock, after {@code
 *       max(delay, verbs.fabric.timer-wall-min-us)} of wall time, the clock then jumping to the
 *       deadline. See {@link ModelledTimers}.
 * </ul>
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
