package io.github.verbs4j.verbs;

/**
 * The attribute mask of {@code ibv_modify_srq}.
 *
 * <p>Mirrors {@code enum ibv_srq_attr_mask} of verbs.h; {@link #value()} is the exact verbs.h value.
 */
public enum SrqAttrMask implements VerbsEnum {
  /** IBV_SRQ_MAX_WR: resize. */
  MAX_WR(1),
  /** IBV_SRQ_LIMIT: arm the limit event. */
  LIMIT(2);

  private static final EnumLookup<SrqAttrMask> LOOKUP = EnumLookup.of(SrqAttrMask.class, "ibv_srq_attr_mask");

  private final int value;

  SrqAttrMask(int value) {
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
  public static SrqAttrMask fromValue(int value) {
    return LOOKUP.fromValue(value);
  }

  /**
   * The bitwise OR of {@code flags}.
   *
   * @param flags flags
   * @return the verbs.h mask
   */
  public static int mask(java.util.Set<SrqAttrMask> flags) {
    return EnumLookup.mask(flags);
  }

  /**
   * The flags set in {@code mask}.
   *
   * @param mask a verbs.h mask
   * @return the flags
   * @throws IllegalArgumentException naming unknown bits
   */
  public static java.util.EnumSet<SrqAttrMask> fromMask(int mask) {
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
