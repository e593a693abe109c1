package io.github.verbs4j.fabric.local;

import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.FabricException;
import io.github.verbs4j.fabric.FabricMetrics;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.FabricTimeoutException;
import io.github.verbs4j.fabric.FrameHeader;
import io.github.verbs4j.fabric.FrameReceiver;
import io.github.verbs4j.fabric.NodeDirectory;
import io.github.verbs4j.fabric.NodeLinks;
import io.github.verbs4j.fabric.PeerListener;
import io.github.verbs4j.fabric.WritabilityListener;
import io.github.verbs4j.fabric.fault.FaultAction;
import io.github.verbs4j.fabric.fault.NodeLinkState;
import io.github.verbs4j.fabric.time.FabricScheduler;
import io.github.verbs4j.fabric.time.FabricTimer;
import io.github.verbs4j.fabric.time.ModelledTimers;
import io.github.verbs4j.fabric.time.NodeClock;
import io.github.verbs4j.fabric.topo.Route;
import io.github.verbs4j.fabric.topo.Topology;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.internal.PlatformDependent;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node of a {@link LocalFabric}. See {@link FabricNode} for the contract. In the threaded mode it
 * owns a delivery thread and a bounded inbound queue ({@code verbs.fabric.queue-frames}): writable
 * below 3/4 of it, writable again at 1/2, frames dropped ({@link DropReason#BACKPRESSURE}) when it
 * is full.
 */
public final class LocalNode implements FabricNode {
  private static final Logger LOG = LoggerFactory.getLogger(LocalNode.class);

  final LocalFabric fabric;
  private final int id;
  private final NodeClock clock;
  private final FrameHeader header = new FrameHeader();
  private final CopyOnWriteArrayList<PeerListener> peerListeners = new CopyOnWriteArrayList<>();
  private final CopyOnWriteArrayList<WritabilityListener> writabilityListeners = new CopyOnWriteArrayList<>();
  private final IntObjectHashMap<LocalFrame> held = new IntObjectHashMap<>();
  private final ParkingEventLoop eventLoop;
  private final Queue<LocalFrame> inbound;
  private final AtomicInteger queued = new AtomicInteger();
  private final AtomicBoolean drainScheduled = new AtomicBoolean();
  private final Runnable drainTask = this::drain;
  private final Scheduler scheduler = new Scheduler();
  private final ModelledTimers timers; // threaded mode with modelled clocks, else null
  private final NodeLinkState links;
  private final int highWater;
  private final int lowWater;
  private volatile boolean congested;
  private volatile FrameReceiver receiver;
  private volatile boolean open = true;

  LocalNode(LocalFabric fabric, int id) {
    this.fabric = fabric;
    this.id = id;
    this.clock = fabric.modelled ? NodeClock.modelled() : NodeClock.wall();
    this.highWater = fabric.queueCapacity * 3 / 4;
    this.lowWater = fabric.queueCapacity / 2;
    if (fabric.deterministic) {
      eventLoop = null;
      inbound = null;
    } else {
      eventLoop = new ParkingEventLoop(new DefaultThreadFactory("verbs4j-local-node-" + id, true));
      inbound = PlatformDependent.newFixedMpscQueue(fabric.queueCapacity);
    }
    this.timers = eventLoop != null && clock.isModelled()
        ? new ModelledTimers(clock, eventLoop, fabric.options.getLong(FabricOptions.TIMER_WALL_MIN_US) * 1000, this::runTask) : null;
    this.links = new NodeLinkState(fabric.faults, fabric.topology, id, id, scheduler::execute);
  }

  @Override
  public int nodeId() {
    return id;
  }

  @Override
  public int rank() {
    return id - 1;
  }

  @Override
  public int size() {
    return fabric.size();
  }

  @Override
  public NodeDirectory directory() {
    return fabric.directory();
  }

  @Override
  public Topology topology() {
    return fabric.topology;
  }

  @Override
  public NodeClock clock() {
    return clock;
  }

  @Override
  public FabricScheduler scheduler() {
    return scheduler;
  }

  @Override
  public ByteBufAllocator alloc() {
    return fabric.alloc;
  }

  @Override
  public int mtu() {
    return fabric.options.mtu();
  }

  @Override
  public boolean mayCorrupt() {
    return fabric.faults.mayCorrupt();
  }

  @Override
  public FabricMetrics metrics() {
    return fabric.metrics;
  }

  @Override
  public FabricOptions options() {
    return fabric.options;
  }

  @Override
  public boolean isOpen() {
    return open;
  }

  /** @return the fabric this node belongs to */
  public LocalFabric fabric() {
    return fabric;
  }

  private boolean drop(DropReason r, ByteBuf payload) {
    fabric.dropped(r, payload.readableBytes());
    payload.release();
    return false;
  }

  @Override
  public boolean send(int dstNode, int tag, ByteBuf payload) {
    if (!open) {
      return drop(DropReason.CLOSED, payload);
    }
    if (timers != null) {
      timers.poke(); // a charge on this thread may have passed a timer's deadline
    }
    LocalNode d = fabric.node(dstNode);
    if (d == null) {
      return drop(DropReason.UNKNOWN_NODE, payload);
    }
    if (!d.open) {
      return drop(DropReason.NODE_DOWN, payload);
    }
    Route route = fabric.topology.route(id, dstNode);
    int len = payload.readableBytes();
    if (len > fabric.options.mtu() || len > fabric.model.mtu(route)) {
      return drop(DropReason.MTU, payload);
    }
    if (fabric.faults.routeDown(route)) {
      return drop(DropReason.LINK_DOWN, payload);
    }
    int mask = fabric.faults.decide(id, dstNode);
    if (mask == 0) {
      return inject(d, LocalFrame.get(id, dstNode, tag, payload, route, clock.nowNanos()));
    }
    return sendFaulty(d, tag, payload, route, mask);
  }

  private boolean sendFaulty(LocalNode d, int tag, ByteBuf payload, Route route, int mask) {
    int dst = d.id;
    if ((mask & FaultAction.DOWN.bit()) != 0) {
      return drop(DropReason.LINK_DOWN, payload);
    }
    if ((mask & FaultAction.DROP.bit()) != 0) {
      drop(DropReason.FAULT_DROP, payload);
      return true;
    }
    if ((mask & FaultAction.CORRUPT.bit()) != 0) {
      if ((tag & FrameHeader.TAG_UNCHECKED) != 0) {
        drop(DropReason.UNCHECKED_CORRUPT, payload);
        return true;
      }
      // Copy first: the payload may share memory with the provider's registered buffers.
      ByteBuf copy = fabric.alloc.directBuffer(payload.readableBytes()).writeBytes(payload);
      payload.release();
      payload = copy;
      fabric.faults.corrupt(id, dst, payload);
    }
    long now = clock.nowNanos();
    long delay = (mask & FaultAction.DELAY.bit()) != 0 ? fabric.faults.delayNanos(id, dst) : 0;
    if ((mask & FaultAction.DUPLICATE.bit()) != 0) {
      ByteBuf dup = fabric.alloc.directBuffer(payload.readableBytes()).writeBytes(payload, payload.readerIndex(), payload.readableBytes());
      LocalFrame f2 = LocalFrame.get(id, dst, tag, dup, route, now);
      f2.extraDelay = delay;
      inject(d, f2);
    }
    LocalFrame f = LocalFrame.get(id, dst, tag, payload, route, now);
    f.extraDelay = delay;
    if ((mask & FaultAction.REORDER.bit()) != 0) {
      synchronized (held) {
        if (!held.containsKey(dst)) {
          held.put(dst, f);
          fabric.inFlight.incrementAndGet();
          scheduler.schedule(fabric.faults.reorderWindowNanos(), () -> releaseHeld(dst, f));
          return true;
        }
      }
    }
    return inject(d, f);
  }

  private void releaseHeld(int dst, LocalFrame expected) {
    LocalFrame f;
    synchronized (held) {
      f = held.get(dst);
      if (f != expected) {
        return;
      }
      held.remove(dst);
    }
    fabric.inFlight.decrementAndGet();
    deliverHeld(f);
  }

  private void deliverHeld(LocalFrame f) {
    LocalNode d = fabric.node(f.dst);
    if (d == null || !d.open) {
      fabric.dropped(DropReason.NODE_DOWN, f.length);
      f.payload.release();
      f.recycle();
      return;
    }
    inject(d, f);
  }

  private boolean inject(LocalNode d, LocalFrame f) {
    boolean ok = injectOne(d, f);
    if (!held.isEmpty()) {
      LocalFrame h;
      synchronized (held) {
        h = held.remove(d.id);
      }
      if (h != null) {
        fabric.inFlight.decrementAndGet();
        injectOne(d, h);
      }
    }
    return ok;
  }

  private boolean injectOne(LocalNode d, LocalFrame f) {
    // A frame counts as sent once the fabric accepted it: one refused here (send returns false)
    // is only a drop, as on the netty fabric.
    int length = f.length;
    if (fabric.deterministic) {
      synchronized (fabric) {
        if (d.queued.get() >= fabric.queueCapacity) {
          return dropFrame(DropReason.BACKPRESSURE, f);
        }
        fabric.metrics.sent(length);
        d.enqueued();
        if (f.route.hops() == 0) {
          f.arrival = f.sendTime + f.extraDelay;
          fabric.loop.add(DeterministicLoop.Kind.DELIVER, f.arrival, d, f, null);
        } else {
          f.maxSer = fabric.model.maxSerialization(f.route, f.length);
          // A delayed frame enters its first link late (the delay fault holds it at the sender).
          fabric.loop.add(DeterministicLoop.Kind.HOP, f.sendTime + f.extraDelay, d, f, null);
        }
      }
      return true;
    }
    f.arrival = f.route.hops() == 0 ? f.sendTime + f.extraDelay
        : fabric.model.traverse(f.route, f.length, f.sendTime + f.extraDelay);
    if (f.extraDelay > 0 && !clock.isModelled()) {
      fabric.inFlight.incrementAndGet();
      try {
        d.eventLoop.schedule(() -> {
          fabric.inFlight.decrementAndGet();
          d.offer(f);
        }, f.extraDelay, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException closing) {
        fabric.inFlight.decrementAndGet();
        return dropFrame(DropReason.NODE_DOWN, f);
      }
      fabric.metrics.sent(length);
      return true;
    }
    if (!d.offer(f)) {
      return false;
    }
    fabric.metrics.sent(length);
    return true;
  }

  private boolean dropFrame(DropReason r, LocalFrame f) {
    fabric.dropped(r, f.length);
    f.payload.release();
    f.recycle();
    return false;
  }

  /** Threaded: enqueue on this (destination) node. */
  private boolean offer(LocalFrame f) {
    if (!open) {
      return dropFrame(DropReason.NODE_DOWN, f);
    }
    if (queued.get() >= fabric.queueCapacity || !inbound.offer(f)) {
      return dropFrame(DropReason.BACKPRESSURE, f);
    }
    fabric.inFlight.incrementAndGet();
    enqueued();
    if (drainScheduled.compareAndSet(false, true)) {
      try {
        eventLoop.execute(drainTask);
      } catch (RejectedExecutionException closing) {
        releaseInbound(); // closed meanwhile: whatever is queued is dropped as NODE_DOWN
      }
    }
    return true;
  }

  private void enqueued() {
    if (queued.incrementAndGet() >= highWater && !congested) {
      congested = true;
      fabric.nodes().forEach(n -> n.fireWritability(id, false));
    }
  }

  private void dequeued() {
    if (queued.decrementAndGet() <= lowWater && congested) {
      congested = false;
      fabric.nodes().forEach(n -> n.fireWritability(id, true));
    }
  }

  private void drain() {
    int n = 0;
    LocalFrame f;
    while (n < 4096 && (f = inbound.poll()) != null) {
      fabric.inFlight.decrementAndGet();
      deliver(f);
      n++;
    }
    drainScheduled.set(false);
    if (!inbound.isEmpty() && drainScheduled.compareAndSet(false, true)) {
      eventLoop.execute(drainTask);
    }
  }

  /** Delivers one frame on this node's fabric thread (or the deterministic loop). */
  void deliver(LocalFrame f) {
    dequeued();
    FrameReceiver r = receiver;
    if (!open) {
      dropFrame(DropReason.NODE_DOWN, f);
      return;
    }
    if (r == null) {
      dropFrame(DropReason.NO_RECEIVER, f);
      return;
    }
    if (clock.isModelled()) {
      if (timers != null && timers.dueBy(f.arrival)) {
        timers.runUntil(f.arrival); // timers due before the frame arrives fire first
      }
      clock.advanceTo(f.arrival);
    }
    header.set(f.route.hops(), f.src, f.dst, f.tag, f.length, f.sendTime, f.arrival);
    ByteBuf p = f.payload;
    f.recycle();
    fabric.metrics.received(header.length());
    try {
      r.onFrame(header, p);
    } catch (RuntimeException | Error e) {
      fabric.dropped(DropReason.RECEIVER_ERROR, header.length());
      LOG.warn("node {}: receiver threw on frame from node {}", id, header.src(), e);
    }
    if (timers != null) {
      timers.runDue(); // the receiver may have charged the clock past a deadline
    }
  }

  void runTask(Runnable task) {
    if (!open) {
      return;
    }
    try {
      task.run();
    } catch (RuntimeException | Error e) {
      LOG.warn("node {}: fabric task threw", id, e);
    }
  }

  @Override
  public boolean isWritable(int dstNode) {
    LocalNode d = fabric.node(dstNode);
    return open && d != null && d.open && !d.congested;
  }

  @Override
  public void setReceiver(FrameReceiver receiver) {
    this.receiver = receiver;
  }

  @Override
  public void addPeerListener(PeerListener listener) {
    peerListeners.add(listener);
  }

  @Override
  public void removePeerListener(PeerListener listener) {
    peerListeners.remove(listener);
  }

  @Override
  public NodeLinks links() {
    return links;
  }

  @Override
  public void addWritabilityListener(WritabilityListener listener) {
    writabilityListeners.add(listener);
  }

  @Override
  public void removeWritabilityListener(WritabilityListener listener) {
    writabilityListeners.remove(listener);
  }

  void firePeerUp(int peer) {
    if (!peerListeners.isEmpty()) {
      scheduler.execute(() -> peerListeners.forEach(l -> l.onPeerUp(peer)));
    }
  }

  void firePeerDown(int peer) {
    if (!peerListeners.isEmpty()) {
      scheduler.execute(() -> peerListeners.forEach(l -> l.onPeerDown(peer)));
    }
  }

  void fireWritability(int dst, boolean writable) {
    if (open && !writabilityListeners.isEmpty()) {
      scheduler.execute(() -> writabilityListeners.forEach(l -> l.onWritabilityChanged(dst, writable)));
    }
  }

  private void checkOpen(String what) {
    if (!open) {
      throw new FabricException(what + ": node " + id + " is closed");
    }
  }

  @Override
  public void kvPut(String key, byte[] value) {
    checkOpen("kvPut key='" + key + "'");
    try {
      fabric.coordinator.put(key, value);
    } catch (IllegalArgumentException e) {
      throw new FabricException("kvPut: " + e.getMessage(), e);
    }
  }

  @Override
  public byte[] kvGet(String key, Duration timeout) {
    checkOpen("kvGet key='" + key + "'");
    CompletableFuture<byte[]> f = fabric.coordinator.get(key);
    try {
      return f.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      fabric.coordinator.cancelGet(key, f);
      throw new FabricTimeoutException("kvGet key='" + key + "' timed out after " + timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FabricException("kvGet key='" + key + "' interrupted", e);
    } catch (ExecutionException e) {
      throw new FabricException("kvGet key='" + key + "' failed", e.getCause());
    }
  }

  @Override
  public void barrier(String name, Duration timeout) {
    checkOpen("barrier '" + name + "'");
    try {
      fabric.coordinator.barrier(name, rank()).get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new FabricTimeoutException("barrier '" + name + "' timed out after " + timeout + ": ranks "
          + fabric.coordinator.missing(name) + " missing");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FabricException("barrier '" + name + "' interrupted", e);
    } catch (ExecutionException e) {
      throw new FabricException("barrier '" + name + "' failed", e.getCause());
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      if (!open) {
        return;
      }
      open = false;
    }
    links.close();
    synchronized (held) {
      held.values().forEach(f -> {
        fabric.inFlight.decrementAndGet();
        dropFrame(DropReason.CLOSED, f);
      });
      held.clear();
    }
    fabric.nodeClosed(this);
    if (eventLoop != null) {
      eventLoop.execute(this::releaseInbound);
      eventLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      if (!eventLoop.inEventLoop()) {
        eventLoop.terminationFuture().awaitUninterruptibly(5, TimeUnit.SECONDS);
        releaseInbound();
      }
    }
  }

  private void releaseInbound() {
    LocalFrame f;
    while ((f = inbound.poll()) != null) {
      fabric.inFlight.decrementAndGet();
      queued.decrementAndGet();
      dropFrame(DropReason.NODE_DOWN, f);
    }
  }

  @Override
  public String toString() {
    return "LocalNode{id=" + id + ", open=" + open + ", clock=" + clock + "}";
  }

  /** Runs tasks on this node's delivery thread, or as modelled-time events in the deterministic mode. */
  private final class Scheduler implements FabricScheduler {
    @Override
    public FabricTimer schedule(long delayNanos, Runnable task) {
      if (delayNanos < 0) {
        throw new IllegalArgumentException("schedule delayNanos=" + delayNanos + " must not be negative");
      }
      if (fabric.deterministic) {
        synchronized (fabric) {
          return fabric.loop.add(DeterministicLoop.Kind.TASK, clock.nowNanos() + delayNanos, LocalNode.this, null, task);
        }
      }
      if (timers != null) {
        return timers.schedule(delayNanos, task);
      }
      try {
        ScheduledFuture<?> f = eventLoop.schedule(() -> runTask(task), delayNanos, TimeUnit.NANOSECONDS);
        return () -> f.cancel(false);
      } catch (RejectedExecutionException closing) {
        return () -> false; // a closed node fires no timers
      }
    }

    @Override
    public void execute(Runnable task) {
      if (fabric.deterministic) {
        synchronized (fabric) {
          fabric.loop.add(DeterministicLoop.Kind.TASK, clock.nowNanos(), LocalNode.this, null, task);
        }
        return;
      }
      if (eventLoop.isShuttingDown()) {
        return;
      }
      try {
        eventLoop.execute(() -> {
          runTask(task);
          if (timers != null) {
            timers.runDue(); // the task may have charged the clock past a deadline
          }
        });
      } catch (RejectedExecutionException closing) {
        // This node closed between the check and the hand-off (two nodes closing at once): a
        // closed node runs no more tasks, like one that had closed before.
      }
    }

    @Override
    public boolean inFabricThread() {
      return fabric.deterministic ? Thread.holdsLock(fabric) : eventLoop.inEventLoop();
    }
  }
}
