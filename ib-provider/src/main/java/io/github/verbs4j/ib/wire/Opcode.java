package io.github.verbs4j.ib.wire;

import static io.github.verbs4j.ib.wire.HeaderType.AETH;
import static io.github.verbs4j.ib.wire.HeaderType.ATOMIC_ACK_ETH;
import static io.github.verbs4j.ib.wire.HeaderType.ATOMIC_ETH;
import static io.github.verbs4j.ib.wire.HeaderType.DCETH;
import static io.github.verbs4j.ib.wire.HeaderType.DETH;
import static io.github.verbs4j.ib.wire.HeaderType.IMM_DT;
import static io.github.verbs4j.ib.wire.HeaderType.RETH;
import static io.github.verbs4j.ib.wire.HeaderType.SRQ_FLOW_ETH;

/**
 * The BTH opcodes the simulated HCA speaks, with what each one carries (the design of rxe's
 * {@code rxe_opcode[]} table): its headers and their offsets, and semantic bits the engines test
 * instead of switching on opcodes. The value is {@code transport base | operation} (IBTA 9.2.1):
 * RC {@code 0x00}, UC {@code 0x20}, UD {@code 0x60}, and DC {@code 0xC0} — in the range IBTA
 * leaves to manufacturers; a DC request carries a {@link DcEth} after the BTH, DC responses do not.
 * The seed-002 SRQ flow-control packets ({@link #SRQ_STOP_REQUEST}, {@link #SRQ_RESEND_REQUEST})
 * use the other manufacturer range, {@code 0xE0}: IBTA 9.2.1 gives {@code 110xxxxx} and {@code
 * 111xxxxx} to manufacturers, DC already holds the first, and the RC codes left reserved in
 * 1.2 ({@code 0x15..0x1F}) are partly taken by later revisions (SEND with invalidate {@code
 * 0x16/0x17}, FLUSH {@code 0x1C}, ATOMIC WRITE {@code 0x1D}), so an RC-range code could collide
 * with a real opcode. They are responses (they go to the completer) on an RC or DC
 * connection.
 *
 * <p>Offsets count from the packet's first byte (the {@link Lrh}); the payload starts at {@link
 * #headerLength()}.
 */
