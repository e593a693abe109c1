package io.github.verbs4j.fabric;

import io.netty.buffer.ByteBuf;

/**
 * The fabric frame header: wire layout (constants and static accessors over a buffer and offset)
 * and the decoded, reusable view handed to a {@link FrameReceiver}.
 *
 * <p>Every frame is this 32-byte header followed by {@link #length()} bytes of opaque payload. All
 * fields are big-endian (network byte order). The version byte comes first so a future layout can
 * be told apart.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------+---------------+---------------+---------------+
 * |    version    |     type      |     flags     |     hops      |  0
 * +---------------+---------------+---------------+---------------+
 * |          source node          |       destination node        |  4
 * +-------------------------------+-------------------------------+
 * |              tag              |           reserved            |  8
 * +-------------------------------+-------------------------------+
 * |                        payload length                         | 12
 * +---------------------------------------------------------------+
 * |                                                               | 16
 * +                  modelled send time (ns)                      +
 * |                                                               | 20
 * +---------------------------------------------------------------+
 * |                                                               | 24
 * +                 modelled arrival time (ns)                    +
 * |                                                               | 28
 * +---------------------------------------------------------------+
 * |                    payload (length bytes) ...                 | 32
 * </pre>
 *
 * <ul>
 *   <li>version: {@link #VERSION} (1).
 *   <li>type: {@link #TYPE_DATA} (1), a frame whose whole route has been modelled, on its way to
 *       its destination; or {@link #TYPE_TRANSIT} (2), a frame still crossing the modelled fabric
 *       (netty transport: it is on its way to the process that models its next link, which may be
 *       an intermediate node); or {@link #TYPE_DOORBELL} (3), no payload, a wake-up on a socket
 *       for a node whose shared-memory ring poller sleeps; or {@link #TYPE_RECEIPT} (4), no payload,
 *       the bytes the sender has taken off the receiver's connection to it so far (netty transport:
 *       how far the receiver's frames have got). Other values are rejected.
 *   <li>flags: bits the fabric and the provider both read. {@link #FLAG_UNCHECKED} (bit 0): the
 *       payload carries no integrity check of its own, so the fault injector loses such a frame
 *       instead of corrupting it. Other bits are reserved and must be 0.
 *   <li>hops: links traversed (0 for a node sending to itself); in a transit frame, the links
 *       modelled so far (the index of the next link of the route).
 *   <li>source/destination node: node ids (LIDs), 1..65535.
 *   <li>tag: 16 bits for the provider's own use (virtual lane, port, packet class), carried opaque:
 *       the fabric never reads it.
 *   <li>reserved: 0.
 *   <li>payload length: unsigned, at most the fabric MTU ({@code verbs.link.mtu}).
 *   <li>send time: the sender's clock ({@link io.github.verbs4j.fabric.time.NodeClock}) at send.
 *   <li>arrival time: send time + the link model's path cost (see {@link
 *       io.github.verbs4j.fabric.time.LinkModel}); in a transit frame, the modelled time the
 *       frame's head reaches its next link.
 * </ul>
 *
 * <p>A receiver only ever sees data frames: transit frames are finished (or forwarded) by the
 * fabric.
 *
 * <p>A {@code FrameHeader} instance is mutable and reused by the fabric thread that delivers frames;
 * a receiver must not keep it after {@link FrameReceiver#onFrame} returns. Not thread-safe.
 */
