package io.github.verbs4j.verbs.spi.runtime;

/**
 * Whether an expired local ACK timer may spend {@code retry_cnt}, the one rule of both providers'
 * requesters. IBTA measures the local ACK timeout from when a packet is sent, on a wire and an HCA
 * that do not wait for any host; rxe re-arms its retransmit timer on every ACK that advances. In a
 * simulation the "wire" includes both hosts' threads: the fabric's queues and the peer's ring, the
 * peer's engine that has to take the request, and this side's receive path that has to take the
 * ACK. Time a busy host spent not running them is not time a peer failed to answer. So an expiry is
 * judged ({@link #judge}) from what the fabric can see:
 *
 * <ul>
 *   <li>{@link Verdict#UNHEARD}: this side's receive path holds frames not yet taken by the engine
 *       (the ACK may be among them): look again soon, nothing spent;
 *   <li>{@link Verdict#NOT_AT_PEER}: the packets have not reached the peer's engine — bytes still in
 *       this host's queues or the peer's ring ({@code unsent}), or the peer's engine has not caught
 *       up with what reached it since the timer started ({@code peerCaughtUp}): re-arm, nothing
 *       spent;
 *   <li>{@link Verdict#EXPIRED}: the peer had the packets and this side could have heard the
 *       answer: a real timeout, which spends {@code retry_cnt}.
 * </ul>
 *
 * The first two are taken at most {@link #BUDGET} times in a row without movement, so a peer that
 * stops (a process that is gone leaves its ring unread) still ends the QP within a bounded number
 * of timeouts. Movement is what a live but busy host shows: the bytes on their way went down, the
 * peer's reader took more of its ring, or its engine caught up again. Transport progress (an ACK)
 * gives the whole budget back ({@link #reset}).
 *
 * <p>Not thread-safe: one per QP, under the QP's lock.
 */
public final class AckWait {
  /** What an expired local ACK timer means. */
  public enum Verdict {
    /** A real timeout: spend {@code retry_cnt}. */
    EXPIRED,
    /** This side has not taken what arrived for it yet: look again soon. */
    UNHEARD,
    /** The packets have not reached the peer's engine yet: re-arm. */
    NOT_AT_PEER
  }

  /** Expiries in a row without movement that may be re-armed without spending a retry. */
  public static final int BUDGET = 8;
  /** {@code peerCaughtUp} of a transport that cannot tell: the peer always counts as caught up. */
  public static final long UNKNOWN = Long.MAX_VALUE;

  private int left = BUDGET;
  private long lastUnsent;
  private long lastPeerRead = Long.MIN_VALUE;
  private long lastPeerCaughtUp = Long.MIN_VALUE;

  /** Progress, or new counts: the whole budget again. */
  public void reset() {
    left = BUDGET;
    lastUnsent = 0;
    lastPeerRead = Long.MIN_VALUE;
    lastPeerCaughtUp = Long.MIN_VALUE;
  }

  /** The peer is gone: every expiry from now on is real. */
  public void exhaust() {
    left = 0;
  }

  /**
   * Judges an expired local ACK timer.
   *
   * @param ownDrained whether this side's receive path has taken everything that reached it
   * @param unsent bytes towards the peer not yet taken by its reader (this host's queues, socket
   *     buffers, the peer's ring)
   * @param peerRead how far the peer's reader has read its inbound frames (any monotonic count;
   *     {@link #UNKNOWN} if the transport cannot tell)
   * @param peerCaughtUp when the peer's engine last had taken everything that reached it
   *     ({@link System#nanoTime()} of this host; {@link #UNKNOWN} if the transport cannot tell)
   * @param armedAt when the timer started, on the same clock: the oldest unacknowledged packet was
   *     sent no later
   * @return the verdict
   */
  public Verdict judge(boolean ownDrained, long unsent, long peerRead, long peerCaughtUp, long armedAt) {
    boolean notAtPeer = unsent > 0 || peerCaughtUp != UNKNOWN && peerCaughtUp - armedAt < 0;
    if (ownDrained && !notAtPeer) {
      lastUnsent = 0;
      return Verdict.EXPIRED;
    }
    boolean moved = unsent > 0 && unsent < lastUnsent
        || lastPeerRead != Long.MIN_VALUE && peerRead != lastPeerRead
        || lastPeerCaughtUp != Long.MIN_VALUE && peerCaughtUp != lastPeerCaughtUp;
    if (moved) {
      left = BUDGET; // the hosts are slow, not stuck
    }
    lastUnsent = unsent;
    lastPeerRead = peerRead;
    lastPeerCaughtUp = peerCaughtUp;
    if (left <= 0) {
      return Verdict.EXPIRED;
    }
    left--;
    return ownDrained ? Verdict.NOT_AT_PEER : Verdict.UNHEARD;
  }
}