public enum Opcode {
  RC_SEND_FIRST(Transport.RC, Op.SEND_FIRST, Flag.REQ | Flag.SEND | Flag.RWR | Flag.START | Flag.PAYLOAD),
  RC_SEND_MIDDLE(Transport.RC, Op.SEND_MIDDLE, Flag.REQ | Flag.SEND | Flag.MIDDLE | Flag.PAYLOAD),
  RC_SEND_LAST(Transport.RC, Op.SEND_LAST, Flag.REQ | Flag.SEND | Flag.COMP | Flag.END | Flag.PAYLOAD),
  RC_SEND_LAST_WITH_IMMEDIATE(Transport.RC, Op.SEND_LAST_IMM,
      Flag.REQ | Flag.SEND | Flag.COMP | Flag.END | Flag.IMM | Flag.PAYLOAD, IMM_DT),
  RC_SEND_ONLY(Transport.RC, Op.SEND_ONLY, Flag.REQ | Flag.SEND | Flag.RWR | Flag.COMP | Flag.START | Flag.END
      | Flag.PAYLOAD),
  RC_SEND_ONLY_WITH_IMMEDIATE(Transport.RC, Op.SEND_ONLY_IMM, Flag.REQ | Flag.SEND | Flag.RWR | Flag.COMP
      | Flag.START | Flag.END | Flag.IMM | Flag.PAYLOAD, IMM_DT),
  RC_RDMA_WRITE_FIRST(Transport.RC, Op.WRITE_FIRST, Flag.REQ | Flag.WRITE | Flag.START | Flag.PAYLOAD, RETH),
  RC_RDMA_WRITE_MIDDLE(Transport.RC, Op.WRITE_MIDDLE, Flag.REQ | Flag.WRITE | Flag.MIDDLE | Flag.PAYLOAD),
  RC_RDMA_WRITE_LAST(Transport.RC, Op.WRITE_LAST, Flag.REQ | Flag.WRITE | Flag.END | Flag.PAYLOAD),
  RC_RDMA_WRITE_LAST_WITH_IMMEDIATE(Transport.RC, Op.WRITE_LAST_IMM, Flag.REQ | Flag.WRITE | Flag.RWR | Flag.COMP
      | Flag.END | Flag.IMM | Flag.PAYLOAD, IMM_DT),
  RC_RDMA_WRITE_ONLY(Transport.RC, Op.WRITE_ONLY, Flag.REQ | Flag.WRITE | Flag.START | Flag.END | Flag.PAYLOAD,
      RETH),
  RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE(Transport.RC, Op.WRITE_ONLY_IMM, Flag.REQ | Flag.WRITE | Flag.RWR | Flag.COMP
      | Flag.START | Flag.END | Flag.IMM | Flag.PAYLOAD, RETH, IMM_DT),
  RC_RDMA_READ_REQUEST(Transport.RC, Op.READ_REQUEST, Flag.REQ | Flag.READ | Flag.START | Flag.END, RETH),
  RC_RDMA_READ_RESPONSE_FIRST(Transport.RC, Op.READ_RESPONSE_FIRST, Flag.ACK | Flag.READ_RESP | Flag.START
      | Flag.PAYLOAD, AETH),
  RC_RDMA_READ_RESPONSE_MIDDLE(Transport.RC, Op.READ_RESPONSE_MIDDLE, Flag.ACK | Flag.READ_RESP | Flag.MIDDLE
      | Flag.PAYLOAD),
  RC_RDMA_READ_RESPONSE_LAST(Transport.RC, Op.READ_RESPONSE_LAST, Flag.ACK | Flag.READ_RESP | Flag.END
      | Flag.PAYLOAD, AETH),
  RC_RDMA_READ_RESPONSE_ONLY(Transport.RC, Op.READ_RESPONSE_ONLY, Flag.ACK | Flag.READ_RESP | Flag.START | Flag.END
      | Flag.PAYLOAD, AETH),
  RC_ACKNOWLEDGE(Transport.RC, Op.ACKNOWLEDGE, Flag.ACK | Flag.START | Flag.END, AETH),
  RC_ATOMIC_ACKNOWLEDGE(Transport.RC, Op.ATOMIC_ACKNOWLEDGE, Flag.ACK | Flag.ATOMIC_RESP | Flag.START | Flag.END,
      AETH, ATOMIC_ACK_ETH),
  RC_COMPARE_SWAP(Transport.RC, Op.COMPARE_SWAP, Flag.REQ | Flag.ATOMIC | Flag.START | Flag.END, ATOMIC_ETH),
  RC_FETCH_ADD(Transport.RC, Op.FETCH_ADD, Flag.REQ | Flag.ATOMIC | Flag.START | Flag.END, ATOMIC_ETH),

  UC_SEND_FIRST(Transport.UC, Op.SEND_FIRST, RC_SEND_FIRST),
  UC_SEND_MIDDLE(Transport.UC, Op.SEND_MIDDLE, RC_SEND_MIDDLE),
  UC_SEND_LAST(Transport.UC, Op.SEND_LAST, RC_SEND_LAST),
  UC_SEND_LAST_WITH_IMMEDIATE(Transport.UC, Op.SEND_LAST_IMM, RC_SEND_LAST_WITH_IMMEDIATE),
  UC_SEND_ONLY(Transport.UC, Op.SEND_ONLY, RC_SEND_ONLY),
  UC_SEND_ONLY_WITH_IMMEDIATE(Transport.UC, Op.SEND_ONLY_IMM, RC_SEND_ONLY_WITH_IMMEDIATE),
  UC_RDMA_WRITE_FIRST(Transport.UC, Op.WRITE_FIRST, RC_RDMA_WRITE_FIRST),
  UC_RDMA_WRITE_MIDDLE(Transport.UC, Op.WRITE_MIDDLE, RC_RDMA_WRITE_MIDDLE),
  UC_RDMA_WRITE_LAST(Transport.UC, Op.WRITE_LAST, RC_RDMA_WRITE_LAST),
  UC_RDMA_WRITE_LAST_WITH_IMMEDIATE(Transport.UC, Op.WRITE_LAST_IMM, RC_RDMA_WRITE_LAST_WITH_IMMEDIATE),
  UC_RDMA_WRITE_ONLY(Transport.UC, Op.WRITE_ONLY, RC_RDMA_WRITE_ONLY),
  UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE(Transport.UC, Op.WRITE_ONLY_IMM, RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE),

