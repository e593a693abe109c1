package io.github.verbs4j.tca.peach2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.WrappedByteBuf;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;

/**
 * A fabric frame as the PEACH2 data link layer ({@link DataLinkLayer}) sends it: a burst of
 * memory-write TLPs ({@link Peach2Tlp}) framed by the sequence number and LCRC that PCIe's data link
 * layer adds (the "sequence 2, LCRC 4" of seed 001 §4.1.1's 3.66 GB/s), optionally followed by an
 * Ack/Nak DLLP that shares the frame; or a DLLP alone. Big-endian, as PCIe.
 *
 * <pre>
 *  TLP frame (type 1)
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------+---------------+-------+-----------------------+
 * |    version    |   type = 1    | rsvd  | TLP sequence number   |  0
 * +---------------+---------------+-------+-----------------------+
 * |     Peach2Tlp: 24-byte header, then its data (length bytes)   |  4
 * |                              ...                              |
 * +---------------------------------------------------------------+
 * |         LCRC: CRC-32 over the sequence number and the TLP     |  28 + length
 * +---------------------------------------------------------------+
 * |  optional Ack/Nak DLLP (Peach2Dllp, 6 bytes)                  |  32 + length
 * +---------------------------------------------------------------+
 *
 *  DLLP frame (type 2)
 * +---------------+---------------+-------------------------------+
 * |    version    |   type = 2    |  Peach2Dllp (6 bytes) ...     |  0
 * +---------------+---------------+-------------------------------+
 * </pre>
 *
 * <ul>
 *   <li>version: {@link #VERSION}; type: {@link #TYPE_TLP} or {@link #TYPE_DLLP}.
 *   <li>TLP sequence number: the 12-bit sequence number of the burst's first TLP; a burst of
 *       {@code n} TLPs ({@link Peach2Tlp#tlpCount}) uses {@code n} consecutive numbers, as the TLPs
 *       would on the wire.
 *   <li>LCRC: java.util.zip.CRC32 (the CRC-32 polynomial PCIe's LCRC uses) over bytes 2 to 28 +
 *       length. A frame sent with the fabric's header flag {@code FLAG_UNCHECKED} (sent while fault injection could not
 *       corrupt frames, which the fabric then never does) carries 0 and is not checked.
 *   <li>DLLP: present when the frame is exactly {@link #DLLP_TRAILER} bytes longer than the TLP;
 *       a replayed frame never carries one (its acknowledgement would be stale).
 * </ul>
 */
public final class LinkFrame {
  /** The only version this code speaks. */
  public static final int VERSION = 1;
  /** A TLP burst, perhaps followed by a DLLP. */
  public static final int TYPE_TLP = 1;
  /** A DLLP alone. */
  public static final int TYPE_DLLP = 2;
  /** Offset of the version byte. */
  public static final int VERSION_OFFSET = 0;
  /** Offset of the type byte. */
  public static final int TYPE_OFFSET = 1;
  /** Offset of the 16-bit word holding the sequence number (and of what the LCRC covers). */
  public static final int SEQ_OFFSET = 2;
  /** Offset of the TLP (type 1) or the DLLP (type 2). */
  public static final int BODY_OFFSET = 4;
  /** Bytes of the LCRC. */
  public static final int LCRC_LENGTH = 4;
  /** Bytes of the trailing DLLP. */
  public static final int DLLP_TRAILER = Peach2Dllp.LENGTH;
  /** Bytes the link layer adds to a TLP: header and LCRC. */
  public static final int TLP_OVERHEAD = BODY_OFFSET + LCRC_LENGTH;
  /** Bytes of a DLLP frame. */
  public static final int DLLP_FRAME_LENGTH = 2 + Peach2Dllp.LENGTH;
  private static final int SEQ_MASK = DataLinkParams.SEQ_MODULUS - 1;

  private LinkFrame() {}

  /**
   * The buffer a leak detector's wrapper holds (Netty's {@code WrappedByteBuf}), else {@code buf}:
   * same memory and indices, for reading and writing a frame's fields. A wrapper at Netty's {@code
   * paranoid} level records a stack trace on every access, which cost several times the link
   * layer's own work per frame; ownership (retain, release, duplicates) stays with {@code buf}, so
   * every frame is still tracked.
   *
   * @param buf a frame
   * @return the buffer to access its fields through
   */
  public static ByteBuf raw(ByteBuf buf) {
    return buf instanceof WrappedByteBuf w ? w.unwrap() : buf;
  }

  /**
   * @param dataBytes data bytes of the TLP burst
   * @return the capacity a frame buffer needs (header, TLP, LCRC and a trailing DLLP)
   */
  public static int capacity(int dataBytes) {
    return TLP_OVERHEAD + Peach2Tlp.HEADER_LENGTH + dataBytes + DLLP_TRAILER;
  }

