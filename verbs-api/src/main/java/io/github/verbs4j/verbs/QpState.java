package io.github.verbs4j.verbs;

/**
 * The state of a queue pair (see {@link QueuePair} and the transition table in the SPI).
 *
 * <p>Mirrors {@code enum ibv_qp_state} of verbs.h; {@link #value()} is the exact verbs.h value.
 */
public enum QpState implements VerbsEnum {
  /** IBV_QPS_RESET: after creation; nothing may be posted. */
  RESET(0),
  /** IBV_QPS_INIT: receives may be posted. */
  INIT(1),
  /** IBV_QPS_RTR: ready to receive. */
  RTR(2),
  /** IBV_QPS_RTS: ready to send. */
  RTS(3),
  /** IBV_QPS_SQD: send queue drain. */
  SQD(4),
  /** IBV_QPS_SQE: send queue error (UD/UC). */
  SQE(5),
  /** IBV_QPS_ERR: error; everything flushes. */
  ERR(6),
  /** IBV_QPS_UNKNOWN. */
  UNKNOWN(7);

  private static final EnumLookup<QpState> LOOKUP = EnumLookup.of(QpState.class, "ibv_qp_state");

  private final int value;

  QpState(int value) {
    this.value = value;
  }

  @Override
  public int value() {
    return value;
  }

  /**
   * Returns the constant with the verbs.h value {@code value}.
   *
   * @param value a verbs.h value
   * @return the constant
   * @throws IllegalArgumentException naming the value if it is not defined
   */
  public static QpState fromValue(int value) {
    return LOOKUP.fromValue(value);
  }
}
