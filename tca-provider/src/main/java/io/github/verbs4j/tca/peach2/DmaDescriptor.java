package io.github.verbs4j.tca.peach2;

import java.nio.ByteBuffer;

/**
 * A DMA descriptor: 32 bytes (seed 001 §4.1.1, so 128 fit a 4 KiB page) describing one transfer of
 * the chaining DMA controller (seed 001 §3.5.2): source, destination, length, an optional
 * block-stride pattern (burst length and gap length), and the link to the next descriptor of the
 * chain. Descriptors live in the board's internal memory or in host memory ({@link
 * DescriptorMode}); in both the layout is the same, little-endian as the host writes it.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------+---------------+-------------------------------+
 * |    version    |     flags     |           reserved            |  0
 * +---------------+---------------+-------------------------------+
 * |                      length (bytes)                           |  4
 * +---------------------------------------------------------------+
 * |                                                               |  8
 * +              source global address (64 bits)                  +
 * |                                                               | 12
 * +---------------------------------------------------------------+
 * |                                                               | 16
 * +            destination global address (64 bits)               +
 * |                                                               | 20
 * +-------------------------------+-------------------------------+
 * |     burst length (dwords)     |      gap length (dwords)      | 24
 * +-------------------------------+-------------------------------+
 * |                          next                                 | 28
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <ul>
 *   <li>version: {@link #VERSION}.
 *   <li>flags: {@link #FLAG_CHAIN} (next is valid), {@link #FLAG_STRIDE} (block-stride on the
 *       source), {@link #FLAG_STRIDE_DST} (the same pattern on the destination; without it the
 *       bursts are gathered contiguously at the destination).
 *   <li>length: bytes moved (the sum of the bursts when striding).
 *   <li>burst, gap: in 4-byte units; after each burst of {@code 4 × burst} bytes the source (and
 *       the destination with {@code FLAG_STRIDE_DST}) skips {@code 4 × gap} bytes (halo exchange,
 *       seed 001 §3.7).
 *   <li>next: in internal memory the index of the next descriptor; in host memory the next
 *       descriptor's offset in the host pool divided by 32.
 * </ul>
 */
public final class DmaDescriptor {
  /** Bytes per descriptor. */
  public static final int LENGTH = 32;
  /** The only version this code speaks. */
  public static final int VERSION = 1;
  /** next is valid: the chain continues. */
  public static final int FLAG_CHAIN = 1;
  /** Block-stride on the source. */
  public static final int FLAG_STRIDE = 2;
  /** Block-stride also on the destination. */
  public static final int FLAG_STRIDE_DST = 4;
  /** Offset of the version byte. */
  public static final int VERSION_OFFSET = 0;
  /** Offset of the flags byte. */
  public static final int FLAGS_OFFSET = 1;
  /** Offset of the 32-bit length. */
  public static final int LENGTH_OFFSET = 4;
  /** Offset of the 64-bit source address. */
  public static final int SRC_OFFSET = 8;
  /** Offset of the 64-bit destination address. */
  public static final int DST_OFFSET = 16;
  /** Offset of the 16-bit burst length. */
  public static final int BURST_OFFSET = 24;
  /** Offset of the 16-bit gap length. */
  public static final int GAP_OFFSET = 26;
  /** Offset of the 32-bit next link. */
  public static final int NEXT_OFFSET = 28;

  private DmaDescriptor() {}

  /**
   * Writes a descriptor.
   *
   * @param m memory (absolute, little-endian)
   * @param at byte index of the descriptor
   * @param src source global address
   * @param dst destination global address
   * @param length bytes
   * @param burstDwords burst length in dwords (0 = contiguous)
   * @param gapDwords gap length in dwords
   * @param flags {@code FLAG_*} bits other than CHAIN
   * @param next next link, or -1 for the end of the chain
   */
  public static void write(ByteBuffer m, int at, long src, long dst, int length, int burstDwords, int gapDwords,
      int flags, int next) {
    m.put(at + VERSION_OFFSET, (byte) VERSION);
    m.put(at + FLAGS_OFFSET, (byte) ((flags & ~FLAG_CHAIN) | (next >= 0 ? FLAG_CHAIN : 0)));
    m.putShort(at + 2, (short) 0);
    m.putInt(at + LENGTH_OFFSET, length);
    m.putLong(at + SRC_OFFSET, src);
    m.putLong(at + DST_OFFSET, dst);
    m.putShort(at + BURST_OFFSET, (short) burstDwords);
    m.putShort(at + GAP_OFFSET, (short) gapDwords);
    m.putInt(at + NEXT_OFFSET, next >= 0 ? next : -1);
  }

  /**
   * Rewrites only the next link of a descriptor (chaining a prebuilt descriptor).
   *
   * @param m memory
   * @param at byte index of the descriptor
   * @param next next link, or -1 for the end
   */
  public static void link(ByteBuffer m, int at, int next) {
    int flags = m.get(at + FLAGS_OFFSET) & 0xFF;
    m.put(at + FLAGS_OFFSET, (byte) (next >= 0 ? flags | FLAG_CHAIN : flags & ~FLAG_CHAIN));
    m.putInt(at + NEXT_OFFSET, next >= 0 ? next : -1);
  }

  /** @param m memory @param at index @return the version byte */
  public static int version(ByteBuffer m, int at) {
    return m.get(at + VERSION_OFFSET) & 0xFF;
  }

  /** @param m memory @param at index @return the flags */
  public static int flags(ByteBuffer m, int at) {
    return m.get(at + FLAGS_OFFSET) & 0xFF;
  }

  /** @param m memory @param at index @return the length */
  public static int length(ByteBuffer m, int at) {
    return m.getInt(at + LENGTH_OFFSET);
  }

  /** @param m memory @param at index @return the source address */
  public static long src(ByteBuffer m, int at) {
    return m.getLong(at + SRC_OFFSET);
  }

  /** @param m memory @param at index @return the destination address */
  public static long dst(ByteBuffer m, int at) {
    return m.getLong(at + DST_OFFSET);
  }

  /** @param m memory @param at index @return burst length in dwords */
  public static int burst(ByteBuffer m, int at) {
    return m.getShort(at + BURST_OFFSET) & 0xFFFF;
  }

  /** @param m memory @param at index @return gap length in dwords */
  public static int gap(ByteBuffer m, int at) {
    return m.getShort(at + GAP_OFFSET) & 0xFFFF;
  }

  /** @param m memory @param at index @return the next link */
  public static int next(ByteBuffer m, int at) {
    return m.getInt(at + NEXT_OFFSET);
  }
}