  /**
   * Writes the version, the type and the sequence number of a TLP frame at {@code offset}.
   *
   * @param buf the frame
   * @param offset where the frame starts
   * @param seq the first TLP's sequence number
   */
  public static void writeTlpHeader(ByteBuf buf, int offset, int seq) {
    buf.setByte(offset + VERSION_OFFSET, VERSION);
    buf.setByte(offset + TYPE_OFFSET, TYPE_TLP);
    buf.setShort(offset + SEQ_OFFSET, seq & SEQ_MASK);
  }

  /**
   * Writes an Ack or Nak DLLP frame at the writer index and advances it.
   *
   * @param buf a buffer with {@link #DLLP_FRAME_LENGTH} writable bytes
   * @param type {@link Peach2Dllp#ACK} or {@link Peach2Dllp#NAK}
   * @param seq the AckNak_Seq_Num
   */
  public static void writeDllpFrame(ByteBuf buf, int type, int seq) {
    int w = dllpFrameHeader(buf);
    Peach2Dllp.write(buf, w + SEQ_OFFSET, type, seq);
    buf.writerIndex(w + DLLP_FRAME_LENGTH);
  }

  /**
   * Writes an InitFC1 or InitFC2 DLLP frame at the writer index and advances it.
   *
   * @param buf a buffer with {@link #DLLP_FRAME_LENGTH} writable bytes
   * @param type {@link Peach2Dllp#INIT1} or {@link Peach2Dllp#INIT2}
   * @param epoch the sender's link epoch
   * @param seen the receiver's epoch the sender has seen
   */
  public static void writeInitFrame(ByteBuf buf, int type, int epoch, int seen) {
    int w = dllpFrameHeader(buf);
    Peach2Dllp.writeInit(buf, w + SEQ_OFFSET, type, epoch, seen);
    buf.writerIndex(w + DLLP_FRAME_LENGTH);
  }

  private static int dllpFrameHeader(ByteBuf buf) {
    int w = buf.writerIndex();
    buf.ensureWritable(DLLP_FRAME_LENGTH);
    buf.setByte(w + VERSION_OFFSET, VERSION);
    buf.setByte(w + TYPE_OFFSET, TYPE_DLLP);
    return w;
  }

  /** @return where the DLLP of a type-2 frame starts, relative to the frame */
  public static int dllpOffset() {
    return SEQ_OFFSET;
  }

  /**
   * @param buf a frame
   * @param offset where it starts
   * @return its version byte
   */
  public static int version(ByteBuf buf, int offset) {
    return buf.getUnsignedByte(offset + VERSION_OFFSET);
  }

  /**
   * @param buf a frame
   * @param offset where it starts
   * @return its type byte
   */
  public static int type(ByteBuf buf, int offset) {
    return buf.getUnsignedByte(offset + TYPE_OFFSET);
  }

  /**
   * @param buf a TLP frame
   * @param offset where it starts
   * @return the first TLP's sequence number
   */
  public static int seq(ByteBuf buf, int offset) {
    return buf.getUnsignedShort(offset + SEQ_OFFSET) & SEQ_MASK;
  }

  /**
   * @param buf a TLP frame
   * @param offset where it starts
   * @param readable bytes of the frame
   * @return where its LCRC starts (relative to {@code offset}), or -1 if the frame is shorter than
   *     its TLP header says or is neither exactly the TLP nor the TLP and one DLLP
   */
  public static int lcrcOffset(ByteBuf buf, int offset, int readable) {
    if (readable < TLP_OVERHEAD + Peach2Tlp.HEADER_LENGTH) {
      return -1;
    }
    long len = buf.getUnsignedInt(offset + BODY_OFFSET + Peach2Tlp.LENGTH_OFFSET);
    long end = BODY_OFFSET + Peach2Tlp.HEADER_LENGTH + len;
    long rest = readable - end - LCRC_LENGTH;
    return rest == 0 || rest == DLLP_TRAILER ? (int) end : -1;
  }

  /**
   * Computes the LCRC of a TLP frame whose LCRC starts at {@code lcrcAt}.
   *
   * @param buf the frame
   * @param offset where it starts
   * @param lcrcAt where its LCRC starts, relative to {@code offset}
   * @param crc a reusable CRC-32
   * @return the LCRC
   */
  public static int lcrc(ByteBuf buf, int offset, int lcrcAt, CRC32 crc) {
    crc.reset();
    int from = offset + SEQ_OFFSET;
    int len = offset + lcrcAt - from;
    if (buf.nioBufferCount() == 1) {
      crc.update(buf.internalNioBuffer(from, len));
    } else {
      for (ByteBuffer b : buf.nioBuffers(from, len)) {
        crc.update(b);
      }
    }
    return (int) crc.getValue();
  }
}
