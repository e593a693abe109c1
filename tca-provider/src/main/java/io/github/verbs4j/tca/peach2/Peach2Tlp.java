package io.github.verbs4j.tca.peach2;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The one thing that crosses nodes: a PCIe memory write. A fabric frame's payload is one burst of
 * consecutive memory-write TLPs — a header naming the global destination address and the length,
 * then the data — so a DMA descriptor of 64 KiB is one frame, while the cost model still counts
 * {@code ceil(length / 256)} TLPs (seed 001 §4.1.1). The board never sends anything else (seed 001
 * §3.5: "リモートノードに対するアクセスは...Memory Write 要求に限定"). Big-endian, as PCIe headers.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------+---------------+---------------+---------------+
 * |    version    |  type = MWr   |     flags     |   reserved    |  0
 * +---------------+---------------+---------------+---------------+
 * |        requester node         |           reserved            |  4
 * +-------------------------------+-------------------------------+
 * |                                                               |  8
 * +            destination global address (64 bits)               +
 * |                                                               | 12
 * +---------------------------------------------------------------+
 * |                        data length                            | 16
 * +---------------------------------------------------------------+
 * |        ECRC: CRC32C over bytes 0..19 and the data             | 20
 * +---------------------------------------------------------------+
 * |                       data (length bytes) ...                 | 24
 * </pre>
 *
 * <ul>
 *   <li>version: {@link #VERSION}; type: {@link #TYPE_MEMORY_WRITE}; reserved: 0.
 *   <li>flags: bit 0 {@link #FLAG_DIGEST} (PCIe's TD bit: the TLP carries an ECRC); the other bits 0.
 *   <li>requester node: the fabric node (LID) of the board that issued the write.
 *   <li>address: where the first data byte goes in the sub-cluster's global window; the receiving
 *       board subtracts its own offset before writing to its host (seed 001 §3.4).
 *   <li>ECRC: end-to-end CRC, present when {@link #FLAG_DIGEST} is set (else 0); a frame whose ECRC
 *       does not match is dropped and counted, never written (the fabric may corrupt frames under
 *       fault injection). A board attaches the digest while the fabric may corrupt frames: without
 *       that, nothing on the way can change a frame (the link then sends it unchecked, and the
 *       fabric drops rather than corrupts an unchecked frame), and leaving it out spares a CRC over
 *       every data byte at both ends.
 * </ul>
 */
public final class Peach2Tlp {
  /** The only version this code speaks. */
  public static final int VERSION = 1;
  /** Memory write, the only request type that crosses nodes. */
  public static final int TYPE_MEMORY_WRITE = 0x40;
  /** Offset of the version byte. */
  public static final int VERSION_OFFSET = 0;
  /** Offset of the type byte. */
  public static final int TYPE_OFFSET = 1;
  /** Offset of the flags byte. */
  public static final int FLAGS_OFFSET = 2;
  /** Offset of the 16-bit requester node. */
  public static final int REQUESTER_OFFSET = 4;
  /** Offset of the 64-bit destination address. */
  public static final int ADDRESS_OFFSET = 8;
  /** Offset of the 32-bit data length. */
  public static final int LENGTH_OFFSET = 16;
  /** Offset of the 32-bit ECRC. */
  public static final int ECRC_OFFSET = 20;
  /** Flag: the TLP carries an ECRC (PCIe's TLP digest, the TD bit). */
  public static final int FLAG_DIGEST = 0x01;
  /** Header length; data starts here. */
  public static final int HEADER_LENGTH = 24;

  private Peach2Tlp() {}

  /**
   * Writes a header (ECRC still 0) at the writer index and advances it.
   *
   * @param buf the frame buffer
   * @param requester the issuing node
   * @param address the destination global address
   * @param length data length
   */
  public static void writeHeader(ByteBuf buf, int requester, long address, int length) {
    int w = buf.writerIndex();
    buf.ensureWritable(HEADER_LENGTH);
    buf.setByte(w + VERSION_OFFSET, VERSION);
    buf.setByte(w + TYPE_OFFSET, TYPE_MEMORY_WRITE);
    buf.setByte(w + FLAGS_OFFSET, 0);
    buf.setByte(w + 3, 0);
    buf.setShort(w + REQUESTER_OFFSET, requester);
    buf.setShort(w + REQUESTER_OFFSET + 2, 0);
    buf.setLong(w + ADDRESS_OFFSET, address);
    buf.setInt(w + LENGTH_OFFSET, length);
    buf.setInt(w + ECRC_OFFSET, 0);
    buf.writerIndex(w + HEADER_LENGTH);
  }

  /**
   * Finishes a complete frame (header at {@code offset}, data after it): with {@code digest},
   * computes its ECRC, stores it and sets {@link #FLAG_DIGEST}; else leaves both clear.
   *
   * @param buf the frame
   * @param offset where the header starts
   * @param crc a reusable CRC object
   * @param digest whether the frame carries an ECRC
   */
  public static void seal(ByteBuf buf, int offset, CRC32C crc, boolean digest) {
    if (digest) {
      buf.setByte(offset + FLAGS_OFFSET, FLAG_DIGEST);
      buf.setInt(offset + ECRC_OFFSET, compute(buf, offset, crc));
    } else {
      buf.setByte(offset + FLAGS_OFFSET, 0);
      buf.setInt(offset + ECRC_OFFSET, 0);
    }
  }

  /**
   * @param buf a frame
   * @param offset where the header starts
   * @param crc a reusable CRC object
   * @return the ECRC the frame should carry
   */
  public static int compute(ByteBuf buf, int offset, CRC32C crc) {
    crc.reset();
    update(crc, buf, offset, ECRC_OFFSET);
    update(crc, buf, offset + HEADER_LENGTH, length(buf, offset));
    return (int) crc.getValue();
  }

  private static void update(CRC32C crc, ByteBuf buf, int index, int len) {
    if (len == 0) {
      return;
    }
    if (buf.nioBufferCount() == 1) {
      ByteBuffer nio = buf.internalNioBuffer(index, len);
      crc.update(nio);
    } else {
      for (ByteBuffer b : buf.nioBuffers(index, len)) {
        crc.update(b);
      }
    }
  }

  /**
   * Checks a received frame and says why it is malformed.
   *
   * @param buf the frame payload
   * @param offset where the header starts
   * @param readable bytes of the frame
   * @param crc a reusable CRC object
   * @return null if well formed, else the reason
   */
  public static String check(ByteBuf buf, int offset, int readable, CRC32C crc) {
    if (readable < HEADER_LENGTH) {
      return "truncated";
    }
    if (buf.getUnsignedByte(offset + VERSION_OFFSET) != VERSION) {
      return "bad_version";
    }
    if (buf.getUnsignedByte(offset + TYPE_OFFSET) != TYPE_MEMORY_WRITE) {
      return "bad_type";
    }
    int flags = buf.getUnsignedByte(offset + FLAGS_OFFSET);
    if ((flags & ~FLAG_DIGEST) != 0) {
      return "bad_flags";
    }
    long len = buf.getUnsignedInt(offset + LENGTH_OFFSET);
    if (len != readable - HEADER_LENGTH) {
      return "bad_length";
    }
    if (flags == FLAG_DIGEST && buf.getInt(offset + ECRC_OFFSET) != compute(buf, offset, crc)) {
      return "ecrc";
    }
    return null;
  }

  /**
   * @param buf a frame
   * @param offset header offset
   * @return the requester node
   */
  public static int requester(ByteBuf buf, int offset) {
    return buf.getUnsignedShort(offset + REQUESTER_OFFSET);
  }

  /**
   * @param buf a frame
   * @param offset header offset
   * @return the destination global address
   */
  public static long address(ByteBuf buf, int offset) {
    return buf.getLong(offset + ADDRESS_OFFSET);
  }

  /**
   * @param buf a frame
   * @param offset header offset
   * @return the data length
   */
  public static int length(ByteBuf buf, int offset) {
    return buf.getInt(offset + LENGTH_OFFSET);
  }

  /**
   * TLPs a burst of {@code bytes} needs at a max payload of {@code maxPayload}.
   *
   * @param bytes data bytes
   * @param maxPayload TLP max payload
   * @return TLP count (at least 1)
   */
  public static long tlpCount(long bytes, int maxPayload) {
    return Math.max(1, (bytes + maxPayload - 1) / maxPayload);
  }
}
