package io.github.verbs4j.ib.wire;

import io.netty.buffer.ByteBuf;

/**
 * Local route header (IBTA 7.7), 8 bytes, big-endian, first in every packet. Byte 0 carries the
 * link version {@code LVer}, which must be {@link #LVER} (0); receivers drop anything else. The
 * fabric routes by its own frame header; the LRH keeps the source LID inside the packet so that
 * the responder answers the node that really sent it, and its packet length lets a receiver check
 * that nothing was cut.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-------+-------+-------+---+---+-------------------------------+
 * |  VL   | LVer  |  SL   |rsv|LNH|        Destination LID        |  0
 * +-------+-------+-------+---+---+-------------------------------+
 * |   rsv   |  PktLen (words)     |          Source LID           |  4
 * +---------+---------------------+-------------------------------+
 * </pre>
 *
 * PktLen counts 4-byte words from the LRH through the ICRC (there is no VCRC). LNH is {@link
 * #LNH_IBA_LOCAL}: a BTH follows (no GRH). The low bit of the reserved pair in byte 1 is {@link
 * #NO_ICRC}, a verbs4j extension: the sender computed no ICRC (its trailer is zero) because the
 * fabric cannot corrupt the packet; a receiver skips the check only when the bit is set and the
 * trailer is zero, so a flipped bit cannot switch the check off.
 */
public final class Lrh {
  /** Header length in bytes. */
  public static final int LENGTH = 8;
  /** Byte holding VL (high nibble) and LVer (low nibble). */
  public static final int VL_LVER_OFFSET = 0;
  /** Byte holding SL (high nibble) and LNH (low two bits). */
  public static final int SL_LNH_OFFSET = 1;
  /** Destination LID, 16 bits. */
  public static final int DLID_OFFSET = 2;
  /** Smallest packet: LRH, BTH and ICRC. */
  public static final int MIN_PACKET = LENGTH + Bth.LENGTH + Icrc.LENGTH;
  /** Packet length in 4-byte words, low 11 bits of a 16-bit field. */
  public static final int PKTLEN_OFFSET = 4;
  /** Source LID, 16 bits. */
  public static final int SLID_OFFSET = 6;
  /** The only link version. */
  public static final int LVER = 0;
  /** Link next header: IBA local (BTH follows). */
  public static final int LNH_IBA_LOCAL = 2;
  /** Bit of byte {@link #SL_LNH_OFFSET} (reserved in IBTA) set on a packet sent without an ICRC. */
  public static final int NO_ICRC = 0x04;
  /** Largest PktLen (11 bits). */
  public static final int MAX_PKTLEN_WORDS = 0x7FF;

  // Where each field sits in word(): derived from its offset and width, so the layout is written
  // once (the OFFSET constants above).
  private static final int VL_LVER_SHIFT = shift(VL_LVER_OFFSET, 1);
  private static final int SL_LNH_SHIFT = shift(SL_LNH_OFFSET, 1);
  private static final int DLID_SHIFT = shift(DLID_OFFSET, 2);
  private static final int PKTLEN_SHIFT = shift(PKTLEN_OFFSET, 2);
  private static final int SLID_SHIFT = shift(SLID_OFFSET, 2);

  private Lrh() {}

  /** @return the right shift that brings the field at {@code offset} of a big-endian word to bit 0 */
  private static int shift(int offset, int bytes) {
    return (Long.BYTES - offset - bytes) * Byte.SIZE;
  }

  /**
   * Writes an LRH at {@code off}.
   *
   * @param b the buffer
   * @param off the LRH's offset
   * @param vl virtual lane 0..15
   * @param sl service level 0..15
   * @param dlid destination LID
   * @param slid source LID
   * @param packetBytes whole packet length in bytes (a multiple of 4)
   * @param noIcrc whether the packet goes without an ICRC (sets {@link #NO_ICRC})
   */
  public static void write(ByteBuf b, int off, int vl, int sl, int dlid, int slid, int packetBytes,
      boolean noIcrc) {
    long w = (long) ((vl & 0xF) << 4 | LVER) << VL_LVER_SHIFT
        | (long) ((sl & 0xF) << 4 | (noIcrc ? NO_ICRC : 0) | LNH_IBA_LOCAL) << SL_LNH_SHIFT
        | (long) (dlid & 0xFFFF) << DLID_SHIFT
        | (long) ((packetBytes >>> 2) & MAX_PKTLEN_WORDS) << PKTLEN_SHIFT
        | (long) (slid & 0xFFFF) << SLID_SHIFT;
    b.setLong(off, w); // one write of the whole header (big-endian, as the layout above)
  }