public final class FrameHeader {
  /** The only version this code speaks. */
  public static final int VERSION = 1;
  /** Frame type: a data frame carrying a provider payload. */
  public static final int TYPE_DATA = 1;
  /**
   * Frame type: a data frame whose route is not fully modelled yet; {@link #hops()} links are done
   * and the arrival field holds the head's time at the next link. Never handed to a receiver.
   */
  public static final int TYPE_TRANSIT = 2;
  /**
   * Frame type: a doorbell on a socket, no payload: the sender wrote into the receiver's
   * shared-memory ring while the receiver's poller slept ({@code fabric.shm}). Never handed to a
   * receiver, never in a ring.
   */
  public static final int TYPE_DOORBELL = 3;
  /**
   * Frame type: a receipt on a socket, no payload: the bytes of frames the sender has decoded off
   * its connection from the receiver, counted from that connection's start, in both time fields
   * (netty transport: so the receiver knows how much of what it wrote is still on its way). Never
   * handed to a receiver, never in a ring.
   */
  public static final int TYPE_RECEIPT = 4;

  /** Offset of the version byte. */
  public static final int VERSION_OFFSET = 0;
  /** Offset of the type byte. */
  public static final int TYPE_OFFSET = 1;
  /** Offset of the flags byte. */
  public static final int FLAGS_OFFSET = 2;
  /** Offset of the hop count byte. */
  public static final int HOPS_OFFSET = 3;
  /** Offset of the 16-bit source node id. */
  public static final int SRC_OFFSET = 4;
  /** Offset of the 16-bit destination node id. */
  public static final int DST_OFFSET = 6;
  /**
   * Flag a provider sets on a frame whose payload carries no integrity check of its own (no CRC it
   * verifies): when fault injection picks such a frame for corruption, the fabric drops it ({@link
   * DropReason#UNCHECKED_CORRUPT}) instead of delivering flipped bits nobody would detect.
   * Corruption is never silent; a provider that checks its payloads leaves the flag clear.
   */
  public static final int FLAG_UNCHECKED = 0x01;
  /** Every flag bit this version defines; a frame with another bit set is malformed. */
  public static final int FLAGS_DEFINED = FLAG_UNCHECKED;

  /** Offset of the 16-bit provider tag. */
  public static final int TAG_OFFSET = 8;
  /** Offset of the 16-bit reserved field. */
  public static final int RESERVED_OFFSET = 10;
  /** Offset of the 32-bit unsigned payload length. */
  public static final int LENGTH_OFFSET = 12;
  /** Offset of the 64-bit modelled send time. */
  public static final int SEND_TIME_OFFSET = 16;
  /** Offset of the 64-bit modelled arrival time. */
  public static final int ARRIVAL_TIME_OFFSET = 24;
  /** Header length in bytes; the payload starts here. */
  public static final int LENGTH = 32;
  /** Largest node id (16 bits). */
  public static final int MAX_NODE_ID = 0xFFFF;

  private int version;
  private int type;
  private int flags;
  private int hops;
  private int src;
  private int dst;
  private int tag;
  private int length;
  private long sendTimeNanos;
  private long arrivalTimeNanos;

  /** Creates an empty header (all zero). */
  public FrameHeader() {}

  /**
   * Writes a header at the buffer's writer index and advances it by {@link #LENGTH}.
   *
   * @param buf the buffer (must be writable for 32 bytes)
   * @param hops links traversed
   * @param src source node id
   * @param dst destination node id
   * @param tag provider tag (low 16 bits used)
   * @param length payload length
   * @param sendTime modelled send time
   * @param arrivalTime modelled arrival time
   */
  public static void write(
      ByteBuf buf, int hops, int src, int dst, int tag, int length, long sendTime, long arrivalTime) {
    write(buf, TYPE_DATA, 0, hops, src, dst, tag, length, sendTime, arrivalTime);
  }

