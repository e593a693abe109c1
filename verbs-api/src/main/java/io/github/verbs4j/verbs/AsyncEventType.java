package io.github.verbs4j.verbs;

/**
 * Asynchronous event types ({@code ibv_get_async_event}).
 *
 * <p>Mirrors {@code enum ibv_event_type} of verbs.h; {@link #value()} is the exact verbs.h value.
 */
public enum AsyncEventType implements VerbsEnum {
  /** CQ error (overrun). */
  CQ_ERR(0),
  /** Local work queue catastrophic error. */
  QP_FATAL(1),
  /** Invalid request local work queue error. */
  QP_REQ_ERR(2),
  /** Local access violation work queue error. */
  QP_ACCESS_ERR(3),
  /** Communication established. */
  COMM_EST(4),
  /** Send queue drained. */
  SQ_DRAINED(5),
  /** Path migrated. */
  PATH_MIG(6),
  /** Path migration request error. */
  PATH_MIG_ERR(7),
  /** Local catastrophic error. */
  DEVICE_FATAL(8),
  /** Port active. */
  PORT_ACTIVE(9),
  /** Port error. */
  PORT_ERR(10),
  /** LID change. */
  LID_CHANGE(11),
  /** P_Key change. */
  PKEY_CHANGE(12),
  /** SM change. */
  SM_CHANGE(13),
  /** SRQ catastrophic error. */
  SRQ_ERR(14),
  /** SRQ limit reached. */
  SRQ_LIMIT_REACHED(15),
  /** Last WQE reached. */
  QP_LAST_WQE_REACHED(16),
  /** Client reregistration. */
  CLIENT_REREGISTER(17),
  /** GID table change. */
  GID_CHANGE(18),
  /** WQ fatal. */
  WQ_FATAL(19),
  /** Device link speed change. */
  DEVICE_SPEED_CHANGE(20);

  private static final EnumLookup<AsyncEventType> LOOKUP = EnumLookup.of(AsyncEventType.class, "ibv_event_type");

  private final int value;

  AsyncEventType(int value) {
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
  public static AsyncEventType fromValue(int value) {
    return LOOKUP.fromValue(value);
  }
}
