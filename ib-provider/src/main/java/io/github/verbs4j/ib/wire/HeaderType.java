package io.github.verbs4j.ib.wire;

/**
 * The headers a packet may carry after the BTH, in the order they appear on the wire (IBTA 9.2:
 * DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt; the verbs4j DC header sits directly after the
 * BTH, where IBTA places the XRC header; the seed-002 flow-control headers are the only header of
 * their packets).
 */
public enum HeaderType {
  /** verbs4j DC header: DC access key, source DCI, connection epoch. */
  DCETH(DcEth.LENGTH, 0x01),
  /** Datagram extended transport header (UD). */
  DETH(Deth.LENGTH, 0x02),
  /** RDMA extended transport header. */
  RETH(Reth.LENGTH, 0x04),
  /** Atomic extended transport header. */
  ATOMIC_ETH(AtomicEth.LENGTH, 0x08),
  /** ACK extended transport header. */
  AETH(Aeth.LENGTH, 0x10),
  /** Atomic acknowledge extended transport header. */
  ATOMIC_ACK_ETH(AtomicAckEth.LENGTH, 0x20),
  /** Immediate data. */
  IMM_DT(ImmDt.LENGTH, 0x40),
  /** verbs4j stop and resend request header (seed 002). */
  SRQ_FLOW_ETH(SrqFlowEth.LENGTH, 0x80);

  private final int length;
  private final int bit;

  HeaderType(int length, int bit) {
    this.length = length;
    this.bit = bit;
  }

  /** @return the header's length in bytes */
  public int length() {
    return length;
  }

  /** @return this header's bit in an opcode's header mask */
  public int bit() {
    return bit;
  }
}
