package io.github.verbs4j.verbs;

/**
 * The logical state of a port.
 *
 * <p>Mirrors {@code enum ibv_port_state} of verbs.h; {@link #value()} is the exact verbs.h value.
 */
public enum PortState implements VerbsEnum {
  /** IBV_PORT_NOP. */
  NOP(0),
  /** IBV_PORT_DOWN. */
  DOWN(1),
  /** IBV_PORT_INIT. */
  INIT(2),
  /** IBV_PORT_ARMED. */
  ARMED(3),
  /** IBV_PORT_ACTIVE. */
  ACTIVE(4),
  /** IBV_PORT_ACTIVE_DEFER. */
  ACTIVE_DEFER(5);

  private static final EnumLookup<PortState> LOOKUP = EnumLookup.of(PortState.class, "ibv_port_state");

  private final int value;

  PortState(int value) {
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
  public static PortState fromValue(int value) {
    return LOOKUP.fromValue(value);
  }
}
