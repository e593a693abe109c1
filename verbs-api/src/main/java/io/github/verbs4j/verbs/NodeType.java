package io.github.verbs4j.verbs;

/**
 * The node type of a device.
 *
 * <p>Mirrors {@code enum ibv_node_type} of verbs.h; {@link #value()} is the exact verbs.h value.
 */
public enum NodeType implements VerbsEnum {
  /** IBV_NODE_UNKNOWN. */
  UNKNOWN(-1),
  /** IBV_NODE_CA: channel adapter. */
  CA(1),
  /** IBV_NODE_SWITCH. */
  SWITCH(2),
  /** IBV_NODE_ROUTER. */
  ROUTER(3),
  /** IBV_NODE_RNIC. */
  RNIC(4),
  /** IBV_NODE_USNIC. */
  USNIC(5),
  /** IBV_NODE_USNIC_UDP. */
  USNIC_UDP(6),
  /** IBV_NODE_UNSPECIFIED. */
  UNSPECIFIED(7);

  private static final EnumLookup<NodeType> LOOKUP = EnumLookup.of(NodeType.class, "ibv_node_type");

  private final int value;

  NodeType(int value) {
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
  public static NodeType fromValue(int value) {
    return LOOKUP.fromValue(value);
  }
}
