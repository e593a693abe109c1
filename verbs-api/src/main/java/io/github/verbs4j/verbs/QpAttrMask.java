package io.github.verbs4j.verbs;

/**
 * The attribute mask of {@code ibv_modify_qp}. {@link QpAttr} records which fields are set; that set is this mask.
 *
 * <p>Mirrors {@code enum ibv_qp_attr_mask} of verbs.h; {@link #value()} is the exact verbs.h value.
 */
public enum QpAttrMask implements VerbsEnum {
  /** IBV_QP_STATE. */
  STATE(1),
  /** IBV_QP_CUR_STATE. */
  CUR_STATE(2),
  /** IBV_QP_EN_SQD_ASYNC_NOTIFY. */
  EN_SQD_ASYNC_NOTIFY(4),
  /** IBV_QP_ACCESS_FLAGS. */
  ACCESS_FLAGS(8),
  /** IBV_QP_PKEY_INDEX. */
  PKEY_INDEX(16),
  /** IBV_QP_PORT. */
  PORT(32),
  /** IBV_QP_QKEY. */
  QKEY(64),
  /** IBV_QP_AV. */
  AV(128),
  /** IBV_QP_PATH_MTU. */
  PATH_MTU(256),
  /** IBV_QP_TIMEOUT. */
  TIMEOUT(512),
  /** IBV_QP_RETRY_CNT. */
  RETRY_CNT(1024),
  /** IBV_QP_RNR_RETRY. */
  RNR_RETRY(2048),
  /** IBV_QP_RQ_PSN. */
  RQ_PSN(4096),
  /** IBV_QP_MAX_QP_RD_ATOMIC. */
  MAX_QP_RD_ATOMIC(8192),
  /** IBV_QP_ALT_PATH. */
  ALT_PATH(16384),
  /** IBV_QP_MIN_RNR_TIMER. */
  MIN_RNR_TIMER(32768),
  /** IBV_QP_SQ_PSN. */
  SQ_PSN(65536),
  /** IBV_QP_MAX_DEST_RD_ATOMIC. */
  MAX_DEST_RD_ATOMIC(131072),
  /** IBV_QP_PATH_MIG_STATE. */
  PATH_MIG_STATE(262144),
  /** IBV_QP_CAP. */
  CAP(524288),
  /** IBV_QP_DEST_QPN. */
  DEST_QPN(1048576),
  /** IBV_QP_RATE_LIMIT (1 &lt;&lt; 25). */
  RATE_LIMIT(33554432);

  private static final EnumLookup<QpAttrMask> LOOKUP = EnumLookup.of(QpAttrMask.class, "ibv_qp_attr_mask");

  private final int value;

  QpAttrMask(int value) {
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
  public static QpAttrMask fromValue(int value) {
    return LOOKUP.fromValue(value);
  }

  /**
   * The bitwise OR of {@code flags}.
   *
   * @param flags flags
   * @return the verbs.h mask
   */
  public static int mask(java.util.Set<QpAttrMask> flags) {
    return EnumLookup.mask(flags);
  }

  /**
   * The flags set in {@code mask}.
   *
   * @param mask a verbs.h mask
   * @return the flags
   * @throws IllegalArgumentException naming unknown bits
   */
  public static java.util.EnumSet<QpAttrMask> fromMask(int mask) {
    return LOOKUP.fromMask(mask);
  }

  /**
   * Whether this flag's bit is set in {@code mask}.
   *
   * @param mask a verbs.h mask
   * @return true if set
   */
  public boolean isSet(int mask) {
    return (mask & value) != 0;
  }

  /**
   * Renders a mask as {@code A|B|C} using constant names, for error messages.
   *
   * @param mask a mask
   * @return the names, or {@code 0}
   */
  public static String describe(int mask) {
    if (mask == 0) {
      return "0";
    }
    StringBuilder sb = new StringBuilder();
    int rest = mask;
    for (QpAttrMask m : values()) {
      if ((mask & m.value) != 0) {
        if (sb.length() > 0) {
          sb.append('|');
        }
        sb.append(m.name());
        rest &= ~m.value;
      }
    }
    if (rest != 0) {
      sb.append(sb.length() > 0 ? "|" : "").append("0x").append(Integer.toHexString(rest));
    }
    return sb.toString();
  }
}
