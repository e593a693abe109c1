package io.github.verbs4j.tca.peach2;

import io.netty.buffer.ByteBuf;

/**
 * A data link layer packet (DLLP) as PCIe defines it (Base Specification 2.0 §3.4, Fig. 3-10): six
 * bytes, big-endian — the type, three bytes of content and a 16-bit CRC over the first four. An
 * Ack or Nak carries the 12-bit AckNak_Seq_Num (the last TLP received in sequence); it travels
 * after a TLP in the same fabric frame, or alone in a {@link LinkFrame#TYPE_DLLP} frame. The two
 * initialisation DLLPs (PCIe's InitFC1 and InitFC2 of data link initialisation, §3.3.1) restart a
 * link after it went down; PEACH2's model carries link epochs in them instead of flow-control
 * credits (see {@link DataLinkLayer}).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------+---------------+-------+-----------------------+
 * |  type (Ack 00 |   reserved    | rsvd  |    AckNak_Seq_Num     |  0
 * |  or Nak 10)   |               |       |       (12 bits)       |
 * +---------------+---------------+-------+-----------------------+
 * |            CRC-16             |                                  4
 * +-------------------------------+
 * </pre>
 *
 * <ul>
 *   <li>type: {@link #ACK} (0x00) or {@link #NAK} (0x10), the PCIe encodings; {@link #INIT1}
 *       (0x40, InitFC1-P) or {@link #INIT2} (0x60, InitFC2-P); anything else is discarded.
 *   <li>InitFC1/InitFC2: byte 1 the sender's link epoch, byte 3 the receiver's epoch the sender has
 *       seen, byte 2 zero.
 *   <li>AckNak_Seq_Num: an Ack acknowledges every TLP up to and including it; a Nak acknowledges
 *       them too and asks for everything after it again.
 *   <li>CRC-16: polynomial 0x100B (the DLLP CRC of PCIe §3.5.2.1), initial value 0xFFFF, most
 *       significant bit first, complemented; a DLLP whose CRC does not match is discarded.
 * </ul>
 */
public final class Peach2Dllp {
  /** Ack. */
  public static final int ACK = 0x00;
  /** Nak. */
  public static final int NAK = 0x10;
  /** InitFC1: sent while a link initialises. */
  public static final int INIT1 = 0x40;
  /** InitFC2: the answer to an InitFC1. */
  public static final int INIT2 = 0x60;
  /** Offset of the type byte. */
  public static final int TYPE_OFFSET = 0;
  /** Offset of the 16-bit word holding the 12-bit sequence number. */
  public static final int SEQ_OFFSET = 2;
  /** Offset of the CRC-16. */
  public static final int CRC_OFFSET = 4;
  /** Bytes of a DLLP. */
  public static final int LENGTH = 6;
  private static final int SEQ_MASK = DataLinkParams.SEQ_MODULUS - 1;
  private static final int POLY = 0x100B;

  private Peach2Dllp() {}

  /**
   * Writes a DLLP at {@code index} (absolute, writer index unchanged).
   *
   * @param buf a buffer with {@link #LENGTH} writable bytes at {@code index}
   * @param index where the DLLP starts
   * @param type {@link #ACK} or {@link #NAK}
   * @param seq the AckNak_Seq_Num (12 bits)
   */
  public static void write(ByteBuf buf, int index, int type, int seq) {
    buf.setByte(index + TYPE_OFFSET, type);
    buf.setByte(index + 1, 0);
    buf.setShort(index + SEQ_OFFSET, seq & SEQ_MASK);
    buf.setShort(index + CRC_OFFSET, crc(buf, index));
  }

  /**
   * Writes an InitFC1 or InitFC2 DLLP at {@code index} (absolute, writer index unchanged).
   *
   * @param buf a buffer with {@link #LENGTH} writable bytes at {@code index}
   * @param index where the DLLP starts
   * @param type {@link #INIT1} or {@link #INIT2}
   * @param epoch the sender's link epoch (8 bits)
   * @param seen the receiver's epoch the sender has seen (8 bits)
   */
  public static void writeInit(ByteBuf buf, int index, int type, int epoch, int seen) {
    buf.setByte(index + TYPE_OFFSET, type);
    buf.setByte(index + 1, epoch);
    buf.setShort(index + SEQ_OFFSET, seen & 0xFF);
    buf.setShort(index + CRC_OFFSET, crc(buf, index));
  }

  /**
   * @param buf a buffer
   * @param index where a DLLP starts
   * @return true if it is an Ack, Nak, InitFC1 or InitFC2 with its reserved bits 0 and its CRC
   *     matching
   */
  public static boolean check(ByteBuf buf, int index) {
    int type = buf.getUnsignedByte(index + TYPE_OFFSET);
    int word = buf.getUnsignedShort(index + SEQ_OFFSET);
    boolean form = type == ACK || type == NAK ? buf.getByte(index + 1) == 0 && (word & ~SEQ_MASK) == 0
        : (type == INIT1 || type == INIT2) && (word & ~0xFF) == 0;
    return form && buf.getUnsignedShort(index + CRC_OFFSET) == crc(buf, index);
  }

  /**
   * @param buf a buffer
   * @param index where an InitFC DLLP starts
   * @return the sender's epoch
   */
  public static int epoch(ByteBuf buf, int index) {
    return buf.getUnsignedByte(index + 1);
  }

  /**
   * @param buf a buffer
   * @param index where an InitFC DLLP starts
   * @return the receiver's epoch the sender has seen
   */
  public static int seenEpoch(ByteBuf buf, int index) {
    return buf.getUnsignedShort(index + SEQ_OFFSET) & 0xFF;
  }

  /**
   * @param buf a buffer
   * @param index where a DLLP starts
   * @return its type
   */
  public static int type(ByteBuf buf, int index) {
    return buf.getUnsignedByte(index + TYPE_OFFSET);
  }

  /**
   * @param buf a buffer
   * @param index where a DLLP starts
   * @return its AckNak_Seq_Num
   */
  public static int seq(ByteBuf buf, int index) {
    return buf.getUnsignedShort(index + SEQ_OFFSET) & SEQ_MASK;
  }

  /** CRC-16 (poly 0x100B, init 0xFFFF, MSB first, complemented) over the DLLP's first four bytes. */
  static int crc(ByteBuf buf, int index) {
    int c = 0xFFFF;
    for (int i = 0; i < CRC_OFFSET; i++) {
      c ^= buf.getUnsignedByte(index + i) << 8;
      for (int b = 0; b < 8; b++) {
        c = (c & 0x8000) != 0 ? (c << 1) ^ POLY : c << 1;
      }
      c &= 0xFFFF;
    }
    return ~c & 0xFFFF;
  }
}