  UD_SEND_ONLY(Transport.UD, Op.SEND_ONLY, RC_SEND_ONLY.flags, DETH),
  UD_SEND_ONLY_WITH_IMMEDIATE(Transport.UD, Op.SEND_ONLY_IMM, RC_SEND_ONLY_WITH_IMMEDIATE.flags, DETH, IMM_DT),

  DC_SEND_FIRST(Transport.DC, Op.SEND_FIRST, RC_SEND_FIRST),
  DC_SEND_MIDDLE(Transport.DC, Op.SEND_MIDDLE, RC_SEND_MIDDLE),
  DC_SEND_LAST(Transport.DC, Op.SEND_LAST, RC_SEND_LAST),
  DC_SEND_LAST_WITH_IMMEDIATE(Transport.DC, Op.SEND_LAST_IMM, RC_SEND_LAST_WITH_IMMEDIATE),
  DC_SEND_ONLY(Transport.DC, Op.SEND_ONLY, RC_SEND_ONLY),
  DC_SEND_ONLY_WITH_IMMEDIATE(Transport.DC, Op.SEND_ONLY_IMM, RC_SEND_ONLY_WITH_IMMEDIATE),
  DC_RDMA_WRITE_FIRST(Transport.DC, Op.WRITE_FIRST, RC_RDMA_WRITE_FIRST),
  DC_RDMA_WRITE_MIDDLE(Transport.DC, Op.WRITE_MIDDLE, RC_RDMA_WRITE_MIDDLE),
  DC_RDMA_WRITE_LAST(Transport.DC, Op.WRITE_LAST, RC_RDMA_WRITE_LAST),
  DC_RDMA_WRITE_LAST_WITH_IMMEDIATE(Transport.DC, Op.WRITE_LAST_IMM, RC_RDMA_WRITE_LAST_WITH_IMMEDIATE),
  DC_RDMA_WRITE_ONLY(Transport.DC, Op.WRITE_ONLY, RC_RDMA_WRITE_ONLY),
  DC_RDMA_WRITE_ONLY_WITH_IMMEDIATE(Transport.DC, Op.WRITE_ONLY_IMM, RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE),
  DC_RDMA_READ_REQUEST(Transport.DC, Op.READ_REQUEST, RC_RDMA_READ_REQUEST),
  DC_RDMA_READ_RESPONSE_FIRST(Transport.DC, Op.READ_RESPONSE_FIRST, RC_RDMA_READ_RESPONSE_FIRST),
  DC_RDMA_READ_RESPONSE_MIDDLE(Transport.DC, Op.READ_RESPONSE_MIDDLE, RC_RDMA_READ_RESPONSE_MIDDLE),
  DC_RDMA_READ_RESPONSE_LAST(Transport.DC, Op.READ_RESPONSE_LAST, RC_RDMA_READ_RESPONSE_LAST),
  DC_RDMA_READ_RESPONSE_ONLY(Transport.DC, Op.READ_RESPONSE_ONLY, RC_RDMA_READ_RESPONSE_ONLY),
  DC_ACKNOWLEDGE(Transport.DC, Op.ACKNOWLEDGE, RC_ACKNOWLEDGE),
  DC_ATOMIC_ACKNOWLEDGE(Transport.DC, Op.ATOMIC_ACKNOWLEDGE, RC_ATOMIC_ACKNOWLEDGE),
  DC_COMPARE_SWAP(Transport.DC, Op.COMPARE_SWAP, RC_COMPARE_SWAP),
  DC_FETCH_ADD(Transport.DC, Op.FETCH_ADD, RC_FETCH_ADD),

