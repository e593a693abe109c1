package io.github.verbs4j.verbs.spi;

/**
 * When a local ACK timeout says "the host did not run us", not "a packet was lost". A simulated HCA
 * is a thread of an operating-system process: on a crowded host it (and the peer on the same host)
 * may not run for longer than a whole timeout. A timer that the engine only saw that late resends
 * but spends no {@code retry_cnt}, at most {@link #BUDGET} times per point of progress, so a busy
 * host never declares a live peer dead and a dead one is still declared within a bounded time.
 */
public final class LateTimeout {
  /** Late timeouts a requester may take per point of progress without spending {@code retry_cnt}. */
  public static final int BUDGET = 8;
  /**
   * The least lateness that counts: beyond Linux CFS's scheduling period on a loaded machine
   * (~24 ms), so ordinary wake-up jitter on short timeouts still spends retries.
   */
  static final long FLOOR_NANOS = 25_000_000L;

  private LateTimeout() {}

  /**
   * @param lateness how long after its deadline the timer was seen, in ns
   * @param timeoutNanos the QP's local ACK timeout, in ns
   * @return whether the expiry is late: it costs no retry while the budget lasts
   */
  public static boolean isLate(long lateness, long timeoutNanos) {
    return lateness >= timeoutNanos && lateness >= FLOOR_NANOS;
  }
}
