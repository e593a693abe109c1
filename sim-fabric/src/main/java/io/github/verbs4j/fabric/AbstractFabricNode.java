package io.github.verbs4j.fabric;

import io.github.verbs4j.fabric.fault.FaultAction;
import io.github.verbs4j.fabric.fault.FaultInjector;
import io.github.verbs4j.fabric.fault.NodeLinkState;
import io.github.verbs4j.fabric.time.FabricScheduler;
import io.github.verbs4j.fabric.time.FabricTimer;
import io.github.verbs4j.fabric.time.LinkModel;
import io.github.verbs4j.fabric.time.ModelledTimers;
import io.github.verbs4j.fabric.time.NodeClock;
import io.github.verbs4j.fabric.topo.Route;
import io.github.verbs4j.fabric.topo.Topology;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The frame pipeline of every transport, written once; a transport adds only how a frame crosses
 * to its destination ({@link #doTransmit}) and calls {@link #deliver} for each frame it receives —
 * the split of Netty's {@code AbstractChannel} (write, flush and their checks shared) and {@code
 * doWrite} (the transport's own part).
 *
 * <pre>
 * send(dst, tag, flags, payload)                     receive (transport: queue, socket)
 *   checks: open, flags, node known and up,             |
 *           MTU, route's links up                     receivedOverDownLink(frame)  (netty: a link
 *                                                       this process took down drops inbound too)
 *                                                     deliver(payload)   header already filled
 *   fault stage: down, drop, corrupt (a copy),          timers due before the arrival fire,
 *           delay, duplicate, reorder (hold)            the modelled clock moves to it,
 *   transmit -&gt; doTransmit(...)  (transport)           metrics, the receiver, timers now due
 *   release a frame held for the same destination
 * </pre>
 *
 * <p>Besides the pipeline it holds what both transports keep alike: identity, clock, fault
 * injector, the receiver and the peer and writability listeners, the node's own links ({@link
 * #links()}) and the open/closed state. The
 * data path never throws: every frame refused is counted by {@link DropReason} and its payload
 * released. Nothing here allocates per frame unless a fault is injected.
 *
 * @param <D> the transport's handle on a destination node (its queue, its connection)
 */
public abstract class AbstractFabricNode<D> implements FabricNode {
  /** The node's options. */
  protected final FabricOptions options;
  /** The node's (netty) or fabric's (local) meters. */
  protected final FabricMetrics metrics;
  /** The node's clock. */
  protected final NodeClock clock;
  /** Faults applied to the frames this node sends. */
  protected final FaultInjector faults;
  /** The header of the frame being delivered: fabric thread only, filled by the transport. */
  protected final FrameHeader header = new FrameHeader();

  private final Logger log = LoggerFactory.getLogger(getClass());
  private final int mtu;
  private final CopyOnWriteArrayList<PeerListener> peerListeners = new CopyOnWriteArrayList<>();
  private final CopyOnWriteArrayList<WritabilityListener> writabilityListeners = new CopyOnWriteArrayList<>();
  // Reorder fault: at most one frame held back per destination, until the next frame to it has
  // been transmitted or the reorder window ends. Guarded by itself; heldCount is the fast check.
  private final IntObjectHashMap<Held<D>> held = new IntObjectHashMap<>();
  private volatile int heldCount;
  private ModelledTimers timers; // modelled clock on an event loop, else null; set before use
  private Topology topology; // set by attach, before the node is handed out
  private LinkModel model;
  private NodeLinkState links; // set by attach
  private volatile int nodeId;
  private volatile FrameReceiver receiver;
  /** Frames the receiver rejected ({@link #reject}); written and read on the fabric thread. */
  private long rejects;
  private volatile boolean open = true;

  /**
   * @param options the node's options
   * @param metrics where frames and drops are counted
   * @param faults the fault injector of this node's outgoing frames
   */
  protected AbstractFabricNode(FabricOptions options, FabricMetrics metrics, FaultInjector faults) {
    this.options = options;
    this.metrics = metrics;
    this.faults = faults;
    this.clock = options.modelledTime() ? NodeClock.modelled() : NodeClock.wall();
    this.mtu = options.mtu();
  }

  /**
   * Sets what the node learns when it joins: its id, the topology and the link model, and starts
   * watching its own links. Called once, before any frame is sent, after {@link #scheduler()} is
   * set.
   *
   * @param nodeId this node's id
   * @param topology the topology
   * @param model the link model
   * @param nodes how many nodes are present (the links at this node are those among them)
   */
  protected final void attach(int nodeId, Topology topology, LinkModel model, int nodes) {
    this.topology = topology;
    this.model = model;
    this.nodeId = nodeId;
    this.links = new NodeLinkState(faults, topology, nodeId, nodes, scheduler()::execute);
  }

  /** @param timers the node's modelled timers (a modelled clock on an event loop), set once at construction */
  protected final void useTimers(ModelledTimers timers) {
    this.timers = timers;
  }

  /**
   * @return the earliest modelled deadline of the node's timers (cancelled ones may count until
   *     purged), or {@link Long#MAX_VALUE} if none or the node has no modelled timers
   */
  protected final long nextTimerDeadline() {
    ModelledTimers t = timers;
    return t == null ? Long.MAX_VALUE : t.nextDeadline();
  }

  /**
   * @param dstNode a node id
   * @return the transport's handle on that node, or null if there is no such node
   */
  protected abstract D destination(int dstNode);

  /**
   * @param d a destination
   * @return false if it is known to be down (frames to it are dropped as {@code node_down})
   */
  protected abstract boolean isUp(D d);

  /**
   * The transport's part of sending: carries one frame that passed the checks and the fault stage
   * towards {@code d}, modelling the route's links. Takes ownership of {@code payload} in every
   * case; counts the frame as sent, or as dropped with its reason.
   *
   * @param d the destination
   * @param route the route
   * @param tag the provider's tag
   * @param flags the header flags
   * @param payload the payload
   * @param sendTime the sender's clock at send
   * @param delay the delay fault's extra time, ns (0 if none)
   * @return false if the frame was dropped at once
   */
  protected abstract boolean doTransmit(D d, Route route, int tag, int flags, ByteBuf payload, long sendTime, long delay);

  /**
   * Schedules the end of a reorder fault's window. By default a task on the node's scheduler (in
   * modelled time when the clock is modelled); a transport may use wall time instead.
   *
   * @param nanos the window
   * @param release what to run when it ends
   */
  protected void scheduleReorderRelease(long nanos, Runnable release) {
    scheduler().schedule(nanos, release);
  }

  /**
   * Told when the reorder fault starts or stops holding a frame (a transport that counts frames in
   * flight counts held ones too).
   *
   * @param delta +1 or -1
   */
  protected void holding(int delta) {}

  @Override
  public final boolean send(int dstNode, int tag, int flags, ByteBuf payload) {
    return send(dstNode, tag, flags, payload, Long.MIN_VALUE);
  }

  @Override
  public final boolean send(int dstNode, int tag, int flags, ByteBuf payload, long sendTimeNanos) {
    if (!open) {
      return drop(DropReason.CLOSED, payload);
    }
    if ((flags & ~FrameHeader.FLAGS_DEFINED) != 0) {
      return drop(DropReason.BAD_FLAGS, payload);
    }
    if (timers != null) {
      clock.touch(); // activity the timers' watch sees
      timers.poke(); // a charge on this thread may have passed a timer's deadline
    }
    D d = destination(dstNode);
    if (d == null) {
      return drop(DropReason.UNKNOWN_NODE, payload);
    }
    if (!isUp(d)) {
      return drop(DropReason.NODE_DOWN, payload);
    }
    int src = nodeId;
    Route route = topology.route(src, dstNode);
    int len = payload.readableBytes();
    if (len > mtu || len > model.mtu(route)) {
      return drop(DropReason.MTU, payload);
    }
    if (faults.routeDown(route)) {
      return drop(DropReason.LINK_DOWN, payload);
    }
    long now = sendTimeNanos == Long.MIN_VALUE || !clock.isModelled() ? clock.nowNanos() : sendTimeNanos;
    int mask = faults.decide(src, dstNode);
    if (mask != 0) {
      return faultStage(d, dstNode, route, tag, flags, payload, mask, now);
    }
    return transmit(d, dstNode, route, tag, flags, payload, now, 0);
  }

  /** The injected faults of one frame, in a fixed order; the frame goes on unless one ends it. */
  private boolean faultStage(D d, int dst, Route route, int tag, int flags, ByteBuf payload, int mask, long now) {
    if ((mask & FaultAction.DOWN.bit()) != 0) {
      return drop(DropReason.LINK_DOWN, payload);
    }
    if ((mask & FaultAction.DROP.bit()) != 0) {
      drop(DropReason.FAULT_DROP, payload);
      return true; // a lossy wire reports success
    }
    if ((mask & FaultAction.CORRUPT.bit()) != 0) {
      if ((flags & FrameHeader.FLAG_UNCHECKED) != 0) {
        drop(DropReason.UNCHECKED_CORRUPT, payload); // nobody would notice the flipped bit
        return true;
      }
      // Copy first: the payload may share memory with the provider's registered buffers.
      ByteBuf copy = alloc().directBuffer(payload.readableBytes()).writeBytes(payload);
      payload.release();
      payload = copy;
      faults.corrupt(nodeId, dst, payload);
    }
    long delay = (mask & FaultAction.DELAY.bit()) != 0 ? faults.delayNanos(nodeId, dst) : 0;
    if ((mask & FaultAction.DUPLICATE.bit()) != 0) {
      int n = payload.readableBytes();
      ByteBuf dup = alloc().directBuffer(n).writeBytes(payload, payload.readerIndex(), n);
      transmit(d, dst, route, tag, flags, dup, now, delay);
    }
    if ((mask & FaultAction.REORDER.bit()) != 0 && hold(d, dst, route, tag, flags, payload, now, delay)) {
      return true;
    }
    return transmit(d, dst, route, tag, flags, payload, now, delay);
  }

  /** Transmits a frame, then one the reorder fault held back for the same destination. */
  private boolean transmit(D d, int dst, Route route, int tag, int flags, ByteBuf payload, long sendTime, long delay) {
    boolean ok = doTransmit(d, route, tag, flags, payload, sendTime, delay);
    if (heldCount != 0) {
      Held<D> h;
      synchronized (held) {
        h = held.remove(dst);
        if (h != null) {
          heldCount--;
        }
      }
      if (h != null) {
        holding(-1);
        transmitHeld(h);
      }
    }
    return ok;
  }

  /** A frame the reorder fault holds back; one per hold, so its identity names it. */
  private static final class Held<D> {
    final D d;
    final Route route;
    final int tag;
    final int flags;
    final ByteBuf payload;
    final long sendTime;
    final long delay;

    Held(D d, Route route, int tag, int flags, ByteBuf payload, long sendTime, long delay) {
      this.d = d;
      this.route = route;
      this.tag = tag;
      this.flags = flags;
      this.payload = payload;
      this.sendTime = sendTime;
      this.delay = delay;
    }
  }

  /** @return true if the frame is now held (none was held for {@code dst}) */
  private boolean hold(D d, int dst, Route route, int tag, int flags, ByteBuf payload, long sendTime, long delay) {
    Held<D> h = new Held<>(d, route, tag, flags, payload, sendTime, delay);
    synchronized (held) {
      if (held.containsKey(dst)) {
        return false;
      }
      held.put(dst, h);
      heldCount++;
      holding(1);
    }
    scheduleReorderRelease(faults.reorderWindowNanos(), () -> releaseHeld(dst, h));
    return true;
  }

  /** The reorder window of {@code expected} ended: transmit it if it is still held. */
  private void releaseHeld(int dst, Held<D> expected) {
    synchronized (held) {
      if (held.get(dst) != expected) {
        return;
      }
      held.remove(dst);
      heldCount--;
    }
    holding(-1);
    transmitHeld(expected);
  }

  private void transmitHeld(Held<D> h) {
    if (!isUp(h.d)) {
      drop(DropReason.NODE_DOWN, h.payload);
      return;
    }
    doTransmit(h.d, h.route, h.tag, h.flags, h.payload, h.sendTime, h.delay);
  }

  /**
   * Drops the frame held back for a destination (it went down).
   *
   * @param dst the destination
   * @param reason why
   */
  protected final void dropHeld(int dst, DropReason reason) {
    Held<D> h;
    synchronized (held) {
      h = held.remove(dst);
      if (h == null) {
        return;
      }
      heldCount--;
    }
    holding(-1);
    drop(reason, h.payload);
  }

  /**
   * Counts a frame the node refuses and releases its payload.
   *
   * @param reason why
   * @param payload the payload
   * @return false, for {@code return drop(...)}
   */
  protected final boolean drop(DropReason reason, ByteBuf payload) {
    metrics.drop(reason, payload.readableBytes());
    payload.release();
    return false;
  }

  /**
   * The receive side of a link fault, for a transport whose fault injector belongs to this process
   * alone (netty): a topology link this process took down drops the frames it receives over it
   * too, so that a node whose own links are down is cut off in both directions. The transport has
   * filled {@link #header}; the frame is counted as {@code link_down} and released if so.
   *
   * @param frame the received frame, header and all (released if dropped)
   * @return true if it was dropped
   */
  protected final boolean receivedOverDownLink(ByteBuf frame) {
    if (!faults.anyLinkDown()) {
      return false;
    }
    int src = header.src();
    int dst = header.dst();
    int max = topology.maxNodes();
    if (src >= 1 && src <= max && dst >= 1 && dst <= max && faults.routeDown(topology.route(src, dst))) {
      metrics.drop(DropReason.LINK_DOWN, header.length()); // the payload's bytes, as every drop counts
      frame.release();
      return true;
    }
    return false;
  }

  /**
   * Delivers a received frame on the fabric thread: fires the modelled timers due before its
   * arrival, moves the clock to it, counts it and hands it to the receiver, which owns the payload
   * from then on. The transport has filled {@link #header}.
   *
   * @param payload the payload (ownership passes)
   */
  protected final void deliver(ByteBuf payload) {
    deliver(header, payload);
  }

  /**
   * Delivers a received frame whose header is {@code header} (a frame the transport held back,
   * with a copy of its header): see {@link #deliver(ByteBuf)}.
   *
   * @param header the frame's header
   * @param payload the payload (ownership passes)
   */
  protected final void deliver(FrameHeader header, ByteBuf payload) {
    FrameReceiver r = receiver;
    if (!open || r == null) {
      drop(open ? DropReason.NO_RECEIVER : DropReason.CLOSED, payload);
      return;
    }
    if (clock.isModelled()) {
      clock.touch();
      long arrival = header.arrivalTimeNanos();
      if (timers != null && timers.dueBy(arrival)) {
        // Timers due before this frame arrives fire first, as in modelled-time order. They do not
        // touch the header: only the transport's receive path fills it.
        timers.runUntil(arrival);
      }
      clock.advanceTo(arrival);
    }
    metrics.received(header.length());
    try {
      r.onFrame(header, payload);
    } catch (RuntimeException | Error e) {
      metrics.drop(DropReason.RECEIVER_ERROR, header.length());
      log.warn("node {}: receiver threw on frame from node {}", nodeId, header.src(), e);
    }
    if (timers != null) {
      timers.runDue(); // the receiver may have charged the clock past a deadline
    }
  }

  /**
   * Runs a scheduler task on the fabric thread unless the node is closed, logging what it throws.
   *
   * @param task the task
   */
  protected final void runTask(Runnable task) {
    if (!open) {
      return;
    }
    try {
      task.run();
    } catch (RuntimeException | Error e) {
      log.warn("node {}: fabric task threw", nodeId, e);
    }
  }

  /**
   * A scheduler on an event loop that is this node's fabric thread: tasks run there through
   * {@link #runTask}; timers count in modelled time through the node's modelled timers when it has
   * them, else in wall time. A closed node runs no more tasks and fires no timers.
   *
   * @param loop the node's event loop
   * @return the scheduler
   */
  protected final FabricScheduler loopScheduler(EventExecutor loop) {
    return new LoopScheduler(loop);
  }

  private final class LoopScheduler implements FabricScheduler {
    private final EventExecutor loop;

    LoopScheduler(EventExecutor loop) {
      this.loop = loop;
    }

    @Override
    public FabricTimer schedule(long delayNanos, Runnable task) {
      if (delayNanos < 0) {
        throw new IllegalArgumentException("schedule delayNanos=" + delayNanos + " must not be negative");
      }
      if (timers != null) {
        return timers.schedule(delayNanos, task);
      }
      try {
        ScheduledFuture<?> f = loop.schedule(() -> runTask(task), delayNanos, TimeUnit.NANOSECONDS);
        return () -> f.cancel(false);
      } catch (RejectedExecutionException closing) {
        return () -> false;
      }
    }

    @Override
    public void execute(Runnable task) {
      if (loop.isShuttingDown()) {
        return;
      }
      try {
        loop.execute(() -> {
          runTask(task);
          if (timers != null) {
            timers.runDue(); // the task may have charged the clock past a deadline
          }
        });
      } catch (RejectedExecutionException closing) {
        // The node closed between the check and the hand-off: it runs no more tasks.
      }
    }

    @Override
    public boolean inFabricThread() {
      return loop.inEventLoop();
    }
  }

  /** @return true if a peer listener is registered */
  protected final boolean hasPeerListeners() {
    return !peerListeners.isEmpty();
  }

  /** @return true if a writability listener is registered */
  protected final boolean hasWritabilityListeners() {
    return !writabilityListeners.isEmpty();
  }

  /**
   * Tells the peer listeners, now, on this (fabric) thread.
   *
   * @param peer the node that came up or went down
   * @param up which
   */
  protected final void notifyPeer(int peer, boolean up) {
    for (PeerListener l : peerListeners) {
      try {
        if (up) {
          l.onPeerUp(peer);
        } else {
          l.onPeerDown(peer);
        }
      } catch (RuntimeException e) {
        log.warn("node {}: peer listener threw", nodeId, e);
      }
    }
  }

  /**
   * Tells the writability listeners, now, on this (fabric) thread.
   *
   * @param dst the destination
   * @param writable its new state
   */
  protected final void notifyWritability(int dst, boolean writable) {
    for (WritabilityListener l : writabilityListeners) {
      try {
        l.onWritabilityChanged(dst, writable);
      } catch (RuntimeException e) {
        log.warn("node {}: writability listener threw", nodeId, e);
      }
    }
  }

  /**
   * Marks the node closed (once) and drops the frames the reorder fault holds.
   *
   * @return false if it was closed already (the caller does nothing more)
   */
  protected final boolean markClosed() {
    synchronized (this) {
      if (!open) {
        return false;
      }
      open = false;
    }
    if (links != null) {
      links.close();
    }
    int[] dsts;
    synchronized (held) {
      dsts = new int[held.size()];
      int i = 0;
      for (int k : held.keySet()) {
        dsts[i++] = k;
      }
    }
    for (int dst : dsts) {
      dropHeld(dst, DropReason.CLOSED);
    }
    return true;
  }

  @Override
  public final int nodeId() {
    return nodeId;
  }

  @Override
  public final Topology topology() {
    return topology;
  }

  /** @return the link model */
  protected final LinkModel model() {
    return model;
  }

  @Override
  public final NodeClock clock() {
    return clock;
  }

  @Override
  public final ByteBufAllocator alloc() {
    return PooledByteBufAllocator.DEFAULT;
  }

  @Override
  public final int mtu() {
    return mtu;
  }

  @Override
  public final boolean mayCorrupt() {
    return faults.mayCorrupt();
  }

  @Override
  public final boolean mayLose() {
    return faults.active();
  }

  @Override
  public final FabricMetrics metrics() {
    return metrics;
  }

  @Override
  public final FabricOptions options() {
    return options;
  }

  @Override
  public final boolean isOpen() {
    return open;
  }

  @Override
  public final void setReceiver(FrameReceiver receiver) {
    this.receiver = receiver;
  }

  @Override
  public final void reject(ByteBuf payload) {
    metrics.drop(DropReason.MALFORMED, payload.readableBytes());
    payload.release();
    rejects++;
  }

  /** @return frames the receiver rejected so far ({@link #reject}); on the fabric thread */
  protected final long rejects() {
    return rejects;
  }

  @Override
  public final void addPeerListener(PeerListener listener) {
    peerListeners.add(listener);
  }

  @Override
  public final void removePeerListener(PeerListener listener) {
    peerListeners.remove(listener);
  }

  @Override
  public final NodeLinks links() {
    NodeLinkState l = links;
    if (l == null) {
      throw new FabricException("links: node is not started");
    }
    return l;
  }

  @Override
  public final void addWritabilityListener(WritabilityListener listener) {
    writabilityListeners.add(listener);
  }

  @Override
  public final void removeWritabilityListener(WritabilityListener listener) {
    writabilityListeners.remove(listener);
  }
}