  /** Seed 002 stop request: the SRQ had no receive WQE; hold the stream at this PSN. */
  SRQ_STOP_REQUEST(Transport.SRQ_FC, Op.SRQ_STOP, Flag.ACK | Flag.START | Flag.END | Flag.SRQ_STOP, SRQ_FLOW_ETH),
  /** Seed 002 resend request: the SRQ has receive WQEs again; resume from this PSN. */
  SRQ_RESEND_REQUEST(Transport.SRQ_FC, Op.SRQ_RESEND, Flag.ACK | Flag.START | Flag.END | Flag.SRQ_RESEND,
      SRQ_FLOW_ETH);

  /** Transport service of an opcode: the top three bits of its value (IBTA 9.2.1). */
  public enum Transport {
    /** Reliable connected. */
    RC(0x00),
    /** Unreliable connected. */
    UC(0x20),
    /** Unreliable datagram. */
    UD(0x60),
    /** Dynamically connected (verbs4j, manufacturer-specific range). */
    DC(0xC0),
    /** Seed-002 SRQ flow control on RC and DC connections (verbs4j, manufacturer-specific range). */
    SRQ_FC(0xE0);

    private final int base;

    Transport(int base) {
      this.base = base;
    }

    /** @return the value of operation 0 of this transport */
    public int base() {
      return base;
    }
  }

  /** Operation codes: the low five bits of an opcode value. */
  public static final class Op {
    /** SEND first packet. */
    public static final int SEND_FIRST = 0x00;
    /** SEND middle packet. */
    public static final int SEND_MIDDLE = 0x01;
    /** SEND last packet. */
    public static final int SEND_LAST = 0x02;
    /** SEND last packet with immediate. */
    public static final int SEND_LAST_IMM = 0x03;
    /** SEND only packet. */
    public static final int SEND_ONLY = 0x04;
    /** SEND only packet with immediate. */
    public static final int SEND_ONLY_IMM = 0x05;
    /** RDMA WRITE first packet. */
    public static final int WRITE_FIRST = 0x06;
    /** RDMA WRITE middle packet. */
    public static final int WRITE_MIDDLE = 0x07;
    /** RDMA WRITE last packet. */
    public static final int WRITE_LAST = 0x08;
    /** RDMA WRITE last packet with immediate. */
    public static final int WRITE_LAST_IMM = 0x09;
    /** RDMA WRITE only packet. */
    public static final int WRITE_ONLY = 0x0A;
    /** RDMA WRITE only packet with immediate. */
    public static final int WRITE_ONLY_IMM = 0x0B;
    /** RDMA READ request. */
    public static final int READ_REQUEST = 0x0C;
    /** RDMA READ response first packet. */
    public static final int READ_RESPONSE_FIRST = 0x0D;
    /** RDMA READ response middle packet. */
    public static final int READ_RESPONSE_MIDDLE = 0x0E;
    /** RDMA READ response last packet. */
    public static final int READ_RESPONSE_LAST = 0x0F;
    /** RDMA READ response only packet. */
    public static final int READ_RESPONSE_ONLY = 0x10;
    /** Acknowledge. */
    public static final int ACKNOWLEDGE = 0x11;
    /** Atomic acknowledge. */
    public static final int ATOMIC_ACKNOWLEDGE = 0x12;
    /** Compare and swap. */
    public static final int COMPARE_SWAP = 0x13;
    /** Fetch and add. */
    public static final int FETCH_ADD = 0x14;
    /** {@link Transport#SRQ_FC}: stop request. */
    public static final int SRQ_STOP = 0x00;
    /** {@link Transport#SRQ_FC}: resend request. */
    public static final int SRQ_RESEND = 0x01;

    private Op() {}
  }

