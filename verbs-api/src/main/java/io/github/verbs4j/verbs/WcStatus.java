package io.github.verbs4j.verbs;

/**
 * The status of a work completion.
 *
 * <p>Mirrors {@code enum ibv_wc_status} of verbs.h; {@link #value()} is the exact verbs.h value and
 * {@link #str()} is the text of {@code ibv_wc_status_str()}. For a flushed or failed completion
 * only {@code wr_id}, {@code status}, {@code qp_num} and {@code vendor_err} are defined by
 * libibverbs; verbs4j also fills in the opcode deterministically.
 */
public enum WcStatus implements VerbsEnum {
  /** IBV_WC_SUCCESS. */
  SUCCESS(0, "success"),
  /** IBV_WC_LOC_LEN_ERR: the receive buffer was too small, or a local length was invalid. */
  LOC_LEN_ERR(1, "local length error"),
  /** IBV_WC_LOC_QP_OP_ERR: an internal QP consistency error (e.g. a malformed WQE). */
  LOC_QP_OP_ERR(2, "local QP operation error"),
  /** IBV_WC_LOC_EEC_OP_ERR. */
  LOC_EEC_OP_ERR(3, "local EE context operation error"),
  /** IBV_WC_LOC_PROT_ERR: a local SGE's lkey, bounds, PD or access was wrong. */
  LOC_PROT_ERR(4, "local protection error"),
  /** IBV_WC_WR_FLUSH_ERR: the QP was in error when this WR was processed. */
  WR_FLUSH_ERR(5, "Work Request Flushed Error"),
  /** IBV_WC_MW_BIND_ERR. */
  MW_BIND_ERR(6, "memory management operation error"),
  /** IBV_WC_BAD_RESP_ERR: an unexpected transport response. */
  BAD_RESP_ERR(7, "bad response error"),
  /** IBV_WC_LOC_ACCESS_ERR. */
  LOC_ACCESS_ERR(8, "local access error"),
  /** IBV_WC_REM_INV_REQ_ERR: the responder found the request invalid (too long, unsupported, ...). */
  REM_INV_REQ_ERR(9, "remote invalid request error"),
  /** IBV_WC_REM_ACCESS_ERR: the responder rejected the rkey, bounds or access. */
  REM_ACCESS_ERR(10, "remote access error"),
  /** IBV_WC_REM_OP_ERR: the responder could not complete the operation (e.g. bad receive WQE). */
  REM_OP_ERR(11, "remote operation error"),
  /** IBV_WC_RETRY_EXC_ERR: the transport retry counter was exceeded. */
  RETRY_EXC_ERR(12, "transport retry counter exceeded"),
  /** IBV_WC_RNR_RETRY_EXC_ERR: the RNR retry counter was exceeded. */
  RNR_RETRY_EXC_ERR(13, "RNR retry counter exceeded"),
  /** IBV_WC_LOC_RDD_VIOL_ERR. */
  LOC_RDD_VIOL_ERR(14, "local RDD violation error"),
  /** IBV_WC_REM_INV_RD_REQ_ERR. */
  REM_INV_RD_REQ_ERR(15, "remote invalid RD request"),
  /** IBV_WC_REM_ABORT_ERR. */
  REM_ABORT_ERR(16, "aborted error"),
  /** IBV_WC_INV_EECN_ERR. */
  INV_EECN_ERR(17, "invalid EE context number"),
  /** IBV_WC_INV_EEC_STATE_ERR. */
  INV_EEC_STATE_ERR(18, "invalid EE context state"),
  /** IBV_WC_FATAL_ERR. */
  FATAL_ERR(19, "fatal error"),
  /** IBV_WC_RESP_TIMEOUT_ERR. */
  RESP_TIMEOUT_ERR(20, "response timeout error"),
  /** IBV_WC_GENERAL_ERR. */
  GENERAL_ERR(21, "general error"),
  /** IBV_WC_TM_ERR. */
  TM_ERR(22, "TM error"),
  /** IBV_WC_TM_RNDV_INCOMPLETE. */
  TM_RNDV_INCOMPLETE(23, "TM software rendezvous");

  private static final EnumLookup<WcStatus> LOOKUP = EnumLookup.of(WcStatus.class, "ibv_wc_status");

  private final int value;
  private final String str;

  WcStatus(int value, String str) {
    this.value = value;
    this.str = str;
  }

  @Override
  public int value() {
    return value;
  }

  /**
   * The text {@code ibv_wc_status_str()} returns for this status.
   *
   * @return the libibverbs string
   */
  public String str() {
    return str;
  }

  /**
   * {@code ibv_wc_status_str()} for a raw value: "unknown" if out of range, as libibverbs does.
   *
   * @param value a raw status value
   * @return the string
   */
  public static String str(int value) {
    try {
      return fromValue(value).str;
    } catch (IllegalArgumentException e) {
      return "unknown";
    }
  }

  /**
   * Returns the constant with the verbs.h value {@code value}.
   *
   * @param value a verbs.h value
   * @return the constant
   * @throws IllegalArgumentException naming the value if it is not defined
   */
  public static WcStatus fromValue(int value) {
    return LOOKUP.fromValue(value);
  }
}
