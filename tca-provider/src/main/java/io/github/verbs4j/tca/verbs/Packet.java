package io.github.verbs4j.tca.verbs;

import java.nio.ByteBuffer;

/**
 * A TCA Verbs packet: what one software layer tells the other through a ring (seed 000 §3.2). A
 * packet is a 64-byte header and up to {@link Layout#HB_MAX_PAYLOAD} bytes of payload, padded to a
 * multiple of 16 in the high-bandwidth ring. Little-endian.
 *
 * <pre>
 * offset  size  field
 * 0       1     opcode (below)
 * 1       1     flags: 1 IMM, 2 SOLICITED, 4 CAS (else FETCH_ADD), 8 DROP (a UC target had no receive),
 *               16 ACK_REQ (an RC SEND, WRITE or FIN: the receiver's write-back acknowledges it)
 * 2       2     reserved (0)
 * 4       4     seq: position in the channel (both rings of a peer share one sequence)
 * 8       4     payload length
 * 12      4     source QP number
 * 16      4     destination QP number
 * 20      4     PSN (24 bits): one per message, the QP's sq_psn onwards
 * 24      4     message length (SEND/WRITE/READ total)
 * 28      4     immediate data / NAK syndrome
 * 32      8     address: remote address (WRITE, READ, atomics), destination (CTS)
 * 40      4     rkey (WRITE, READ, atomics) / Q_Key (UD)
 * 44      4     reserved (0)
 * 48      8     value: compare or add operand / old value (ATOMIC_RESP) / landing address (READ_REQ)
 *               / the seq of the packet that was not taken (DISCARDED) / the RTS's number among
 *               its message's RTSs (RTS; echoed in its CTS)
 * 56      8     aux: swap operand
 * 64      n     payload
 * </pre>
 */
final class Packet {
  /** Header bytes. */
  static final int HEADER = 64;

  static final int SEND = 1;
  static final int WRITE = 2;
  static final int RTS_SEND = 3;
  static final int RTS_WRITE = 4;
  static final int CTS = 5;
  static final int FIN = 6;
  static final int READ_REQ = 7;
  static final int READ_RESP = 8;
  static final int ATOMIC_REQ = 9;
  static final int ATOMIC_RESP = 10;
  static final int ACK = 11;
  static final int NAK = 12;
  static final int UD_SEND = 13;
  /** Part of a long READ's data has been DMA-written (the requester's timer sees progress). */
  static final int READ_PROGRESS = 14;
  /**
   * An {@link #F_ACK_REQ} packet of the peer was taken from the ring but not accepted (no such QP,
   * a QP not accepting, out of sequence): its sequence number in {@link #value}. Handled by the
   * channel, so the receiver's write-back does not acknowledge that packet.
   */
  static final int DISCARDED = 15;

  static final int F_IMM = 1;
  static final int F_SOLICITED = 2;
  static final int F_CAS = 4;
  static final int F_DROP = 8;
  /**
   * An RC SEND, WRITE or FIN: acknowledged by the receiver writing back how many packets it took
   * (the PSN pair of seed 000), not by an ACK packet.
   */
  static final int F_ACK_REQ = 16;

  /** NAK syndromes (the AETH codes of IBA 9.7.5.2.8). */
  static final int NAK_RNR = 0x20;
  static final int NAK_INVALID_REQUEST = 0x61;
  static final int NAK_REMOTE_ACCESS = 0x62;
  static final int NAK_REMOTE_OPERATIONAL = 0x63;

  int opcode;
  int flags;
  int seq;
  int payloadLength;
  int srcQpn;
  int dstQpn;
  int psn;
  int length;
  int imm;
  long addr;
  int rkey;
  long value;
  long aux;

  /** Clears every field. @return this */
  Packet clear() {
    opcode = 0;
    flags = 0;
    seq = 0;
    payloadLength = 0;
    srcQpn = 0;
    dstQpn = 0;
    psn = 0;
    length = 0;
    imm = 0;
    addr = 0;
    rkey = 0;
    value = 0;
    aux = 0;
    return this;
  }

