package io.github.verbs4j.verbs;

/**
 * The operation a work completion reports. A receive completion has bit {@code 0x80} set ({@link #isReceive()}).
 *
 * <p>Mirrors {@code enum ibv_wc_opcode} of verbs.h; {@link #value()} is the exact verbs.h value.
 */
public enum WcOpcode implements VerbsEnum {
  /** IBV_WC_SEND. */
  SEND(0),
  /** IBV_WC_RDMA_WRITE. */
  RDMA_WRITE(1),
  /** IBV_WC_RDMA_READ. */
  RDMA_READ(2),
  /** IBV_WC_COMP_SWAP. */
  COMP_SWAP(3),
  /** IBV_WC_FETCH_ADD. */
  FETCH_ADD(4),
  /** IBV_WC_BIND_MW. */
  BIND_MW(5),
  /** IBV_WC_LOCAL_INV. */
  LOCAL_INV(6),
  /** IBV_WC_TSO. */
  TSO(7),
  /** IBV_WC_FLUSH. */
  FLUSH(8),
  /** IBV_WC_ATOMIC_WRITE. */
  ATOMIC_WRITE(9),
  /** IBV_WC_RECV (1 &lt;&lt; 7). */
  RECV(128),
  /** IBV_WC_RECV_RDMA_WITH_IMM. */
  RECV_RDMA_WITH_IMM(129),
  /** IBV_WC_TM_ADD. */
  TM_ADD(130),
  /** IBV_WC_TM_DEL. */
  TM_DEL(131),
  /** IBV_WC_TM_SYNC. */
  TM_SYNC(132),
  /** IBV_WC_TM_RECV. */
  TM_RECV(133),
  /** IBV_WC_TM_NO_TAG. */
  TM_NO_TAG(134),
  /** IBV_WC_DRIVER1. */
  DRIVER1(135),
  /** IBV_WC_DRIVER2. */
  DRIVER2(136),
  /** IBV_WC_DRIVER3. */
  DRIVER3(137);

  private static final EnumLookup<WcOpcode> LOOKUP = EnumLookup.of(WcOpcode.class, "ibv_wc_opcode");

  private final int value;

  WcOpcode(int value) {
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
  public static WcOpcode fromValue(int value) {
    return LOOKUP.fromValue(value);
  }

  /**
   * Whether this is a receive-side completion ({@code opcode & IBV_WC_RECV}).
   *
   * @return true for receive completions
   */
  public boolean isReceive() {
    return (value & RECV.value) != 0;
  }
}
