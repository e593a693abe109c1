package io.github.verbs4j.verbs;

/**
 * Flags of a work completion.
 *
 * <p>Mirrors {@code enum ibv_wc_flags} of verbs.h; {@link #value()} is the exact verbs.h value.
 */
public enum WcFlag implements VerbsEnum {
  /** IBV_WC_GRH: a GRH is present (UD). */
  GRH(1),
  /** IBV_WC_WITH_IMM: the immediate data is valid. */
  WITH_IMM(2),
  /** IBV_WC_IP_CSUM_OK. */
  IP_CSUM_OK(4),
  /** IBV_WC_WITH_INV: the invalidated rkey is valid. */
  WITH_INV(8),
  /** IBV_WC_TM_SYNC_REQ. */
  TM_SYNC_REQ(16),
  /** IBV_WC_TM_MATCH. */
  TM_MATCH(32),
  /** IBV_WC_TM_DATA_VALID. */
  TM_DATA_VALID(64);

  private static final EnumLookup<WcFlag> LOOKUP = EnumLookup.of(WcFlag.class, "ibv_wc_flags");

  private final int value;

  WcFlag(int value) {
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
  public static WcFlag fromValue(int value) {
    return LOOKUP.fromValue(value);
  }

  /**
   * The bitwise OR of {@code flags}.
   *
   * @param flags flags
   * @return the verbs.h mask
   */
  public static int mask(java.util.Set<WcFlag> flags) {
    return EnumLookup.mask(flags);
  }

  /**
   * The flags set in {@code mask}.
   *
   * @param mask a verbs.h mask
   * @return the flags
   * @throws IllegalArgumentException naming unknown bits
   */
  public static java.util.EnumSet<WcFlag> fromMask(int mask) {
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
}
