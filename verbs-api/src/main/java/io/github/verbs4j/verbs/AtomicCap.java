package io.github.verbs4j.verbs;

/**
 * Atomic operation support of a device.
 *
 * <p>Mirrors {@code enum ibv_atomic_cap} of verbs.h; {@link #value()} is the exact verbs.h value.
 */
public enum AtomicCap implements VerbsEnum {
  /** IBV_ATOMIC_NONE: no atomics. */
  NONE(0),
  /** IBV_ATOMIC_HCA: atomic with respect to other atomics through the same device. */
  HCA(1),
  /** IBV_ATOMIC_GLOB: also coherent with the CPU. */
  GLOB(2);

  private static final EnumLookup<AtomicCap> LOOKUP = EnumLookup.of(AtomicCap.class, "ibv_atomic_cap");

  private final int value;

  AtomicCap(int value) {
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
  public static AtomicCap fromValue(int value) {
    return LOOKUP.fromValue(value);
  }
}
