package io.github.verbs4j.fabric.netty;

import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.FabricMetrics;
import io.github.verbs4j.fabric.FrameHeader;
import io.github.verbs4j.fabric.time.LinkModel;
import io.github.verbs4j.fabric.topo.Route;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.EventLoop;
import io.netty.util.internal.PlatformDependent;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * How a netty node's frames get onto its connections. A frame sent on the node's event loop with
 * nothing queued is modelled, encoded and written at once, and flushed with the others of the loop's
 * pass (a DMA chain's TLP frames leave in one system call). A frame sent from any other
 * thread waits here, unencoded, in a bounded lock-free queue; the event loop drains it, encodes and
 * writes every frame and flushes each connection once per drain. So the link model, the pooled
 * frame buffers and Netty's write path all run on the event loop (Netty 4.2 recycles its buffer and
 * task objects only on its own threads), a streaming sender costs one flush per batch instead of one
 * per frame, and frames from one thread stay in send order.
 *
 * <p>Back-pressure: a connection is unwritable while Netty's own pending bytes or this queue's
 * bytes or frames for it pass their high-water marks (the queue sets a user-defined writability bit
 * of the channel); past the hard limits frames are dropped ({@link DropReason#BACKPRESSURE}).
 */
final class Outbox {
  /** Frames the queue holds, for all connections. */
  static final int CAPACITY = 16384;
  /** Payloads up to this size are copied behind their header; larger ones are written after it. */
  private static final int COPY_LIMIT = 8192;
  /**
   * A node sends a receipt ({@link FrameHeader#TYPE_RECEIPT}) on its connection to a peer once it
   * has decoded this many bytes from that peer since its last receipt: at the end of each read, or
   * during a long one at most every {@link #RECEIPT_INTERVAL_NANOS}.
   */
  static final int RECEIPT_BYTES = 64 << 10;
  /** Least time between two receipts to one peer in the middle of a read. */
  static final long RECEIPT_INTERVAL_NANOS = 1_000_000;
  /** Bytes written to a connection without a flush after which it is flushed at once ({@link #owe}). */
  static final int PASS_FLUSH_BYTES = 64 << 10;
  /** The user-defined writability bit this queue clears when it holds too much for a connection. */
  private static final int WRITABILITY_BIT = 1;

  /** A frame waiting in the queue; reused. */
  private static final class Outgoing {
    Peer via;
    Route route;
    int done;
    int tag;
    int flags;
    ByteBuf payload;
    long sendTime;
    long delay;
    long bytes;
    long time; // the frame's time after the hops modelled here, when modelled at send; else -1
  }

  private volatile boolean modelAtSend;
  private final EventLoop loop;
  private final FabricMetrics metrics;
  private final BooleanSupplier open;
  private final boolean wallDelays; // the delay fault holds frames in wall time (wall clocks)
  private final int highWater;
  private final long maxPending;
  private final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
  private final Queue<Outgoing> queue = PlatformDependent.newFixedMpscQueue(CAPACITY);
  private final Queue<Outgoing> spare = PlatformDependent.newFixedMpmcQueue(CAPACITY);
  private final AtomicInteger drainScheduled = new AtomicInteger();
  private final Runnable drainTask = this::drain;
  // Set by attach before the first frame.
  private LinkModel model;
  private int self;
  private Peer[] touched = new Peer[0]; // event loop only: connections owed a flush
  private int owedCount; // event loop only
  private boolean flushScheduled; // event loop only: flushTask queued (Netty's own loop)
  private final Runnable flushTask = this::flushOwed;
  private final boolean flushAtPassEnd; // the loop flushes at the end of each pass
  private int frameHighWater = CAPACITY / 2; // frames per connection that make it unwritable

  /**
   * @param loop the node's event loop
   * @param metrics where frames and drops are counted
   * @param open whether the node is still open
   * @param wallDelays whether the delay fault holds frames in wall time
   * @param highWater pending bytes per connection above which it is unwritable
   * @param maxPending pending bytes per connection beyond which frames are dropped
   */
  Outbox(EventLoop loop, FabricMetrics metrics, BooleanSupplier open, boolean wallDelays, int highWater, long maxPending) {
    this.loop = loop;
    this.metrics = metrics;
    this.open = open;
    this.wallDelays = wallDelays;
    this.highWater = highWater;
    this.maxPending = maxPending;
    if (loop instanceof SharedIoEventLoop shared) {
      shared.atPassEnd(this::flushOwed);
      this.flushAtPassEnd = true;
    } else {
      this.flushAtPassEnd = false;
    }
  }

  /**
   * @param model the link model frames are modelled with
   * @param self this node's id
   * @param ranks the number of ranks
   */
  /** Models a frame's hops when it is sent, not when the loop drains it (modelled-time steps). */
  void modelAtSend() {
    this.modelAtSend = true;
  }

  void attach(LinkModel model, int self, int ranks) {
    this.model = model;
    this.self = self;
    this.touched = new Peer[ranks + 1];
    // Senders that respect isWritable never fill the shared queue, whatever the peer count.
    this.frameHighWater = Math.max(16, CAPACITY / (2 * ranks));
  }

  /**
   * Any thread.
   *
   * @param via a connected process
   * @return bytes of frames to it still in this queue, or written and not yet decoded by it: in
   *     Netty's outbound buffer (and TLS's), in the kernels' socket buffers, waiting for the
   *     peer's decryption or decoder. What the peer decoded is known from its receipts, which come
   *     for every {@link #RECEIPT_BYTES} it decodes: a smaller remainder counts only while it is
   *     still in Netty's outbound buffer.
   */
  long unsent(Peer via) {
    Channel ch = via.channel;
    ChannelOutboundBuffer ob = ch == null ? null : ch.unsafe().outboundBuffer();
    long pending = ob == null ? 0 : ob.totalPendingWriteBytes();
    long onTheWay = via.written - via.receipted;
    return via.queued.get() + (onTheWay >= RECEIPT_BYTES ? Math.max(onTheWay, pending) : pending);
  }

  /**
   * Any thread: one of this node's frames towards the process of {@code via}, hops {@code
   * 0..done-1} of its route to be modelled here. Takes ownership of {@code payload}.
   *
   * @return false if it was dropped at once
   */
  boolean send(Peer via, Route route, int done, int tag, int flags, ByteBuf payload, long sendTime, long delay) {
    // Modelled-time steps: the hops are modelled now, in the sender's order, not when the loop drains.
    long time = modelAtSend ? model.advance(route, 0, done, sendTime + delay, payload.readableBytes()) : -1;
    if (loop.inEventLoop() && queue.isEmpty()) {
      return writeOwn(via, route, done, tag, flags, payload, sendTime, delay, time);
    }
    Channel ch = via.channel;
    if (ch == null || !via.up) {
      return drop(DropReason.NODE_DOWN, payload);
    }
    long bytes = FrameHeader.LENGTH + (long) payload.readableBytes();
    long q = via.queued.addAndGet(bytes);
    int frames = via.queuedFrames.incrementAndGet();
    ChannelOutboundBuffer ob = ch.unsafe().outboundBuffer();
    long pending = ob == null ? 0 : ob.totalPendingWriteBytes();
    Outgoing o;
    if (q + pending > maxPending || (o = takeSpare()) == null) {
      uncount(via, bytes);
      return drop(DropReason.BACKPRESSURE, payload);
    }
    o.via = via;
    o.route = route;
    o.done = done;
    o.tag = tag;
    o.flags = flags;
    o.payload = payload;
    o.sendTime = sendTime;
    o.delay = delay;
    o.bytes = bytes;
    o.time = time;
    if (!queue.offer(o)) {
      o.payload = null;
      spare.offer(o);
      uncount(via, bytes);
      return drop(DropReason.BACKPRESSURE, payload);
    }
    if (q >= highWater || frames >= frameHighWater) {
      updateWritability(via);
    }
    if (drainScheduled.compareAndSet(0, 1)) {
      loop.execute(drainTask);
    }
    return true;
  }

  /** @return whether no frame waits in the outbox (any thread) */
  boolean idle() {
    return queue.isEmpty();
  }

  /**
   * Event loop: passes on a transit frame (store and forward); the write releases it.
   *
   * @param via the process that models its next link, or its destination
   * @param frame the whole frame, header rewritten
   */
  void forward(Peer via, ByteBuf frame) {
    write(via, frame, 0, false, true);
  }

  /**
   * Any thread: sets the connection's writability bit from the queue's current content for it
   * (unwritable at the high-water marks, writable again below half of them). Under a lock, so the
   * bit always ends up matching the last evaluation whichever of the sender and the event loop gets
   * here last.
   *
   * <p>The event loop looks at {@link Peer#outboxUnwritable} without the lock, after each frame it
   * takes out. A sender that has just decided to set it may therefore have read the queue's content
   * before a drain emptied it, while that drain saw the flag still clear and did not come here: so
   * after setting it the sender looks once more, and clears it if the queue emptied meanwhile.
   * Without that second look the bit could stay set with nothing queued and no drain coming (seen
   * as a stream that waited for writability forever).
   */
  private void updateWritability(Peer via) {
    synchronized (via.outboxLock) {
      for (int look = 0; look < 2; look++) {
        long q = via.queued.get();
        int f = via.queuedFrames.get();
        boolean unwritable = via.outboxUnwritable ? q >= highWater / 2 || f >= frameHighWater / 2 : q >= highWater || f >= frameHighWater;
        if (unwritable == via.outboxUnwritable) {
          return;
        }
        Channel ch = via.channel;
        ChannelOutboundBuffer ob = ch == null ? null : ch.unsafe().outboundBuffer();
        if (ob == null) {
          return;
        }
        via.outboxUnwritable = unwritable;
        ob.setUserDefinedWritability(WRITABILITY_BIT, !unwritable);
        if (!unwritable) {
          return;
        }
      }
    }
  }

  /** Takes back the count of a frame the queue refused; the drain that would have re-evaluated the bit may be over. */
  private void uncount(Peer via, long bytes) {
    via.queued.addAndGet(-bytes);
    via.queuedFrames.decrementAndGet();
    if (via.outboxUnwritable) {
      updateWritability(via);
    }
  }

  private Outgoing takeSpare() {
    Outgoing o = spare.poll();
    return o != null ? o : new Outgoing();
  }

  /** Event loop: encode and write everything queued, then flush each connection once. */
  private void drain() {
    drainScheduled.set(0); // before polling: a frame offered from now on schedules another drain
    Outgoing o;
    int n = 0;
    while (n < CAPACITY && (o = queue.poll()) != null) {
      n++;
      Peer via = o.via;
      ByteBuf payload = o.payload;
      long bytes = o.bytes;
      Route route = o.route;
      int done = o.done;
      int tag = o.tag;
      int flags = o.flags;
      long sendTime = o.sendTime;
      long delay = o.delay;
      long time = o.time;
      o.via = null;
      o.route = null;
      o.payload = null;
      spare.offer(o);
      long q = via.queued.addAndGet(-bytes);
      int frames = via.queuedFrames.decrementAndGet();
      if (!open.getAsBoolean()) {
        drop(DropReason.CLOSED, payload);
        continue;
      }
      writeOwn(via, route, done, tag, flags, payload, sendTime, delay, time);
      if (via.outboxUnwritable && q < highWater / 2 && frames < frameHighWater / 2) {
        updateWritability(via);
      }
    }
    flushOwed();
    if (!queue.isEmpty() && drainScheduled.compareAndSet(0, 1)) {
      loop.execute(drainTask);
    }
  }

  /**
   * Models hops {@code 0..done-1} of a frame and builds it: a data frame if that is the whole
   * route, else a transit frame for the next link's process. Takes ownership of {@code payload}.
   */
  private ByteBuf encode(Route route, int done, int tag, int flags, ByteBuf payload, long sendTime, long delay,
      long modelled) {
    int len = payload.readableBytes();
    // A delayed frame enters its first link late (the delay fault holds it at the sender).
    long time = modelled >= 0 ? modelled : model.advance(route, 0, done, sendTime + delay, len);
    int type = done == route.hops() ? FrameHeader.TYPE_DATA : FrameHeader.TYPE_TRANSIT;
    if (len <= COPY_LIMIT) {
      ByteBuf b = alloc.directBuffer(FrameHeader.LENGTH + len);
      FrameHeader.write(b, type, flags, done, self, route.dst(), tag, len, sendTime, time);
      b.writeBytes(payload, payload.readerIndex(), len);
      payload.release();
      return b;
    }
    ByteBuf h = alloc.directBuffer(FrameHeader.LENGTH);
    FrameHeader.write(h, type, flags, done, self, route.dst(), tag, len, sendTime, time);
    CompositeByteBuf c = alloc.compositeDirectBuffer(2);
    c.addComponents(true, h, payload);
    return c;
  }

  /**
   * Event loop: models, encodes and writes one of this node's frames. A payload above the copy
   * limit is written as a second message behind its header (Netty gathers them into one write
   * system call), which needs no composite buffer; that is safe only here, where no other thread
   * writes to the connection between the two.
   *
   * @return false if it was dropped
   */
  private boolean writeOwn(Peer via, Route route, int done, int tag, int flags, ByteBuf payload, long sendTime,
      long delay, long modelled) {
    int len = payload.readableBytes();
    if (len <= COPY_LIMIT || (delay > 0 && wallDelays)) {
      return write(via, encode(route, done, tag, flags, payload, sendTime, delay, modelled), delay, true, false);
    }
    Channel ch = via.channel;
    if (ch == null || !via.up) {
      return drop(DropReason.NODE_DOWN, payload);
    }
    if (!ch.isWritable() && ch.bytesBeforeWritable() + highWater / 2 > maxPending) {
      return drop(DropReason.BACKPRESSURE, payload);
    }
    long time = modelled >= 0 ? modelled : model.advance(route, 0, done, sendTime + delay, len);
    ByteBuf h = alloc.directBuffer(FrameHeader.LENGTH);
    FrameHeader.write(h, done == route.hops() ? FrameHeader.TYPE_DATA : FrameHeader.TYPE_TRANSIT, flags, done, self,
        route.dst(), tag, len, sendTime, time);
    metrics.sent(len);
    ch.write(h, ch.voidPromise());
    ch.write(payload, ch.voidPromise());
    owe(via, FrameHeader.LENGTH + len);
    return true;
  }

  /**
   * Writes a whole frame: one of this node's ({@code own}: counted as sent) or one passing through
   * (counted as forwarded).
   *
   * @param flush whether to flush now; else the flush is owed ({@link #flushOwed})
   * @return false if it was dropped
   */
  private boolean write(Peer via, ByteBuf frame, long delay, boolean own, boolean flush) {
    Channel ch = via.channel;
    if (ch == null || !via.up) {
      return dropFrame(DropReason.NODE_DOWN, frame);
    }
    if (!ch.isWritable() && ch.bytesBeforeWritable() + highWater / 2 > maxPending) {
      return dropFrame(DropReason.BACKPRESSURE, frame);
    }
    if (own) {
      metrics.sent(frame.readableBytes() - FrameHeader.LENGTH);
    } else {
      metrics.forwarded();
    }
    if (delay > 0 && wallDelays) {
      loop.schedule(() -> ch.writeAndFlush(frame, ch.voidPromise()), delay, TimeUnit.NANOSECONDS);
      return true; // written and flushed later, by the scheduled task
    }
    if (flush) {
      ch.writeAndFlush(frame, ch.voidPromise());
    } else {
      int bytes = frame.readableBytes();
      ch.write(frame, ch.voidPromise());
      owe(via, bytes);
    }
    return true;
  }

  /**
   * Event loop: a frame was written to {@code via}'s connection without a flush. The flush comes
   * at the end of the loop's pass ({@link SharedIoEventLoop#atPassEnd}), or from a task after the
   * I/O Netty's own loop is handling: so the frames of one pass (a DMA chain's TLPs and the
   * write-backs of a tca proxy's duty cycle, an engine's packets) leave in one system call. Once
   * {@link #PASS_FLUSH_BYTES} are owed to a connection it is flushed at once: a pass that sends a
   * large message streams it, so the peer need not wait for the pass's end to start reading.
   */
  private void owe(Peer via, int bytes) {
    via.owedBytes += bytes;
    if (via.owedBytes >= PASS_FLUSH_BYTES) {
      via.owedBytes = 0;
      Channel ch = via.channel;
      if (ch != null) {
        ch.flush(); // still in the owed list if it was: one more flush there costs nothing
      }
      return;
    }
    if (via.needsFlush) {
      return;
    }
    via.needsFlush = true;
    touched[owedCount++] = via;
    if (!flushAtPassEnd && !flushScheduled) {
      flushScheduled = true;
      loop.execute(flushTask);
    }
  }

  /** Event loop: flushes every connection written to without a flush since the last time. */
  void flushOwed() {
    flushScheduled = false;
    Peer[] t = touched;
    for (int i = 0; i < owedCount; i++) {
      Peer via = t[i];
      t[i] = null;
      via.needsFlush = false;
      via.owedBytes = 0;
      Channel ch = via.channel;
      if (ch != null) {
        ch.flush();
      }
    }
    owedCount = 0;
  }

  private boolean drop(DropReason r, ByteBuf payload) {
    metrics.drop(r, payload.readableBytes());
    payload.release();
    return false;
  }

  private boolean dropFrame(DropReason r, ByteBuf frame) {
    metrics.drop(r, frame.readableBytes() - FrameHeader.LENGTH);
    frame.release();
    return false;
  }

  /** After the event loop stopped: drops what is still queued. */
  void close() {
    Outgoing o;
    while ((o = queue.poll()) != null) {
      drop(DropReason.CLOSED, o.payload);
      o.payload = null;
    }
  }
}
