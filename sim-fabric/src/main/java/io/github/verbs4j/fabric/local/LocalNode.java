package io.github.verbs4j.fabric.local;

import io.github.verbs4j.fabric.AbstractFabricNode;
import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.JobChannel;
import io.github.verbs4j.fabric.NodeDirectory;
import io.github.verbs4j.fabric.time.FabricScheduler;
import io.github.verbs4j.fabric.time.FabricTimer;
import io.github.verbs4j.fabric.time.ModelledTimers;
import io.github.verbs4j.fabric.topo.Route;
import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;
import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A node of a {@link LocalFabric}. See {@link FabricNode} for the contract; the send checks, the
 * fault stage and delivery are {@link AbstractFabricNode}'s. This class is the in-JVM transport:
 * the frame is handed over by reference. In the threaded mode the node has a delivery thread (its
 * own, or one it shares with other nodes beyond {@link LocalFabric#NODE_THREADS}) and a bounded
 * inbound queue ({@code verbs.fabric.queue-frames}): writable below 3/4 of it, writable again at
 * 1/2, frames dropped ({@link DropReason#BACKPRESSURE}) when it is full. In the deterministic mode
 * each hop and delivery is an event of the fabric's loop.
 */
public final class LocalNode extends AbstractFabricNode<LocalNode> {
  final LocalFabric fabric;
  private final ParkingEventLoop eventLoop;
  private final Queue<LocalFrame> inbound;
  private final AtomicInteger queued = new AtomicInteger();
  private final AtomicBoolean drainScheduled = new AtomicBoolean();
  private final Runnable drainTask = this::drain;
  private final FabricScheduler scheduler;
  private final LocalJob job;
  private final int highWater;
  private final int lowWater;
  private volatile boolean congested;

  LocalNode(LocalFabric fabric, int id, int nodes) {
    super(fabric.options, fabric.metrics, fabric.faults);
    this.fabric = fabric;
    this.highWater = fabric.queueCapacity * 3 / 4;
    this.lowWater = fabric.queueCapacity / 2;
    if (fabric.deterministic) {
      eventLoop = null;
      inbound = null;
      scheduler = new DeterministicScheduler();
    } else {
      eventLoop = fabric.acquireLoop(id);
      inbound = PlatformDependent.newFixedMpscQueue(fabric.queueCapacity);
      scheduler = loopScheduler(eventLoop);
      if (clock.isModelled()) {
        // The fabric sees every node and frame of the JVM: two quiet looks suffice.
        useTimers(new ModelledTimers(clock, eventLoop, fabric.quiescence(this), 2, this::runTask));
      }
    }
    this.job = new LocalJob(this, fabric.coordinator);
    attach(id, fabric.topology, fabric.model, nodes);
  }

  @Override
  public int rank() {
    return nodeId() - 1;
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
  public FabricScheduler scheduler() {
    return scheduler;
  }

  @Override
  public JobChannel job() {
    return job;
  }

  /** @return the earliest deadline of this node's modelled timers, or {@link Long#MAX_VALUE} */
  long timerDeadline() {
    return nextTimerDeadline();
  }

  /** @return the fabric this node belongs to */
  public LocalFabric fabric() {
    return fabric;
  }

  @Override
  protected LocalNode destination(int dstNode) {
    return fabric.node(dstNode);
  }

  @Override
  protected boolean isUp(LocalNode d) {
    return d.isOpen();
  }

  @Override
  protected void holding(int delta) {
    fabric.inFlight.addAndGet(delta); // awaitIdle waits for held frames too
  }

  @Override
  protected boolean doTransmit(LocalNode d, Route route, int tag, int flags, ByteBuf payload, long sendTime, long delay) {
    LocalFrame f = LocalFrame.get(nodeId(), d.nodeId(), tag, flags, payload, route, sendTime);
    f.extraDelay = delay;
    // A frame counts as sent once the fabric accepted it: one refused here (send returns false)
    // is only a drop, as on the netty fabric.
    int length = f.length;
    if (fabric.deterministic) {
      synchronized (fabric) {
        if (d.queued.get() >= fabric.queueCapacity) {
          return dropFrame(DropReason.BACKPRESSURE, f);
        }
        metrics.sent(length);
        d.enqueued();
        if (route.hops() == 0) {
          f.arrival = sendTime + delay;
          fabric.loop.add(DeterministicLoop.Kind.DELIVER, f.arrival, d, f, null);
        } else {
          f.maxSer = fabric.model.maxSerialization(route, length);
          // A delayed frame enters its first link late (the delay fault holds it at the sender).
          fabric.loop.add(DeterministicLoop.Kind.HOP, sendTime + delay, d, f, null);
        }
      }
      return true;
    }
    f.arrival = route.hops() == 0 ? sendTime + delay : fabric.model.traverse(route, length, sendTime + delay);
    if (delay > 0 && !clock.isModelled()) {
      fabric.inFlight.incrementAndGet();
      try {
        d.eventLoop.schedule(() -> {
          fabric.inFlight.decrementAndGet();
          d.offer(f);
        }, delay, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException closing) {
        fabric.inFlight.decrementAndGet();
        return dropFrame(DropReason.NODE_DOWN, f);
      }
      metrics.sent(length);
      return true;
    }
    if (!d.offer(f)) {
      return false;
    }
    metrics.sent(length);
    return true;
  }

  private boolean dropFrame(DropReason r, LocalFrame f) {
    ByteBuf p = f.payload;
    f.recycle();
    return drop(r, p);
  }

  /** Threaded: enqueue on this (destination) node. */
  private boolean offer(LocalFrame f) {
    if (!isOpen()) {
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
      for (LocalNode n : fabric.nodeArray()) {
        if (n != null) {
          n.fireWritability(nodeId(), false);
        }
      }
    }
  }

  private void dequeued() {
    if (queued.decrementAndGet() <= lowWater && congested) {
      congested = false;
      for (LocalNode n : fabric.nodeArray()) {
        if (n != null) {
          n.fireWritability(nodeId(), true);
        }
      }
    }
  }

  private void drain() {
    int n = 0;
    LocalFrame f;
    while (n < 4096 && (f = inbound.poll()) != null) {
      deliver(f);
      fabric.inFlight.decrementAndGet(); // after: the receiver has taken it (modelled timers' watch)
      n++;
    }
    drainScheduled.set(false);
    if (!inbound.isEmpty() && drainScheduled.compareAndSet(false, true)) {
      eventLoop.execute(drainTask);
    }
  }

  /** Receives one frame on this node's fabric thread (or the deterministic loop). */
  void deliver(LocalFrame f) {
    dequeued();
    if (!isOpen()) {
      dropFrame(DropReason.NODE_DOWN, f);
      return;
    }
    header.set(f.flags, f.route.hops(), f.src, f.dst, f.tag, f.length, f.sendTime, f.arrival);
    ByteBuf p = f.payload;
    f.recycle();
    deliver(p);
  }

  /** Deterministic loop: a task event. */
  void runEvent(Runnable task) {
    runTask(task);
  }

  @Override
  public boolean isWritable(int dstNode) {
    LocalNode d = fabric.node(dstNode);
    return isOpen() && d != null && d.isOpen() && !d.congested;
  }

  void firePeer(int peer, boolean up) {
    if (hasPeerListeners()) {
      scheduler.execute(() -> notifyPeer(peer, up));
    }
  }

  void fireWritability(int dst, boolean writable) {
    if (isOpen() && hasWritabilityListeners()) {
      scheduler.execute(() -> notifyWritability(dst, writable));
    }
  }

  @Override
  public void close() {
    if (!markClosed()) {
      return;
    }
    fabric.nodeClosed(this);
    if (eventLoop != null) {
      if (fabric.releaseLoop(nodeId())) {
        eventLoop.execute(this::releaseInbound);
        eventLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        if (!eventLoop.inEventLoop()) {
          eventLoop.terminationFuture().awaitUninterruptibly(5, TimeUnit.SECONDS);
          releaseInbound();
        }
      } else if (eventLoop.inEventLoop()) {
        releaseInbound(); // the thread goes on for the nodes that share it
      } else {
        // the inbound queue has one consumer, the loop: empty it there
        eventLoop.submit(this::releaseInbound).awaitUninterruptibly(5, TimeUnit.SECONDS);
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
    return "LocalNode{id=" + nodeId() + ", open=" + isOpen() + ", clock=" + clock + "}";
  }

  /** The deterministic mode's scheduler: tasks and timers are modelled-time events of the fabric's loop. */
  private final class DeterministicScheduler implements FabricScheduler {
    @Override
    public FabricTimer schedule(long delayNanos, Runnable task) {
      if (delayNanos < 0) {
        throw new IllegalArgumentException("schedule delayNanos=" + delayNanos + " must not be negative");
      }
      synchronized (fabric) {
        return fabric.loop.add(DeterministicLoop.Kind.TASK, clock.nowNanos() + delayNanos, LocalNode.this, null, task);
      }
    }

    @Override
    public void execute(Runnable task) {
      synchronized (fabric) {
        fabric.loop.add(DeterministicLoop.Kind.TASK, clock.nowNanos(), LocalNode.this, null, task);
      }
    }

    @Override
    public boolean inFabricThread() {
      return Thread.holdsLock(fabric);
    }
  }
}
