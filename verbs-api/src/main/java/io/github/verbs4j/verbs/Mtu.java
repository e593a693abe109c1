package io.github.verbs4j.verbs;

/**
 * Path MTU; the size in bytes is {@code 128 << value}.
 *
 * <p>Mirrors {@code enum ibv_mtu} of verbs.h; {@link #value()} is the exact verbs.h value.
 */
public enum Mtu implements VerbsEnum {
  /** IBV_MTU_256. */
  MTU_256(1),
  /** IBV_MTU_512. */
  MTU_512(2),
  /** IBV_MTU_1024. */
  MTU_1024(3),
  /** IBV_MTU_2048. */
  MTU_2048(4),
  /** IBV_MTU_4096. */
  MTU_4096(5);

  private static final EnumLookup<Mtu> LOOKUP = EnumLookup.of(Mtu.class, "ibv_mtu");

  private final int value;

  Mtu(int value) {
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
  public static Mtu fromValue(int value) {
    return LOOKUP.fromValue(value);
  }

  /**
   * The MTU in bytes.
   *
   * @return {@code 128 << value()}
   */
  public int bytes() {
    return 128 << value;
  }

  /**
   * The MTU whose size is exactly {@code bytes}.
   *
   * @param bytes 256, 512, 1024, 2048 or 4096
   * @return the MTU
   * @throws IllegalArgumentException naming the value otherwise
   */
  public static Mtu ofBytes(int bytes) {
    for (Mtu m : values()) {
      if (m.bytes() == bytes) {
        return m;
      }
    }
    throw new IllegalArgumentException("mtu=" + bytes + " is not one of 256, 512, 1024, 2048, 4096");
  }
}
