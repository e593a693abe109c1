package io.github.verbs4j.verbs;

/**
 * Flags of a send work request.
 *
 * <p>Mirrors {@code enum ibv_send_flags} of verbs.h; {@link #value()} is the exact verbs.h value.
 */
public enum SendFlag implements VerbsEnum {
  /** IBV_SEND_FENCE: wait for earlier READ and ATOMIC WRs to complete (RC). */
  FENCE(1),
  /** IBV_SEND_SIGNALED: generate a completion on success. */
  SIGNALED(2),
  /** IBV_SEND_SOLICITED: set the solicited-event bit. */
  SOLICITED(4),
  /** IBV_SEND_INLINE: copy the data at post time; the lkey is not checked. */
  INLINE(8),
  /** IBV_SEND_IP_CSUM. */
  IP_CSUM(16);

  private static final EnumLookup<SendFlag> LOOKUP = EnumLookup.of(SendFlag.class, "ibv_send_flags");

  private final int value;

  SendFlag(int value) {
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
  public static SendFlag fromValue(int value) {
    return LOOKUP.fromValue(value);
  }

  /**
   * The bitwise OR of {@code flags}.
   *
   * @param flags flags
   * @return the verbs.h mask
   */
  public static int mask(java.util.Set<SendFlag> flags) {
    return EnumLookup.mask(flags);
  }

  /**
   * The flags set in {@code mask}.
   *
   * @param mask a verbs.h mask
   * @return the flags
   * @throws IllegalArgumentException naming unknown bits
   */
  public static java.util.EnumSet<SendFlag> fromMask(int mask) {
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
