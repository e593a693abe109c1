package io.github.verbs4j.ib.engine;

/**
 * Where a requester is in recovering from loss, an RNR NAK or a seed-002 stop request (IBA
 * 9.7.5.2; rxe's {@code req.need_retry}, {@code wait_for_rnr_timer} and {@code comp.started_retry}
 * as one state). The {@link Completer} moves it on timeouts, NAKs, stop and resend requests and
 * decides what each costs; the {@link Requester} on its timers and when it rewinds.
 * "recoveryPsn" is the PSN a state refers to: the point of loss of a NAK, the RNR-NAKed PSN, or
 * the stopped PSN.
 *
 * <pre>
 * NONE --timeout--> RETRY_DUE --rewind--> NONE
 * NONE --seq NAK / lost response--> NAK_RETRY_DUE --rewind--> NAK_RETRIED --progress--> NONE
 * any --RNR NAK--> RNR_WAIT --RNR timer--> RNR_RETRY_DUE --rewind--> RNR_PROBE --probe ACKed--> NONE
 * RNR_WAIT, RNR_RETRY_DUE --ACK past the NAKed PSN--> RETRY_DUE
 * any --stop--> STOPPED --resend request--> RESEND_DUE --rewind--> STOP_PROBE --ACKed, window doubled
 *     to maxUnackedPsns--> NONE
 * STOPPED --stop timer--> STOP_PROBE_DUE --rewind--> STOP_PROBE
 * STOP_PROBE --stop--> STOPPED;  STOP_PROBE --timeout--> STOP_PROBE_DUE (spends retry_cnt)
 * STOPPED, RESEND_DUE, STOP_PROBE_DUE --ACK past the stopped PSN--> RETRY_DUE
 * </pre>
 */
enum Recovery {
  /** Sending normally. */
  NONE,
  /** A local ACK timeout spent a retry: rewind to the oldest unacknowledged PSN, then NONE. */
  RETRY_DUE,
  /** A sequence NAK or lost response at recoveryPsn spent a retry: rewind, then NAK_RETRIED. */
  NAK_RETRY_DUE,
  /**
   * Rewound after a NAK at recoveryPsn: another NAK naming it starts no second retry (rxe
   * 4e4c53df5677, one retry per point of loss) until progress past it or a timeout.
   */
  NAK_RETRIED,
  /**
   * RNR NAKed at recoveryPsn: nothing is sent and the retransmit timer is off (rxe pitfall P1)
   * until the responder's RNR timer expires; sequence NAKs meanwhile cost nothing, the resend
   * starts at recoveryPsn anyway.
   */
  RNR_WAIT,
  /** The RNR timer expired: rewind to recoveryPsn, then RNR_PROBE. */
  RNR_RETRY_DUE,
  /**
   * Resending only the RNR-NAKed message (up to its last PSN, AckReq on that packet) until it is
   * acknowledged, then NONE: while the receiver has no receive posted, each RNR round costs one
   * message, not the whole window.
   */
  RNR_PROBE,
  /**
   * Seed 002 §3.1: a stop request named recoveryPsn (the responder's SRQ was empty and it dropped
   * that request). Nothing is sent, the retransmit timer is off and no retry count is spent; the
   * requester waits for the resend request. Only the stop timer runs ({@link
   * Requester#STOP_PROBE_TIMEOUTS} local ACK timeouts): a stop is not a licence to hang on a
   * receiver that died.
   */
  STOPPED,
  /** A resend request named recoveryPsn: rewind to it, then STOP_PROBE (no retry is spent). */
  RESEND_DUE,
  /**
   * The stop timer expired, or a probe timed out (that spent a retry): rewind to recoveryPsn,
   * then STOP_PROBE.
   */
  STOP_PROBE_DUE,
  /**
   * Resending from the stopped message in a window that starts with that message alone and
   * doubles on each ACK of its last PSN (AckReq there), with the retransmit timer on — after a
   * resend request, or as the stop timer's probe: once the window reaches the transport's window
   * ({@code maxUnackedPsns}) NONE; another stop request means the SRQ ran dry again or still is
   * (STOPPED, nothing spent); silence is a timeout that spends {@code retry_cnt} like any other and
   * sends the window again, so a dead receiver ends the stream in RETRY_EXC_ERR. The small first
   * window keeps a sender that finds the SRQ dry again from sending its whole window to be dropped
   * behind the next stop.
   */
  STOP_PROBE;

  /** @return whether only the message ending at the probe's last PSN may be sent */
  boolean probing() {
    return this == RNR_PROBE || this == STOP_PROBE;
  }

  /** @return whether the next duty cycle rewinds */
  boolean rewindDue() {
    return this == RETRY_DUE || this == NAK_RETRY_DUE || this == RNR_RETRY_DUE || this == RESEND_DUE
        || this == STOP_PROBE_DUE;
  }

  /** @return whether the stream is held at recoveryPsn (RNR wait or stop) */
  boolean holding() {
    return this == RNR_WAIT || this == STOPPED;
  }
}
