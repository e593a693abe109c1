package io.github.verbs4j.verbs;

/**
 * The transport type of a queue pair. DCI and DCT are driver types (mlx5dv) that verbs4j exposes directly; their values lie outside verbs.h's range and are verbs4j's own.
 *
 * <p>Mirrors {@code enum ibv_qp_type} of verbs.h; {@link #value()} is the exact verbs.h value.
 */
public enum QpType implements VerbsEnum {
  /** IBV_QPT_RC: reliable connected. */
  RC(2),
  /** IBV_QPT_UC: unreliable connected. */
  UC(3),
  /** IBV_QPT_UD: unreliable datagram. */
  UD(4),
  /** IBV_QPT_RAW_PACKET. */
  RAW_PACKET(8),
  /** IBV_QPT_XRC_SEND. */
  XRC_SEND(9),
  /** IBV_QPT_XRC_RECV. */
  XRC_RECV(10),
  /** IBV_QPT_DRIVER. */
  DRIVER(255),
  /** Dynamically connected initiator (mlx5dv MLX5DV_DCTYPE_DCI, created as IBV_QPT_DRIVER in C). */
  DCI(256),
  /** Dynamically connected target (mlx5dv MLX5DV_DCTYPE_DCT). */
  DCT(257);

  private static final EnumLookup<QpType> LOOKUP = EnumLookup.of(QpType.class, "ibv_qp_type");

  private final int value;

  QpType(int value) {
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
  public static QpType fromValue(int value) {
    return LOOKUP.fromValue(value);
  }
}
