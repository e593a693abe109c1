package io.github.verbs4j.verbs;

/**
 * The transport type of a device.
 *
 * <p>Mirrors {@code enum ibv_transport_type} of verbs.h; {@link #value()} is the exact verbs.h value.
 */
public enum TransportType implements VerbsEnum {
  /** IBV_TRANSPORT_UNKNOWN. */
  UNKNOWN(-1),
  /** IBV_TRANSPORT_IB. */
  IB(0),
  /** IBV_TRANSPORT_IWARP. */
  IWARP(1),
  /** IBV_TRANSPORT_USNIC. */
  USNIC(2),
  /** IBV_TRANSPORT_USNIC_UDP. */
  USNIC_UDP(3),
  /** IBV_TRANSPORT_UNSPECIFIED. */
  UNSPECIFIED(4);

  private static final EnumLookup<TransportType> LOOKUP = EnumLookup.of(TransportType.class, "ibv_transport_type");

  private final int value;

  TransportType(int value) {
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
  public static TransportType fromValue(int value) {
    return LOOKUP.fromValue(value);
  }
}