  /** Semantic bits of an opcode (rxe's {@code RXE_*_MASK}). */
  public static final class Flag {
    /** A request: goes to the responder. */
    public static final int REQ = 1;
    /** A response: goes to the completer. */
    public static final int ACK = 1 << 1;
    /** Part of a SEND. */
    public static final int SEND = 1 << 2;
    /** Part of an RDMA WRITE. */
    public static final int WRITE = 1 << 3;
    /** An RDMA READ request. */
    public static final int READ = 1 << 4;
    /** An atomic request. */
    public static final int ATOMIC = 1 << 5;
    /** Part of an RDMA READ response. */
    public static final int READ_RESP = 1 << 6;
    /** An atomic acknowledge. */
    public static final int ATOMIC_RESP = 1 << 7;
    /** Consumes a receive WQE (SEND_FIRST/ONLY, WRITE_*_WITH_IMMEDIATE). */
    public static final int RWR = 1 << 8;
    /** Completes a receive WQE at the responder. */
    public static final int COMP = 1 << 9;
    /** First packet of a message. */
    public static final int START = 1 << 10;
    /** Middle packet of a message. */
    public static final int MIDDLE = 1 << 11;
    /** Last packet of a message. */
    public static final int END = 1 << 12;
    /** Carries immediate data. */
    public static final int IMM = 1 << 13;
    /** May carry a payload. */
    public static final int PAYLOAD = 1 << 14;
    /** A seed-002 stop request. */
    public static final int SRQ_STOP = 1 << 15;
    /** A seed-002 resend request. */
    public static final int SRQ_RESEND = 1 << 16;

    private Flag() {}
  }

  private static final Opcode[] BY_VALUE = new Opcode[256];
  /** LRH + BTH: where the first extension header starts. */
  public static final int BASE_LENGTH = Lrh.LENGTH + Bth.LENGTH;

  static {
    for (Opcode o : values()) {
      if (BY_VALUE[o.value] != null) {
        throw new ExceptionInInitializerError("opcode 0x" + Integer.toHexString(o.value) + " defined twice");
      }
      BY_VALUE[o.value] = o;
      int off = BASE_LENGTH;
      for (HeaderType h : HeaderType.values()) {
        if ((o.headers & h.bit()) != 0) {
          o.offsets[h.ordinal()] = off;
          off += h.length();
        } else {
          o.offsets[h.ordinal()] = -1;
        }
      }
      o.headerLength = off;
    }
  }

  private final int value;
  private final Transport transport;
  private final int op;
  private final int flags;
  private final int headers;
  private final int[] offsets = new int[HeaderType.values().length];
  private int headerLength;

  Opcode(Transport transport, int op, int flags, HeaderType... headers) {
    this.transport = transport;
    this.op = op;
    this.value = transport.base() | op;
    this.flags = flags;
    int h = transport == Transport.DC && (flags & Flag.REQ) != 0 ? DCETH.bit() : 0;
    for (HeaderType t : headers) {
      h |= t.bit();
    }
    this.headers = h;
  }

  Opcode(Transport transport, int op, Opcode sameAs) {
    this.transport = transport;
    this.op = op;
    this.value = transport.base() | op;
    this.flags = sameAs.flags;
    int h = sameAs.headers;
    if (transport == Transport.DC && (flags & Flag.REQ) != 0) {
      h |= DCETH.bit();
    }
    this.headers = h;
  }

  /**
   * @param value an opcode byte
   * @return the opcode, or null if the simulated HCA does not speak it
   */
  public static Opcode fromValue(int value) {
    return value >= 0 && value < 256 ? BY_VALUE[value] : null;
  }

  /**
   * @param transport a transport
   * @param op an {@link Op} code
   * @return the opcode, or null if that transport lacks the operation
   */
  public static Opcode of(Transport transport, int op) {
    return BY_VALUE[transport.base() | op];
  }

  /** @return the BTH opcode byte */
  public int value() {
    return value;
  }

  /** @return the transport */
  public Transport transport() {
    return transport;
  }

  /** @return the operation code (low five bits) */
  public int op() {
    return op;
  }

  /**
   * @param flagMask one or more {@link Flag} bits
   * @return whether any of them is set
   */
  public boolean is(int flagMask) {
    return (flags & flagMask) != 0;
  }

  /** @return the {@link Flag} bits */
  public int flags() {
    return flags;
  }

  /**
   * @param h a header
   * @return whether packets of this opcode carry it
   */
  public boolean has(HeaderType h) {
    return (headers & h.bit()) != 0;
  }

  /**
   * @param h a header this opcode carries
   * @return its offset from the packet's first byte, or -1 if absent
   */
  public int offset(HeaderType h) {
    return offsets[h.ordinal()];
  }

  /** @return LRH + BTH + extension headers: where the payload starts */
  public int headerLength() {
    return headerLength;
  }
}