  /**
   * The whole header as one big-endian word, for a receiver that reads several fields: the
   * extractors below take it, and the buffer accessors are built on them.
   *
   * @param b buffer @param off LRH offset @return bytes 0..7 of the LRH
   */
  public static long word(ByteBuf b, int off) {
    return b.getLong(off);
  }

  /** @param w {@link #word} @return the link version */
  public static int lver(long w) {
    return (int) (w >>> VL_LVER_SHIFT) & 0xF;
  }

  /** @param w {@link #word} @return the virtual lane */
  public static int vl(long w) {
    return (int) (w >>> (VL_LVER_SHIFT + 4)) & 0xF;
  }

  /** @param w {@link #word} @return the service level */
  public static int sl(long w) {
    return (int) (w >>> (SL_LNH_SHIFT + 4)) & 0xF;
  }

  /** @param w {@link #word} @return the link next header */
  public static int lnh(long w) {
    return (int) (w >>> SL_LNH_SHIFT) & 0x3;
  }

  /** @param w {@link #word} @return whether the sender marked the packet as sent without an ICRC */
  public static boolean noIcrc(long w) {
    return ((int) (w >>> SL_LNH_SHIFT) & NO_ICRC) != 0;
  }

  /** @param w {@link #word} @return the destination LID */
  public static int dlid(long w) {
    return (int) (w >>> DLID_SHIFT) & 0xFFFF;
  }

  /** @param w {@link #word} @return the packet length in bytes, LRH through ICRC */
  public static int packetBytes(long w) {
    return ((int) (w >>> PKTLEN_SHIFT) & MAX_PKTLEN_WORDS) << 2;
  }

  /** @param w {@link #word} @return the source LID */
  public static int slid(long w) {
    return (int) (w >>> SLID_SHIFT) & 0xFFFF;
  }

  /** @param b buffer @param off LRH offset @return the link version */
  public static int lver(ByteBuf b, int off) {
    return lver(word(b, off));
  }

  /** @param b buffer @param off LRH offset @return the virtual lane */
  public static int vl(ByteBuf b, int off) {
    return vl(word(b, off));
  }

  /** @param b buffer @param off LRH offset @return the service level */
  public static int sl(ByteBuf b, int off) {
    return sl(word(b, off));
  }

  /** @param b buffer @param off LRH offset @return the link next header */
  public static int lnh(ByteBuf b, int off) {
    return lnh(word(b, off));
  }

  /** @param b buffer @param off LRH offset @return whether the packet was sent without an ICRC */
  public static boolean noIcrc(ByteBuf b, int off) {
    return noIcrc(word(b, off));
  }

  /** @param b buffer @param off LRH offset @return the destination LID */
  public static int dlid(ByteBuf b, int off) {
    return dlid(word(b, off));
  }

  /** @param b buffer @param off LRH offset @return the packet length in bytes, LRH through ICRC */
  public static int packetBytes(ByteBuf b, int off) {
    return packetBytes(word(b, off));
  }

  /** @param b buffer @param off LRH offset @return the source LID */
  public static int slid(ByteBuf b, int off) {
    return slid(word(b, off));
  }

  /**
   * The length of the packet at {@code at} of a packet train (packets back to back in one frame,
   * each as long as its LRH says), if it can be one: at least LRH, BTH and ICRC, and no longer than
   * the bytes left.
   *
   * @param b the frame
   * @param at the packet's first byte
   * @param end the frame's end
   * @return the packet length in bytes, or -1 if no packet of that length fits
   */
  public static int trainPacketBytes(ByteBuf b, int at, int end) {
    if (end - at < MIN_PACKET) {
      return -1;
    }
    int len = packetBytes(b, at);
    return len >= MIN_PACKET && len <= end - at ? len : -1;
  }
}