  /**
   * Writes a header of the given type at the buffer's writer index and advances it by {@link
   * #LENGTH}.
   *
   * @param buf the buffer (must be writable for 32 bytes)
   * @param type {@link #TYPE_DATA} or {@link #TYPE_TRANSIT}
   * @param flags flag bits ({@link #FLAGS_DEFINED})
   * @param hops links traversed (transit: links modelled so far)
   * @param src source node id
   * @param dst destination node id
   * @param tag provider tag (low 16 bits used)
   * @param length payload length
   * @param sendTime modelled send time
   * @param arrivalTime modelled arrival time (transit: the head's time at the next link)
   */
  public static void write(ByteBuf buf, int type, int flags, int hops, int src, int dst, int tag, int length,
      long sendTime, long arrivalTime) {
    int w = buf.writerIndex();
    buf.ensureWritable(LENGTH);
    buf.setByte(w + VERSION_OFFSET, VERSION);
    buf.setByte(w + TYPE_OFFSET, type);
    buf.setByte(w + FLAGS_OFFSET, flags);
    buf.setByte(w + HOPS_OFFSET, hops);
    buf.setShort(w + SRC_OFFSET, src);
    buf.setShort(w + DST_OFFSET, dst);
    buf.setShort(w + TAG_OFFSET, tag);
    buf.setShort(w + RESERVED_OFFSET, 0);
    buf.setInt(w + LENGTH_OFFSET, length);
    buf.setLong(w + SEND_TIME_OFFSET, sendTime);
    buf.setLong(w + ARRIVAL_TIME_OFFSET, arrivalTime);
    buf.writerIndex(w + LENGTH);
  }

  /**
   * @param buf a buffer
   * @param offset where a header starts
   * @return the version byte
   */
  public static int version(ByteBuf buf, int offset) {
    return buf.getUnsignedByte(offset + VERSION_OFFSET);
  }

  /**
   * @param buf a buffer
   * @param offset where a header starts
   * @return the payload length (unsigned, as long)
   */
  public static long length(ByteBuf buf, int offset) {
    return buf.getUnsignedInt(offset + LENGTH_OFFSET);
  }

  /**
   * @param buf a buffer
   * @param offset where a header starts
   * @return the destination node id
   */
  public static int dst(ByteBuf buf, int offset) {
    return buf.getUnsignedShort(offset + DST_OFFSET);
  }

  /**
   * Rewrites a transit header in place as the frame moves on: its type, hops and time field.
   *
   * @param buf a buffer
   * @param offset where the header starts
   * @param type {@link #TYPE_DATA} or {@link #TYPE_TRANSIT}
   * @param hops links modelled so far
   * @param time arrival (data) or the head's time at the next link (transit)
   */
  public static void advance(ByteBuf buf, int offset, int type, int hops, long time) {
    buf.setByte(offset + TYPE_OFFSET, type);
    buf.setByte(offset + HOPS_OFFSET, hops);
    buf.setLong(offset + ARRIVAL_TIME_OFFSET, time);
  }

  /**
   * Checks a complete header (without the payload) and says why it is malformed.
   *
   * @param buf a buffer
   * @param offset where the header starts ({@link #LENGTH} bytes must be readable)
   * @param maxPayload largest acceptable payload length
   * @param localNode this node's id, or 0 to accept any destination (a transit frame may be for
   *     any node: an intermediate node forwards it)
   * @return null if well formed, else the reason
   */
  public static DropReason check(ByteBuf buf, int offset, int maxPayload, int localNode) {
    if (buf.getUnsignedByte(offset + VERSION_OFFSET) != VERSION) {
      return DropReason.BAD_VERSION;
    }
    int type = buf.getUnsignedByte(offset + TYPE_OFFSET);
    if (type != TYPE_DATA && type != TYPE_TRANSIT && type != TYPE_DOORBELL && type != TYPE_RECEIPT) {
      return DropReason.BAD_TYPE;
    }
    if ((type == TYPE_DOORBELL || type == TYPE_RECEIPT) && buf.getUnsignedInt(offset + LENGTH_OFFSET) != 0) {
      return DropReason.TOO_LONG;
    }
    if ((buf.getUnsignedByte(offset + FLAGS_OFFSET) & ~FLAGS_DEFINED) != 0 || buf.getUnsignedShort(offset + RESERVED_OFFSET) != 0) {
      return DropReason.BAD_FLAGS;
    }
    if (buf.getUnsignedInt(offset + LENGTH_OFFSET) > maxPayload) {
      return DropReason.TOO_LONG;
    }
    int s = buf.getUnsignedShort(offset + SRC_OFFSET);
    int d = buf.getUnsignedShort(offset + DST_OFFSET);
    if (s == 0 || d == 0) {
      return DropReason.BAD_NODE;
    }
    if (localNode != 0 && d != localNode && type == TYPE_DATA) {
      return DropReason.MISROUTED;
    }
    if (buf.getLong(offset + ARRIVAL_TIME_OFFSET) < buf.getLong(offset + SEND_TIME_OFFSET)) {
      return DropReason.BAD_TIME;
    }
    return null;
  }