  /** Copies every header field of {@code p}. @return this */
  Packet copyFrom(Packet p) {
    opcode = p.opcode;
    flags = p.flags;
    seq = p.seq;
    payloadLength = p.payloadLength;
    srcQpn = p.srcQpn;
    dstQpn = p.dstQpn;
    psn = p.psn;
    length = p.length;
    imm = p.imm;
    addr = p.addr;
    rkey = p.rkey;
    value = p.value;
    aux = p.aux;
    return this;
  }

  boolean has(int flag) {
    return (flags & flag) != 0;
  }

  /** @return header plus payload, unpadded */
  int bytes() {
    return HEADER + payloadLength;
  }

  /**
   * Writes the header at {@code at} (the payload follows it).
   *
   * @param m little-endian memory
   * @param at byte index
   */
  void encode(ByteBuffer m, int at) {
    m.put(at, (byte) opcode);
    m.put(at + 1, (byte) flags);
    m.putShort(at + 2, (short) 0);
    m.putInt(at + 4, seq);
    m.putInt(at + 8, payloadLength);
    m.putInt(at + 12, srcQpn);
    m.putInt(at + 16, dstQpn);
    m.putInt(at + 20, psn);
    m.putInt(at + 24, length);
    m.putInt(at + 28, imm);
    m.putLong(at + 32, addr);
    m.putInt(at + 40, rkey);
    m.putInt(at + 44, 0);
    m.putLong(at + 48, value);
    m.putLong(at + 56, aux);
  }

  /**
   * Reads a header.
   *
   * @param m little-endian memory
   * @param at byte index
   * @return this
   */
  Packet decode(ByteBuffer m, int at) {
    opcode = m.get(at) & 0xFF;
    flags = m.get(at + 1) & 0xFF;
    seq = m.getInt(at + 4);
    payloadLength = m.getInt(at + 8);
    srcQpn = m.getInt(at + 12);
    dstQpn = m.getInt(at + 16);
    psn = m.getInt(at + 20);
    length = m.getInt(at + 24);
    imm = m.getInt(at + 28);
    addr = m.getLong(at + 32);
    rkey = m.getInt(at + 40);
    value = m.getLong(at + 48);
    aux = m.getLong(at + 56);
    return this;
  }

  /** @return whether this is a request (handled by the responder of the destination QP) */
  boolean isRequest() {
    return switch (opcode) {
      case SEND, WRITE, RTS_SEND, RTS_WRITE, FIN, READ_REQ, ATOMIC_REQ, UD_SEND -> true;
      default -> false;
    };
  }

  static String name(int opcode) {
    return switch (opcode) {
      case SEND -> "SEND";
      case WRITE -> "WRITE";
      case RTS_SEND -> "RTS_SEND";
      case RTS_WRITE -> "RTS_WRITE";
      case CTS -> "CTS";
      case FIN -> "FIN";
      case READ_REQ -> "READ_REQ";
      case READ_RESP -> "READ_RESP";
      case ATOMIC_REQ -> "ATOMIC_REQ";
      case ATOMIC_RESP -> "ATOMIC_RESP";
      case ACK -> "ACK";
      case NAK -> "NAK";
      case UD_SEND -> "UD_SEND";
      case READ_PROGRESS -> "READ_PROGRESS";
      case DISCARDED -> "DISCARDED";
      default -> "opcode " + opcode;
    };
  }

  @Override
  public String toString() {
    return name(opcode) + "{seq=" + seq + ", qp 0x" + Integer.toHexString(srcQpn) + "->0x" + Integer.toHexString(dstQpn)
        + ", psn=" + psn + ", len=" + length + ", payload=" + payloadLength + ", flags=" + flags + '}';
  }
}
