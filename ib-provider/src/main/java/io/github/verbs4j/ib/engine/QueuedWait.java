package io.github.verbs4j.ib.engine;

/**
 * Whether a local ACK timeout that finds the QP's packets not yet at the peer re-arms instead of
 * spending {@code retry_cnt}. A simulated HCA's "wire" includes its host's queues: the fabric's
 * outbox, socket buffers, TLS, and the peer's decryption and decoding, which on a busy host can
 * take longer than a whole timeout ({@link io.github.verbs4j.ib.engine.PacketPort#unsentBytes}).
 * Time there is not time on the wire, so such a timeout re-arms, at most {@link #BUDGET} times in
 * a row. The budget comes back on transport progress (an ACK) and when the bytes not yet at the
 * peer went down since the last look: the host is slow, not stuck. A peer that stops reading
 * leaves them where they are, so it still ends the QP within {@code BUDGET} extra timeouts.
 *
 * <p>Engine thread only, under the QP lock.
 */
final class QueuedWait {
  /** Timeouts in a row that may re-arm while the packets are still on their way through the hosts. */
  static final int BUDGET = 8;

  private int left = BUDGET;
  private long lastUnsent;

  /** Progress (or new counts): the whole budget again. */
  void reset() {
    left = BUDGET;
    lastUnsent = 0;
  }

  /** The peer is dead: no re-arming. */
  void exhaust() {
    left = 0;
  }

  /**
   * A local ACK timeout expired.
   *
   * @param unsent bytes towards the peer not yet at it ({@link PacketPort#unsentBytes})
   * @return true to re-arm without spending a retry
   */
  boolean rearm(long unsent) {
    if (unsent <= 0) {
      lastUnsent = 0;
      return false;
    }
    if (unsent < lastUnsent) {
      left = BUDGET; // moving through the hosts' queues since the last look
    }
    lastUnsent = unsent;
    if (left <= 0) {
      return false;
    }
    left--;
    return true;
  }
}
