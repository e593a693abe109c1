package io.github.verbs4j.ib.wire;

import io.github.verbs4j.verbs.spi.wire.Psn;
import io.netty.buffer.ByteBuf;

/**
 * Base transport header (IBTA 9.2), 12 bytes, big-endian, directly after the {@link Lrh}.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------+-+-+---+-------+-------------------------------+
 * |    OpCode     |S|M|Pad| TVer  |            P_Key              |  0
 * +---------------+-+-+---+-------+-------------------------------+
 * |F|B|  resv6    |            Destination QP                     |  4
 * +-+-+-----------+-----------------------------------------------+
 * |A|  resv7      |            Packet Sequence Number             |  8
 * +-+-------------+-----------------------------------------------+
 * </pre>
 *
 * S = solicited event, M = migration request (always 0), Pad = bytes of zero padding after the
 * payload ({@code (-payload) & 3}), TVer = transport version (must be {@link #TVER}), F/B =
 * FECN/BECN (always 0), A = acknowledge request.
 */
public final class Bth {
  /** Header length in bytes. */
  public static final int LENGTH = 12;
  /** OpCode byte. */
  public static final int OPCODE_OFFSET = 0;
  /** SE, M, PadCnt and TVer byte. */
  public static final int FLAGS_OFFSET = 1;
  /** Partition key, 16 bits. */
  public static final int PKEY_OFFSET = 2;
  /** FECN/BECN byte, then the 24-bit destination QP. */
  public static final int DEST_QP_OFFSET = 4;
  /** AckReq bit, then the 24-bit PSN. */
  public static final int PSN_OFFSET = 8;
  /** The only transport version. */
  public static final int TVER = 0;
  /** The default partition key (full member), the only one the simulated port has. */
  public static final int DEFAULT_PKEY = 0xFFFF;

  private static final int SE_BIT = 0x80;
  private static final int MIG_BIT = 0x40;
  private static final int ACK_REQ_BIT = 0x8000_0000;

  // Where each field sits in word() (bytes 0..7): derived from its offset and width, so the layout
  // is written once (the OFFSET constants above).
  private static final int OPCODE_SHIFT = shift(OPCODE_OFFSET, 1);
  private static final int FLAGS_SHIFT = shift(FLAGS_OFFSET, 1);
  private static final int PKEY_SHIFT = shift(PKEY_OFFSET, 2);
  private static final int DEST_QP_SHIFT = shift(DEST_QP_OFFSET, 4);

  private Bth() {}

  /** @return the right shift that brings the field at {@code offset} of a big-endian word to bit 0 */
  private static int shift(int offset, int bytes) {
    return (Long.BYTES - offset - bytes) * Byte.SIZE;
  }

  /**
   * Writes a BTH at {@code off}.
   *
   * @param b the buffer
   * @param off the BTH's offset
   * @param opcode the opcode value
   * @param solicited the SE bit
   * @param padCount pad bytes 0..3
   * @param pkey partition key
   * @param destQp destination QP (24 bits)
   * @param ackReq the AckReq bit
   * @param psn the PSN (24 bits)
   */
  public static void write(ByteBuf b, int off, int opcode, boolean solicited, int padCount, int pkey, int destQp,
      boolean ackReq, int psn) {
    long w = (long) (opcode & 0xFF) << OPCODE_SHIFT
        | (long) ((solicited ? SE_BIT : 0) | (padCount & 3) << 4 | TVER) << FLAGS_SHIFT
        | (long) (pkey & 0xFFFF) << PKEY_SHIFT
        | (long) (destQp & Psn.MASK) << DEST_QP_SHIFT;
    b.setLong(off, w); // bytes 0..7 in one write (big-endian)
    b.setInt(off + PSN_OFFSET, (ackReq ? ACK_REQ_BIT : 0) | (psn & Psn.MASK));
  }

  /**
   * Bytes 0..7 of the header (opcode, flags, P_Key, destination QP) as one big-endian word, for a
   * receiver that reads several fields; the extractors below take it, and the buffer accessors are
   * built on them. {@link #psnWord} holds the rest.
   *
   * @param b buffer @param off BTH offset @return the word
   */
  public static long word(ByteBuf b, int off) {
    return b.getLong(off);
  }

  /** @param b buffer @param off BTH offset @return bytes 8..11 (AckReq and PSN) */
  public static int psnWord(ByteBuf b, int off) {
    return b.getInt(off + PSN_OFFSET);
  }

  /** @param w {@link #word} @return the opcode value 0..255 */
  public static int opcode(long w) {
    return (int) (w >>> OPCODE_SHIFT) & 0xFF;
  }

  private static int flags(long w) {
    return (int) (w >>> FLAGS_SHIFT) & 0xFF;
  }

  /** @param w {@link #word} @return the solicited event bit */
  public static boolean solicited(long w) {
    return (flags(w) & SE_BIT) != 0;
  }

  /** @param w {@link #word} @return the migration request bit */
  public static boolean migReq(long w) {
    return (flags(w) & MIG_BIT) != 0;
  }

  /** @param w {@link #word} @return the pad count 0..3 */
  public static int padCount(long w) {
    return (flags(w) >>> 4) & 3;
  }

  /** @param w {@link #word} @return the transport header version */
  public static int tver(long w) {
    return flags(w) & 0xF;
  }

  /** @param w {@link #word} @return the partition key */
  public static int pkey(long w) {
    return (int) (w >>> PKEY_SHIFT) & 0xFFFF;
  }

  /** @param w {@link #word} @return the 24-bit destination QP number */
  public static int destQp(long w) {
    return (int) (w >>> DEST_QP_SHIFT) & Psn.MASK;
  }

  /** @param p {@link #psnWord} @return the AckReq bit */
  public static boolean ackReq(int p) {
    return (p & ACK_REQ_BIT) != 0;
  }

  /** @param p {@link #psnWord} @return the 24-bit PSN */
  public static int psn(int p) {
    return p & Psn.MASK;
  }

  /** @param b buffer @param off BTH offset @return the opcode value 0..255 */
  public static int opcode(ByteBuf b, int off) {
    return opcode(word(b, off));
  }

  /** @param b buffer @param off BTH offset @return the solicited event bit */
  public static boolean solicited(ByteBuf b, int off) {
    return solicited(word(b, off));
  }

  /** @param b buffer @param off BTH offset @return the migration request bit */
  public static boolean migReq(ByteBuf b, int off) {
    return migReq(word(b, off));
  }

  /** @param b buffer @param off BTH offset @return the pad count 0..3 */
  public static int padCount(ByteBuf b, int off) {
    return padCount(word(b, off));
  }

  /** @param b buffer @param off BTH offset @return the transport header version */
  public static int tver(ByteBuf b, int off) {
    return tver(word(b, off));
  }

  /** @param b buffer @param off BTH offset @return the partition key */
  public static int pkey(ByteBuf b, int off) {
    return pkey(word(b, off));
  }

  /** @param b buffer @param off BTH offset @return the 24-bit destination QP number */
  public static int destQp(ByteBuf b, int off) {
    return destQp(word(b, off));
  }

  /** @param b buffer @param off BTH offset @return the AckReq bit */
  public static boolean ackReq(ByteBuf b, int off) {
    return ackReq(psnWord(b, off));
  }

  /** @param b buffer @param off BTH offset @return the 24-bit PSN */
  public static int psn(ByteBuf b, int off) {
    return psn(psnWord(b, off));
  }
  /**
   * @param payloadLength payload bytes
   * @return the pad count that brings the payload to a multiple of 4
   */
  public static int padFor(int payloadLength) {
    return -payloadLength & 3;
  }
}
