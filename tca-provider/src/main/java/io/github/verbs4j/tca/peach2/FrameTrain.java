package io.github.verbs4j.tca.peach2;

import io.github.verbs4j.tca.peach2.Peach2Counters.Link;
import io.netty.buffer.ByteBuf;

/**
 * Where a {@link PcieLink}'s frames leave for the fabric: at once, or — while the board has a batch
 * open ({@link DataLinkLayer#beginBatch()}) — gathered into one fabric frame ({@link
 * LinkFrame#TYPE_TRAIN}) that leaves when the batch ends. Each fabric frame is a write (a syscall on
 * the netty fabric) and a wake-up at the receiver, whatever its size, so a DMA chain's packet and
 * send PSN, a write-back and the Acks of one proxy duty cycle cost one frame instead of one each.
 * The data link layer's work stays per link frame: sequence numbers, LCRCs and the replay buffer
 * were assigned before a frame gets here, and the receiver takes a train's records one by one.
 *
 * <p>A single frame leaves as it is (no copy); from the second on, the frames are copied into one
 * buffer. Frames longer than {@link #MAX_RECORD} travel alone (copying them would cost more than
 * the frame saves), a train holds at most {@link #MAX_TRAIN} bytes, and its TLPs are all checked
 * or all unchecked (the receiver checks a fabric frame's LCRCs all or none). Frames leave in the
 * order they were put either way. Used under the link's monitor, except {@link #held()}.
 */
final class FrameTrain {
  /** Longest frame that joins a train. */
  static final int MAX_RECORD = 4096;
  /** Longest train. */
  static final int MAX_TRAIN = 16 * 1024;
  private static final int MAX_COUNT = 0xFFFF;

  private final DataLinkLayer dll;
  private final Peach2Counters counters;
  private final int node;
  private final int hops;
  /** The only frame held (not copied), or null. */
  private ByteBuf first;
  /** Two or more frames, copied; or null. */
  private ByteBuf train;
  private int count;
  /** Whether the TLP frames held were sent unchecked (all alike), or null if none is held. */
  private Boolean tlpsUnchecked;
  /** Whether frames are held (read without the monitor by the batch's end). */
  private volatile boolean held;

  FrameTrain(DataLinkLayer dll, int node, int hops) {
    this.dll = dll;
    this.counters = dll.counters;
    this.node = node;
    this.hops = hops;
  }

  /** @return whether frames wait for the batch's end (a hint: read without the monitor) */
  boolean held() {
    return held;
  }

  /**
   * Sends a frame, or adds it to the train while the board has a batch open; what the train held
   * before a frame that does not join it leaves first. Ownership passes.
   *
   * @param frame a complete TLP or DLLP frame
   * @param unchecked whether it goes unchecked (no LCRC)
   * @param sendAt its modelled send time, or {@code Long.MIN_VALUE}
   */
  void put(ByteBuf frame, boolean unchecked, long sendAt) {
    if (!dll.batching()) {
      send(sendAt);
      transmit(frame, unchecked, isDllp(frame), sendAt);
      return;
    }
    if (!offer(frame, unchecked)) {
      send(sendAt);
      if (!offer(frame, unchecked)) {
        transmit(frame, unchecked, isDllp(frame), sendAt); // too long for a train
        return;
      }
    }
    held = true;
    if (!dll.batching()) {
      send(sendAt); // the last batch ended meanwhile, and its end may have missed this frame
    }
  }

  /**
   * Sends what is held: the single frame, or the train.
   *
   * @param sendAt the modelled send time, or {@code Long.MIN_VALUE}
   */
  void send(long sendAt) {
    held = false;
    if (count == 0) {
      return;
    }
    boolean unchecked = tlpsUnchecked != null && tlpsUnchecked; // a DLLP has its own CRC
    boolean dllps = tlpsUnchecked == null;
    ByteBuf out;
    if (train != null) {
      ByteBuf t = LinkFrame.raw(train);
      LinkFrame.trainCount(t, t.readerIndex(), count);
      counters.link(Link.TRAINS, 1);
      out = train;
    } else {
      out = first;
    }
    reset();
    transmit(out, unchecked, dllps, sendAt);
  }

  /** Lets go of what is held (the link went down or closed: the replay buffer has the TLPs). */
  void clear() {
    held = false;
    ByteBuf out = train != null ? train : first;
    reset();
    if (out != null) {
      out.release();
    }
  }

  private void reset() {
    first = null;
    train = null;
    count = 0;
    tlpsUnchecked = null;
  }

  private static boolean isDllp(ByteBuf frame) {
    ByteBuf f = LinkFrame.raw(frame);
    return LinkFrame.type(f, f.readerIndex()) == LinkFrame.TYPE_DLLP;
  }

  /** @return false if the frame does not join the train (nothing changed) */
  private boolean offer(ByteBuf frame, boolean frameUnchecked) {
    ByteBuf f = LinkFrame.raw(frame);
    int len = f.readableBytes();
    boolean tlp = LinkFrame.type(f, f.readerIndex()) == LinkFrame.TYPE_TLP;
    if (len > MAX_RECORD || tlp && tlpsUnchecked != null && tlpsUnchecked != frameUnchecked) {
      return false;
    }
    if (count == 0) {
      first = frame;
      tlpsUnchecked = tlp ? frameUnchecked : null;
      count = 1;
      return true;
    }
    int size = train != null ? LinkFrame.raw(train).readableBytes()
        : LinkFrame.TRAIN_HEADER + LinkFrame.RECORD_LENGTH + LinkFrame.raw(first).readableBytes();
    if (size + LinkFrame.RECORD_LENGTH + len > MAX_TRAIN || count == MAX_COUNT) {
      return false;
    }
    if (train == null) {
      train = dll.link.alloc().directBuffer(Math.min(MAX_TRAIN, Math.max(1024, 2 * (size + len))), MAX_TRAIN);
      LinkFrame.writeTrainHeader(LinkFrame.raw(train));
      append(first);
      first = null;
    }
    append(frame);
    if (tlp) {
      tlpsUnchecked = frameUnchecked;
    }
    count++;
    return true;
  }

  /** Copies a frame behind the others, after its length, and releases it. */
  private void append(ByteBuf frame) {
    ByteBuf f = LinkFrame.raw(frame);
    ByteBuf t = LinkFrame.raw(train);
    int len = f.readableBytes();
    t.ensureWritable(LinkFrame.RECORD_LENGTH + len);
    t.writeInt(len);
    t.writeBytes(f, f.readerIndex(), len);
    frame.release();
  }

  /** Hands a fabric frame to the link and counts it (read before: the fabric may release it). */
  private void transmit(ByteBuf frame, boolean unchecked, boolean dllpsOnly, long sendAt) {
    int bytes = LinkFrame.raw(frame).readableBytes();
    if (dll.link.transmit(node, frame, unchecked, sendAt)) {
      counters.frameSent(bytes, hops);
      if (dllpsOnly) {
        counters.link(Link.DLLP_FRAMES, 1);
      }
    } else {
      counters.drop("link_refused"); // lost like a frame the wire dropped: the replay recovers it
    }
  }
}
