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
 * The first two re-arm while the hosts show movement — the bytes on their way went down, the
 * peer's reader took more of its ring (its process runs), or its engine caught up again — and, without
 * movement, for a patience the caller gives: at least {@link #BUDGET} timeouts, and as long as the
 * fabric takes to declare a silent peer down (a process that does not run at all for that long
 * is treated as gone). A peer process that is gone leaves its ring unread, so it still ends the QP
 * within that patience, and at once when the fabric reports it down. Transport progress (an ACK)
 * starts afresh ({@link #reset}).
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

  /** Timeouts without movement that re-arm at least (the patience is never shorter). */
  public static final int BUDGET = 8;
  /** {@code peerCaughtUp} of a transport that cannot tell: the peer always counts as caught up. */
  public static final long UNKNOWN = Long.MAX_VALUE;

  private boolean waiting;
  private long waitingSince;
  private boolean exhausted;
  private long lastUnsent;
  private long lastPeerRead = Long.MIN_VALUE;
  private long lastPeerCaughtUp = Long.MIN_VALUE;

  /** Progress, or new counts: no wait is running. */
  public void reset() {
    waiting = false;
    exhausted = false;
    lastUnsent = 0;
    lastPeerRead = Long.MIN_VALUE;
    lastPeerCaughtUp = Long.MIN_VALUE;
  }

  /** The peer is gone: every expiry until the next {@link #reset} is real. */
  public void exhaust() {
    exhausted = true;
  }

  /**
   * @param timeoutNanos the QP's local ACK timeout
   * @param peerTimeoutNanos how long the fabric lets a peer be silent before it declares it down (0
   *     if it does not)
   * @return how long a wait without movement may last: {@link #BUDGET} timeouts, or the fabric's
   *     peer timeout if longer
   */
  public static long patience(long timeoutNanos, long peerTimeoutNanos) {
    return Math.max(BUDGET * timeoutNanos, peerTimeoutNanos);
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
   * @param now the requester's clock now
   * @param patience how long, on the requester's clock, a wait without movement may last ({@link
   *     #patience})
   * @return the verdict
   */
  public Verdict judge(boolean ownDrained, long unsent, long peerRead, long peerCaughtUp, long armedAt, long now,
      long patience) {
    boolean notAtPeer = unsent > 0 || peerCaughtUp != UNKNOWN && peerCaughtUp - armedAt < 0;
    if (ownDrained && !notAtPeer) {
      waiting = false;
      lastUnsent = 0;
      return Verdict.EXPIRED;
    }
    boolean moved = unsent > 0 && unsent < lastUnsent
        || lastPeerRead != Long.MIN_VALUE && peerRead != lastPeerRead
        || lastPeerCaughtUp != Long.MIN_VALUE && peerCaughtUp != lastPeerCaughtUp;
    if (!waiting || moved) {
      waiting = true; // the hosts are slow, not stuck: the patience runs from here
      waitingSince = now;
    }
    lastUnsent = unsent;
    lastPeerRead = peerRead;
    lastPeerCaughtUp = peerCaughtUp;
    if (exhausted || now - waitingSince >= patience) {
      return Verdict.EXPIRED;
    }
    return ownDrained ? Verdict.NOT_AT_PEER : Verdict.UNHEARD;
  }
}
