package io.github.verbs4j.verbs;

/**
 * The operation of a send work request. Note that WR and WC opcodes are different enums with different values.
 *
 * <p>Mirrors {@code enum ibv_wr_opcode} of verbs.h; {@link #value()} is the exact verbs.h value.
 */
public enum WrOpcode implements VerbsEnum {
  /** IBV_WR_RDMA_WRITE. */
  RDMA_WRITE(0),
  /** IBV_WR_RDMA_WRITE_WITH_IMM. */
  RDMA_WRITE_WITH_IMM(1),
  /** IBV_WR_SEND. */
  SEND(2),
  /** IBV_WR_SEND_WITH_IMM. */
  SEND_WITH_IMM(3),
  /** IBV_WR_RDMA_READ. */
  RDMA_READ(4),
  /** IBV_WR_ATOMIC_CMP_AND_SWP. */
  ATOMIC_CMP_AND_SWP(5),
  /** IBV_WR_ATOMIC_FETCH_AND_ADD. */
  ATOMIC_FETCH_AND_ADD(6),
  /** IBV_WR_LOCAL_INV. */
  LOCAL_INV(7),
  /** IBV_WR_BIND_MW. */
  BIND_MW(8),
  /** IBV_WR_SEND_WITH_INV. */
  SEND_WITH_INV(9),
  /** IBV_WR_TSO. */
  TSO(10),
  /** IBV_WR_DRIVER1. */
  DRIVER1(11),
  /** IBV_WR_FLUSH. */
  FLUSH(14),
  /** IBV_WR_ATOMIC_WRITE. */
  ATOMIC_WRITE(15);

  private static final EnumLookup<WrOpcode> LOOKUP = EnumLookup.of(WrOpcode.class, "ibv_wr_opcode");

  private final int value;

  WrOpcode(int value) {
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
  public static WrOpcode fromValue(int value) {
    return LOOKUP.fromValue(value);
  }

  /**
   * Whether this opcode is an atomic (compare-and-swap or fetch-and-add).
   *
   * @return true for atomics
   */
  public boolean isAtomic() {
    return this == ATOMIC_CMP_AND_SWP || this == ATOMIC_FETCH_AND_ADD;
  }

  /**
   * Whether the responder must consume a receive WR for this opcode.
   *
   * @return true for SEND, SEND_WITH_IMM, SEND_WITH_INV and RDMA_WRITE_WITH_IMM
   */
  public boolean consumesReceive() {
    return this == SEND || this == SEND_WITH_IMM || this == SEND_WITH_INV || this == RDMA_WRITE_WITH_IMM;
  }

  /**
   * The completion opcode the requester reports for this WR opcode.
   *
   * @return the requester's {@link WcOpcode}
   */
  public WcOpcode completionOpcode() {
    switch (this) {
      case RDMA_WRITE:
      case RDMA_WRITE_WITH_IMM:
        return WcOpcode.RDMA_WRITE;
      case RDMA_READ:
        return WcOpcode.RDMA_READ;
      case ATOMIC_CMP_AND_SWP:
        return WcOpcode.COMP_SWAP;
      case ATOMIC_FETCH_AND_ADD:
        return WcOpcode.FETCH_ADD;
      case LOCAL_INV:
        return WcOpcode.LOCAL_INV;
      case BIND_MW:
        return WcOpcode.BIND_MW;
      case TSO:
        return WcOpcode.TSO;
      case FLUSH:
        return WcOpcode.FLUSH;
      case ATOMIC_WRITE:
        return WcOpcode.ATOMIC_WRITE;
      default:
        return WcOpcode.SEND;
    }
  }
}
