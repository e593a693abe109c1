package io.github.verbs4j.ib;

import io.github.verbs4j.fabric.CallerProgress;
import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FrameHeader;
import io.github.verbs4j.fabric.FrameReceiver;
import io.github.verbs4j.fabric.InboundShares;
import io.github.verbs4j.fabric.PeerListener;
import io.github.verbs4j.fabric.WritabilityListener;
import io.github.verbs4j.fabric.time.FabricTimer;
import io.github.verbs4j.fabric.time.NodeClock;
import io.github.verbs4j.ib.engine.IbParams;
import io.github.verbs4j.ib.engine.PacketPort;
import io.github.verbs4j.ib.wire.Bth;
import io.github.verbs4j.ib.wire.Icrc;
import io.github.verbs4j.ib.wire.Lrh;
import io.github.verbs4j.ib.wire.Opcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * The HCA's port on a sim-fabric node: LID = node id, one packet per frame (tag {@link #TAG}),
 * the node's clock and scheduler, and the node's receiver, peer and writability upcalls forwarded
 * to the device. Works the same over the local (threaded or deterministic) and netty fabrics.
 *
 * <p>A frame that holds a packet sent without an ICRC ({@link Lrh#NO_ICRC}) carries the header flag
 * {@link FrameHeader#FLAG_UNCHECKED}: fault injection loses it rather than corrupt bytes no one
 * checks. The tag stays the provider's own.
 *
 * <p>A received frame passes cheap checks on arrival, before it is queued for the engine ({@link
 * #wellFormed}); one that fails is dropped whole and counted in the fabric's {@code
 * verbs4j.fabric.drops{reason=malformed}}, so a peer's garbage costs no engine queue slot. The
 * ICRC, where packets carry one, is still checked by the engine. A well-formed frame then takes a
 * slot of its source's share of the engine's inbound queue ({@link InboundShares}), given back when
 * the engine takes the frame ({@link #taken}); a source whose share is used up has its frame dropped
 * as {@code source_share}, so one peer sending faster than the engine receives cannot starve the
 * others.
 *
 * <p>Buffer ownership: {@link #transmit} hands the packet to {@link FabricNode#send}, which owns it
 * from then on; a received frame's payload is handed to the device, which releases it.
 */
public final class FabricPacketPort implements PacketPort, FrameReceiver, PeerListener, WritabilityListener {
  /** The frame tag of HCA packets (virtual lane 0, IBA local). */
  public static final int TAG = 0x1B00;

  /** Most packets in one train (one fabric frame) unless the constructor says otherwise. */
  public static final int DEFAULT_TRAIN_PACKETS = 256;

  /**
   * Most bytes in one train. Netty's pooled allocator (4 MiB chunks) destroys a chunk that
   * becomes empty after holding a buffer of 1 MiB or more, so allocating and releasing one train
   * buffer of 1 MiB cost 90-130 µs on this VM against 0.5 µs at 768 KiB, which doubled the
   * latency of 4 KiB messages (each one a train of one packet in a train-sized buffer).
   */
  static final int MAX_TRAIN_BYTES = 768 * 1024;

  /**
   * The smallest train buffer. A train's buffer is sized from the last train to the same LID
   * (twice its bytes, at least this, at most the train capacity): a duty cycle that sends one 4 KiB
   * packet (a post that runs the engine inline sends each message as it is posted) must not take a
   * 768 KiB buffer — a stream of them kept the pooled allocator creating and zeroing chunks.
   */
  static final int MIN_TRAIN_BYTES = 8 * 1024;

  private final FabricNode node;
  private final CallerProgress callerProgress; // null: the node's own thread makes its progress
  private final NodeClock clock;
  // modelled, under the engine's lock like every transmit: when the HCA's requester and responder
  // send engines are free, and the departure of the packet charged last (it is transmitted next)
  private long requestsFree;
  private long answersFree;
  private long charged = Long.MIN_VALUE;
  private final InboundShares shares;
  private volatile Receiver receiver;
  // Packet trains (engine duty cycle only): the packets a cycle sends to one LID leave as one
  // fabric frame, so a 1 MiB message is a few frames instead of 256.
  private volatile Thread batchThread;
  private final int maxTrain;
  private final ByteBuf[] trains;
  private final int[] trainPackets; // packets in trains[lid]
  private final boolean[] built; // trains[lid] is a buffer this port allocated (else one packet as sent)
  private final int[] lastTrainBytes; // bytes of the last built train to each LID (sizes the next)
  private final boolean[] unchecked; // trains[lid] holds a packet without ICRC
  private final int[] roomAt; // where the packet built in place in trains[lid] starts
  private final int trainCapacity;
  private final int maxTrainPackets;
  private final boolean[] inTouched;
  private final int[] touched;
  private int touchedCount;

  /** @param node the fabric node (owned by the caller, closed by it) */
  public FabricPacketPort(FabricNode node) {
    this(node, DEFAULT_TRAIN_PACKETS);
  }

  /**
   * @param node the fabric node (owned by the caller, closed by it)
   * @param maxTrainPackets most packets one train (fabric frame) carries; the fabric MTU bounds a
   *     train's bytes as well
   */
  public FabricPacketPort(FabricNode node, int maxTrainPackets) {
    this(node, maxTrainPackets, IbParams.defaults().inboundQueue);
  }

  /**
   * @param node the fabric node (owned by the caller, closed by it)
   * @param maxTrainPackets most packets one train (fabric frame) carries; the fabric MTU bounds a
   *     train's bytes as well
   * @param inboundQueue the capacity of the engine's inbound queue, which the port divides into
   *     each source's share
   */
  public FabricPacketPort(FabricNode node, int maxTrainPackets, int inboundQueue) {
    if (maxTrainPackets < 1) {
      throw new IllegalArgumentException("maxTrainPackets must be at least 1, got " + maxTrainPackets);
    }
    this.node = node;
    this.callerProgress = node.callerProgress().orElse(null);
    this.clock = node.clock();
    this.maxTrainPackets = maxTrainPackets;
    this.shares = new InboundShares(Math.max(2, inboundQueue), node.size());
    this.maxTrain = node.mtu();
    this.trains = new ByteBuf[node.size() + 1];
    this.trainPackets = new int[trains.length];
    this.built = new boolean[trains.length];
    this.lastTrainBytes = new int[trains.length];
    this.unchecked = new boolean[trains.length];
    this.roomAt = new int[trains.length];
    this.trainCapacity = (int) Math.min(Math.min(maxTrain, MAX_TRAIN_BYTES), this.maxTrainPackets * (4096L + 128));
    this.inTouched = new boolean[trains.length];
    this.touched = new int[trains.length];
  }

  /** @return the fabric node */
  public FabricNode node() {
    return node;
  }

  @Override
  public int localLid() {
    return node.nodeId();
  }

  @Override
  public boolean mayCorrupt() {
    return node.mayCorrupt();
  }

  @Override
  public boolean mayLose() {
    return node.mayLose();
  }

  @Override
  public ByteBufAllocator alloc() {
    return node.alloc();
  }

  @Override
  public boolean transmit(int dlid, ByteBuf packet) {
    if (Thread.currentThread() != batchThread || dlid <= 0 || dlid >= trains.length) {
      return node.send(dlid, TAG, Lrh.noIcrc(packet, packet.readerIndex()) ? FrameHeader.FLAG_UNCHECKED : 0, packet,
          departure());
    }
    ByteBuf held = trains[dlid];
    if (packet == held) {
      unchecked[dlid] |= Lrh.noIcrc(held, roomAt[dlid]);
      countPacket(dlid); // built in place (trainRoom)
      return true;
    }
    int len = packet.readableBytes();
    if (held == null || noRoom(dlid, held, len)) {
      if (held != null) {
        flush(dlid);
      }
      trains[dlid] = packet;
      trainPackets[dlid] = 1;
      unchecked[dlid] = Lrh.noIcrc(packet, packet.readerIndex());
      if (maxTrainPackets == 1) {
        flush(dlid); // leaves at once, at the time it was built
        return true;
      }
      touch(dlid);
      return true;
    }
    unchecked[dlid] |= Lrh.noIcrc(packet, packet.readerIndex());
    ByteBuf train = built[dlid] ? held : startTrain(dlid, held, len);
    train.writeBytes(packet, packet.readerIndex(), len);
    packet.release();
    countPacket(dlid);
    return true;
  }

  @Override
  public ByteBuf trainRoom(int dlid, int length) {
    if (Thread.currentThread() != batchThread || dlid <= 0 || dlid >= trains.length || length > trainCapacity) {
      return null;
    }
    ByteBuf held = trains[dlid];
    if (held != null && noRoom(dlid, held, length)) {
      flush(dlid);
      held = null;
    }
    ByteBuf room;
    if (held == null) {
      touch(dlid);
      unchecked[dlid] = false;
      room = startTrain(dlid, null, length);
    } else {
      room = built[dlid] ? held : startTrain(dlid, held, length);
    }
    roomAt[dlid] = room.writerIndex();
    return room;
  }

  /**
   * @return whether {@code len} more bytes do not fit the train {@code held} to {@code dlid}: past
   *     the train capacity, or past its buffer (sized from the last train, {@link #trainBytes})
   */
  private boolean noRoom(int dlid, ByteBuf held, int len) {
    return held.readableBytes() + len > trainCapacity || (built[dlid] && held.writableBytes() < len);
  }

  /**
   * One buffer per train: a packet held as sent is copied in and goes back to the device's pool at
   * once, and the socket gets one buffer instead of a gather list of up to 64.
   */
  private ByteBuf startTrain(int dlid, ByteBuf first, int next) {
    int need = (first == null ? 0 : first.readableBytes()) + next;
    ByteBuf train = node.alloc().directBuffer(trainBytes(need, lastTrainBytes[dlid]));
    if (first != null) {
      train.writeBytes(first, first.readerIndex(), first.readableBytes());
      first.release();
    } else {
      trainPackets[dlid] = 0;
    }
    trains[dlid] = train;
    built[dlid] = true;
    return train;
  }

  /**
   * @param need bytes the train must hold at once
   * @param last bytes of the last train to the same LID
   * @return the capacity of a new train buffer: a power of two of at least twice {@code last} and
   *     at least {@code need}, between {@link #MIN_TRAIN_BYTES} and the train capacity
   */
  int trainBytes(int need, int last) {
    long want = Math.max((long) need, Math.max(MIN_TRAIN_BYTES, 2L * last));
    long pow = Long.highestOneBit(want - 1) << 1;
    return (int) Math.max(need, Math.min(pow, trainCapacity));
  }

  private void countPacket(int dlid) {
    if (++trainPackets[dlid] >= maxTrainPackets) {
      flush(dlid);
    }
  }

  private void touch(int dlid) {
    if (!inTouched[dlid]) {
      inTouched[dlid] = true;
      touched[touchedCount++] = dlid;
    }
  }

  @Override
  public int progress(IntSupplier work) {
    return callerProgress != null ? callerProgress.progress(work) : work.getAsInt();
  }

  @Override
  public int progress(IntSupplier work, boolean pollWire) {
    return callerProgress != null ? callerProgress.progress(work, pollWire) : work.getAsInt();
  }

  @Override
  public boolean awaitWire(IntSupplier work, BooleanSupplier ready, long timeoutNanos) {
    return callerProgress != null && callerProgress.awaitIo(work, ready, timeoutNanos);
  }

  @Override
  public void wakeAwaiting() {
    if (callerProgress != null) {
      callerProgress.wakeAwaiting();
    }
  }

  @Override
  public void yieldProgress() {
    if (callerProgress != null) {
      callerProgress.yieldProgress();
    }
  }

  @Override
  public boolean onCallersIdle(Runnable task) {
    if (callerProgress == null) {
      return false;
    }
    callerProgress.onCallersIdle(task);
    return true;
  }

  @Override
  public void beginBatch() {
    batchThread = Thread.currentThread();
  }

  @Override
  public void endBatch() {
    batchThread = null;
    flushTouched();
  }

  private void flushTouched() {
    for (int i = 0; i < touchedCount; i++) {
      inTouched[touched[i]] = false;
      flush(touched[i]);
    }
    touchedCount = 0;
  }

  private void flush(int dlid) {
    ByteBuf held = trains[dlid];
    if (held != null) {
      trains[dlid] = null;
      trainPackets[dlid] = 0;
      if (built[dlid] && held.isReadable()) {
        lastTrainBytes[dlid] = held.readableBytes();
      }
      built[dlid] = false;
      if (held.isReadable()) {
        node.send(dlid, TAG, unchecked[dlid] ? FrameHeader.FLAG_UNCHECKED : 0, held, departure());
      } else {
        held.release(); // room was asked for, nothing was sent in it
      }
    }
  }

  @Override
  public boolean isWritable(int dlid) {
    return node.isWritable(dlid);
  }

  @Override
  public void receiverCaughtUp() {
    node.receiverCaughtUp();
  }

  @Override
  public boolean receiveDrained() {
    return node.receiveDrained();
  }

  @Override
  public long peerReadMark(int dlid) {
    return node.peerReadMark(dlid);
  }

  @Override
  public long peerCaughtUpNanos(int dlid) {
    return node.peerCaughtUpNanos(dlid);
  }

  @Override
  public long peerTimeoutNanos() {
    return node.peerTimeoutNanos();
  }

  @Override
  public long unsentBytes(int dlid) {
    return node.unsentBytes(dlid);
  }

  @Override
  public long nowNanos() {
    return clock.nowNanos();
  }

  @Override
  public boolean modelledTime() {
    return clock.isModelled();
  }

  @Override
  public void charge(long nanos) {
    clock.charge(nanos);
  }

  @Override
  public long chargeTransmit(long nanos, long readyAt, boolean answer) {
    if (!clock.isModelled()) {
      return 0;
    }
    long ready = readyAt == Long.MIN_VALUE ? clock.nowNanos() : readyAt;
    if (answer) {
      charged = answersFree = Math.max(ready, answersFree) + nanos;
    } else {
      charged = requestsFree = Math.max(ready, requestsFree) + nanos;
    }
    clock.touch();
    return charged;
  }

  /** @return when a packet sent now leaves: the send pipeline's time, or "now" on a wall clock */
  private long departure() {
    if (!clock.isModelled()) {
      return Long.MIN_VALUE;
    }
    long t = charged == Long.MIN_VALUE ? clock.nowNanos() : charged;
    charged = Long.MIN_VALUE;
    return t;
  }

  @Override
  public void advanceTo(long t) {
    if (touchedCount > 0 && batchThread == Thread.currentThread() && t > clock.nowNanos()) {
      flushTouched(); // what the cycle built so far leaves at the time it was built
    }
    clock.advanceTo(t);
  }

  @Override
  public void busyProbe(java.util.function.BooleanSupplier busy) {
    clock.busyProbe(busy);
  }

  @Override
  public Timer schedule(long delayNanos, Runnable task) {
    // On a modelled clock the fabric fires a timer only once the clock has reached its deadline
    // (it moves the clock there itself when the timer is the next event), never by wall time.
    FabricTimer t = node.scheduler().schedule(delayNanos, task);
    return t::cancel;
  }

  @Override
  public void bind(Receiver r) {
    this.receiver = r;
    node.setReceiver(this);
    node.addPeerListener(this);
    node.addWritabilityListener(this);
  }

  @Override
  public void onFrame(FrameHeader header, ByteBuf payload) {
    Receiver r = receiver;
    if (r == null) {
      payload.release();
      return;
    }
    int src = header.src();
    if (!wellFormed(payload, src, node.nodeId())) {
      node.reject(payload);
      return;
    }
    if (!shares.admit(src)) {
      node.metrics().drop(DropReason.SOURCE_SHARE, payload.readableBytes());
      payload.release();
      return;
    }
    // One packet or a train of them: the device splits it, also a frame that spans read buffers.
    r.onPacket(src, payload, clock.isModelled() ? header.arrivalTimeNanos() : Long.MIN_VALUE);
  }

  /** Every frame handed to the engine passed {@link #wellFormed}: its first SLID is its source. */
  @Override
  public void taken(ByteBuf frame) {
    shares.taken(Lrh.slid(frame, frame.readerIndex()));
  }

  /** @return each source's share of the engine's inbound queue */
  public InboundShares shares() {
    return shares;
  }

  /**
   * The checks a frame passes on arrival: its packets tile it exactly (each LRH packet length a
   * multiple of 4, at least the smallest packet, within the frame); each LRH has link version 0,
   * next header IBA local, this port's LID as DLID and the frame's fabric source (the authenticated
   * peer) as SLID; each BTH has transport version 0, a known opcode, and a header, pad and payload
   * that fit the packet length as the opcode says. Two 8-byte reads per packet; no CRC.
   *
   * @param f the frame's payload (not consumed)
   * @param src the fabric's source node of the frame
   * @param lid this port's LID
   * @return true if well formed
   */
  static boolean wellFormed(ByteBuf f, int src, int lid) {
    int at = f.readerIndex();
    int end = f.writerIndex();
    if (at >= end) {
      return false;
    }
    while (at < end) {
      int len = Lrh.trainPacketBytes(f, at, end);
      if (len < 0 || (len & 3) != 0) {
        return false;
      }
      long lrh = Lrh.word(f, at);
      if (Lrh.lver(lrh) != Lrh.LVER || Lrh.lnh(lrh) != Lrh.LNH_IBA_LOCAL || Lrh.dlid(lrh) != lid || Lrh.slid(lrh) != src) {
        return false;
      }
      long bth = Bth.word(f, at + Lrh.LENGTH);
      Opcode op = Opcode.fromValue(Bth.opcode(bth));
      if (Bth.tver(bth) != Bth.TVER || op == null) {
        return false;
      }
      int pad = Bth.padCount(bth);
      int payload = len - op.headerLength() - pad - Icrc.LENGTH;
      if (payload < 0 || (payload > 0 && !op.is(Opcode.Flag.PAYLOAD)) || Bth.padFor(payload) != pad) {
        return false;
      }
      at += len;
    }
    return true;
  }

  @Override
  public void onPeerDown(int nodeId) {
    Receiver r = receiver;
    if (r != null) {
      r.onPeerDown(nodeId);
    }
  }

  @Override
  public void onWritabilityChanged(int dstNode, boolean writable) {
    Receiver r = receiver;
    if (writable && r != null) {
      r.onWritable(dstNode);
    }
  }

  @Override
  public void close() {
    receiver = null;
    node.removePeerListener(this);
    node.removeWritabilityListener(this);
    node.setReceiver(null);
  }
}
