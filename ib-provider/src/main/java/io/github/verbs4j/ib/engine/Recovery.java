package io.github.verbs4j.ib.engine;

/**
 * Where a requester is in recovering from loss or an RNR NAK (IBA 9.7.5.2; rxe's {@code
 * req.need_retry}, {@code wait_for_rnr_timer} and {@code comp.started_retry} as one state). The
 * {@link Completer} moves it on timeouts and NAKs and decides what each costs; the {@link
 * Requester} on its timers and when it rewinds. "recoveryPsn" is the PSN a state refers to: the
 * point of loss of a NAK, or the RNR-NAKed PSN.
 *
 * <pre>
 * NONE --timeout--> RETRY_DUE --rewind--> NONE
 * NONE --seq NAK / lost response--> NAK_RETRY_DUE --rewind--> NAK_RETRIED --progress--> NONE
 * any --RNR NAK--> RNR_WAIT --RNR timer--> RNR_RETRY_DUE --rewind--> RNR_PROBE --probe ACKed--> NONE
 * RNR_WAIT, RNR_RETRY_DUE --ACK past the NAKed PSN--> RETRY_DUE
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
   * Resending only the RNR-NAKed message (up to its last PSN, AckReq on that packet) until it is acknowledged, then NONE: while the receiver has no receive posted, each
   * RNR round costs one message, not the whole window.
   */
  RNR_PROBE
}
