package io.github.verbs4j.verbs;

/**
 * The link layer of a port.
 *
 * <p>Mirrors {@code enum ibv_link_layer} of verbs.h; {@link #value()} is the exact verbs.h value.
 */
public enum LinkLayer implements VerbsEnum {
  /** IBV_LINK_LAYER_UNSPECIFIED. */
  UNSPECIFIED(0),
  /** IBV_LINK_LAYER_INFINIBAND. */
  INFINIBAND(1),
  /** IBV_LINK_LAYER_ETHERNET. */
  ETHERNET(2);

  private static final EnumLookup<LinkLayer> LOOKUP = EnumLookup.of(LinkLayer.class, "ibv_link_layer");

  private final int value;

  LinkLayer(int value) {
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
  public static LinkLayer fromValue(int value) {
    return LOOKUP.fromValue(value);
  }
}