  /**
   * Decodes the header at {@code offset} into this object.
   *
   * @param buf a buffer
   * @param offset where the header starts
   * @return this
   */
  public FrameHeader decode(ByteBuf buf, int offset) {
    version = buf.getUnsignedByte(offset + VERSION_OFFSET);
    type = buf.getUnsignedByte(offset + TYPE_OFFSET);
    flags = buf.getUnsignedByte(offset + FLAGS_OFFSET);
    hops = buf.getUnsignedByte(offset + HOPS_OFFSET);
    src = buf.getUnsignedShort(offset + SRC_OFFSET);
    dst = buf.getUnsignedShort(offset + DST_OFFSET);
    tag = buf.getUnsignedShort(offset + TAG_OFFSET);
    length = (int) buf.getUnsignedInt(offset + LENGTH_OFFSET);
    sendTimeNanos = buf.getLong(offset + SEND_TIME_OFFSET);
    arrivalTimeNanos = buf.getLong(offset + ARRIVAL_TIME_OFFSET);
    return this;
  }

  /**
   * Sets every field (used by the in-JVM fabric, which has no bytes to decode).
   *
   * @param flags flag bits
   * @param hops links traversed
   * @param src source node id
   * @param dst destination node id
   * @param tag provider tag
   * @param length payload length
   * @param sendTime modelled send time
   * @param arrivalTime modelled arrival time
   * @return this
   */
  public FrameHeader set(int flags, int hops, int src, int dst, int tag, int length, long sendTime, long arrivalTime) {
    this.version = VERSION;
    this.type = TYPE_DATA;
    this.flags = flags & 0xFF;
    this.hops = hops;
    this.src = src;
    this.dst = dst;
    this.tag = tag & 0xFFFF;
    this.length = length;
    this.sendTimeNanos = sendTime;
    this.arrivalTimeNanos = arrivalTime;
    return this;
  }

  /** @return the version byte */
  public int version() {
    return version;
  }

  /** @return the type byte */
  public int type() {
    return type;
  }

  /** @return the flag bits ({@link #FLAG_UNCHECKED}) */
  public int flags() {
    return flags;
  }

  /** @return links traversed */
  public int hops() {
    return hops;
  }

  /** @return the source node id */
  public int src() {
    return src;
  }

  /** @return the destination node id */
  public int dst() {
    return dst;
  }

  /** @return the provider's 16-bit tag */
  public int tag() {
    return tag;
  }

  /** @return the payload length in bytes */
  public int length() {
    return length;
  }

  /** @return the sender's clock at send, in nanoseconds */
  public long sendTimeNanos() {
    return sendTimeNanos;
  }

  /** @return the modelled arrival time, in nanoseconds */
  public long arrivalTimeNanos() {
    return arrivalTimeNanos;
  }

  @Override
  public String toString() {
    return "FrameHeader{v=" + version + ", type=" + type + ", flags=" + flags + ", hops=" + hops + ", src=" + src + ", dst=" + dst
        + ", tag=" + tag + ", length=" + length + ", send=" + sendTimeNanos + ", arrival=" + arrivalTimeNanos + "}";
  }
}
