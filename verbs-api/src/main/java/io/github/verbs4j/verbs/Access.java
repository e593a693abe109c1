package io.github.verbs4j.verbs;

/**
 * Memory region and QP access flags. REMOTE_WRITE and REMOTE_ATOMIC require LOCAL_WRITE at registration.
 *
 * <p>Mirrors {@code enum ibv_access_flags} of verbs.h; {@link #value()} is the exact verbs.h value.
 */
public enum Access implements VerbsEnum {
  /** IBV_ACCESS_LOCAL_WRITE. */
  LOCAL_WRITE(1),
  /** IBV_ACCESS_REMOTE_WRITE. */
  REMOTE_WRITE(2),
  /** IBV_ACCESS_REMOTE_READ. */
  REMOTE_READ(4),
  /** IBV_ACCESS_REMOTE_ATOMIC. */
  REMOTE_ATOMIC(8),
  /** IBV_ACCESS_MW_BIND. */
  MW_BIND(16),
  /** IBV_ACCESS_ZERO_BASED. */
  ZERO_BASED(32),
  /** IBV_ACCESS_ON_DEMAND. */
  ON_DEMAND(64),
  /** IBV_ACCESS_HUGETLB. */
  HUGETLB(128),
  /** IBV_ACCESS_FLUSH_GLOBAL. */
  FLUSH_GLOBAL(256),
  /** IBV_ACCESS_FLUSH_PERSISTENT. */
  FLUSH_PERSISTENT(512),
  /** IBV_ACCESS_RELAXED_ORDERING (1 &lt;&lt; 20, the first optional bit). */
  RELAXED_ORDERING(1048576);

  private static final EnumLookup<Access> LOOKUP = EnumLookup.of(Access.class, "ibv_access_flags");

  private final int value;

  Access(int value) {
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
  public static Access fromValue(int value) {
    return LOOKUP.fromValue(value);
  }

  /**
   * The bitwise OR of {@code flags}.
   *
   * @param flags flags
   * @return the verbs.h mask
   */
  public static int mask(java.util.Set<Access> flags) {
    return EnumLookup.mask(flags);
  }

  /**
   * The flags set in {@code mask}.
   *
   * @param mask a verbs.h mask
   * @return the flags
   * @throws IllegalArgumentException naming unknown bits
   */
  public static java.util.EnumSet<Access> fromMask(int mask) {
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
