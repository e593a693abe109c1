package io.github.verbs4j.tca.peach2;

import io.netty.buffer.ByteBuf;

/**
 * An Ack or Nak data link layer packet (DLLP) as PCIe defines it (Base Specification 2.0 §3.4,
 * Fig. 3-10): six bytes, big-endian — the type, the 12-bit AckNak_Seq_Num (the last TLP received
 * in sequence) and a 16-bit CRC over the first four bytes. It travels after a TLP in the same
 * fabric frame, or alone in a {@link LinkFrame#TYPE_DLLP} frame.
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
 *   <li>type: {@link #ACK} (0x00) or {@link #NAK} (0x10), the PCIe encodings; anything else is
 *       discarded.
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
   * @param buf a buffer
   * @param index where a DLLP starts
   * @return true if its type is Ack or Nak, its reserved bits are 0 and its CRC matches
   */
  public static boolean check(ByteBuf buf, int index) {
    int type = buf.getUnsignedByte(index + TYPE_OFFSET);
    return (type == ACK || type == NAK) && buf.getByte(index + 1) == 0
        && (buf.getUnsignedShort(index + SEQ_OFFSET) & ~SEQ_MASK) == 0
        && buf.getUnsignedShort(index + CRC_OFFSET) == crc(buf, index);
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
