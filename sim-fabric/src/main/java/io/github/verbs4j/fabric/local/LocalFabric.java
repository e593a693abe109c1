package io.github.verbs4j.fabric.local;

import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.FabricMetrics;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.FabricTimeoutException;
import io.github.verbs4j.fabric.NodeDirectory;
import io.github.verbs4j.fabric.NodeInfo;
import io.github.verbs4j.fabric.coord.CoordinatorState;
import io.github.verbs4j.fabric.fault.FaultInjector;
import io.github.verbs4j.fabric.time.LinkModel;
import io.github.verbs4j.fabric.time.LinkParams;
import io.github.verbs4j.fabric.time.Quiescence;
import io.github.verbs4j.fabric.topo.Link;
import io.github.verbs4j.fabric.topo.Topology;
import io.github.verbs4j.fabric.topo.TopologySpec;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Many fabric nodes in one JVM. Frames are handed over by reference (no copy, no socket), through
 * the same link model, fault injection, modelled time and back-pressure rules as the netty fabric.
 *
 * <p>Two modes ({@code verbs.fabric.mode}):
 *
 * <ul>
 *   <li><b>threaded</b> (default): each node has a delivery thread; {@code send} enqueues on the
 *       destination's bounded queue and returns. Receivers, listeners and timers run on the
 *       destination node's thread. Beyond {@value #NODE_THREADS} nodes they share threads: node
 *       {@code id} runs on thread {@code (id - 1) mod} {@value #NODE_THREADS}, so a thousand ranks
 *       in one JVM are not a thousand parked threads woken by every frame. Link queueing is
 *       computed at send, in the order senders get each link's lock.
 *   <li><b>deterministic</b>: nothing runs until the test calls {@link #runUntilIdle()}, {@link
 *       #runUntil(long)} or {@link #step()}; then every hop, delivery and timer runs on the calling
 *       thread in modelled-time order (ties in the order they were scheduled), clocks are modelled,
 *       and link queueing is exact: frames take a shared link in the order their heads reach it.
 * </ul>
 *
 * <pre>{@code
 * LocalFabric fabric = LocalFabric.create(FabricOptions.from(Map.of("verbs.fabric.mode", "deterministic")), registry);
 * FabricNode a = fabric.addNode(), b = fabric.addNode();
 * b.setReceiver((h, p) -> { got.add(p.toString(UTF_8)); p.release(); });
 * a.send(b.nodeId(), Unpooled.copiedBuffer("hi", UTF_8));
 * fabric.runUntilIdle();
 * }</pre>
 *
 * Thread-safe. Closing the fabric closes every node.
 */
public final class LocalFabric implements AutoCloseable {
  private static final Map<String, LocalFabric> SHARED = new HashMap<>();
  /**
   * Most delivery threads of a threaded fabric. Up to this many nodes each has its own; more share
   * them. Each thread runs its nodes' deliveries and timers one at a time, as a node's own would.
   */
  static final int NODE_THREADS = 64;

  final FabricOptions options;
  final FabricMetrics metrics;
  final Topology topology;
  final LinkModel model;
  final FaultInjector faults;
  final CoordinatorState coordinator;
  final boolean deterministic;
  final boolean modelled;
  final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
  final DeterministicLoop loop;
  final AtomicLong inFlight = new AtomicLong();
  final int queueCapacity;
  private final String sharedName;
  private volatile LocalNode[] nodes = new LocalNode[1];
  private boolean[] linkBound = new boolean[0];
  private int count; // the largest node id added
  private int open; // nodes added and not yet closed
  private int declaredSize; // verbs.size of the ranked nodes; 0 until one joins
  private volatile boolean closed;
  /** Threaded mode: the delivery threads and how many open nodes use each. */
  private final ParkingEventLoop[] nodeLoops = new ParkingEventLoop[NODE_THREADS];
  private final int[] nodeLoopUsers = new int[NODE_THREADS];

  private LocalFabric(FabricOptions options, MeterRegistry registry, String sharedName) {
    if (!"local".equals(options.fabric())) {
      throw new IllegalArgumentException("verbs.fabric=" + options.fabric() + ": LocalFabric needs verbs.fabric=local");
    }
    this.options = options;
    this.sharedName = sharedName;
    this.metrics = new FabricMetrics(registry, "local-" + options.get(FabricOptions.NAME) + "-" + System.identityHashCode(this));
    this.topology = TopologySpec.parse(options.get(FabricOptions.TOPOLOGY)).build();
    this.model = new LinkModel(LinkParams.from(options), 64);
    this.faults = new FaultInjector(options);
    this.coordinator = new CoordinatorState(0, options.kvsPlacement());
    this.deterministic = options.deterministic();
    this.modelled = options.modelledTime();
    this.loop = deterministic ? new DeterministicLoop() : null;
    this.queueCapacity = (int) options.getLong(FabricOptions.QUEUE_FRAMES);
    metrics.bindFaults(faults);
  }

  /**
   * Threaded mode: the delivery thread of a new node, started if no open node uses it.
   *
   * @param id the node's id
   * @return its event loop
   */
  synchronized ParkingEventLoop acquireLoop(int id) {
    int slot = (id - 1) % NODE_THREADS;
    if (nodeLoops[slot] == null) {
      nodeLoops[slot] = new ParkingEventLoop(new DefaultThreadFactory("verbs4j-local-node-" + (slot + 1), true));
    }
    nodeLoopUsers[slot]++;
    return nodeLoops[slot];
  }

  /**
   * Threaded mode: a closing node no longer uses its thread.
   *
   * @param id the node's id
   * @return whether it was the last user: the caller shuts the loop down
   */
  synchronized boolean releaseLoop(int id) {
    int slot = (id - 1) % NODE_THREADS;
    if (--nodeLoopUsers[slot] > 0) {
      return false;
    }
    nodeLoops[slot] = null;
    return true;
  }

  /**
   * What a node's modelled timers see of the fabric (threaded mode): every node's activity, every
   * frame in flight, every engine's busy probe and every node's earliest timer. The earliest timer
   * is the next event only when all of that is still.
   *
   * @param self the node
   * @return its view
   */
  Quiescence quiescence(LocalNode self) {
    return new Quiescence() {
      @Override
      public long activity() {
        long a = inFlight.get();
        for (LocalNode n : nodes) {
          if (n != null) {
            a += n.clock().activity();
          }
        }
        return a;
      }

      @Override
      public boolean idleUntil(long deadline) {
        if (inFlight.get() != 0) {
          return false;
        }
        for (LocalNode n : nodes) {
          if (n != null && n.isOpen() && (n.clock().busy() || (n != self && n.timerDeadline() < deadline))) {
            return false;
          }
        }
        return true;
      }
    };
  }

  /**
   * Creates a private in-JVM fabric.
   *
   * @param options options ({@code verbs.fabric} must be {@code local})
   * @param registry where meters go
   * @return the fabric, with no nodes yet
   */
  public static LocalFabric create(FabricOptions options, MeterRegistry registry) {
    return new LocalFabric(options, registry, null);
  }

  /**
   * Creates a private in-JVM fabric with meters in {@link Metrics#globalRegistry}.
   *
   * @param options options
   * @return the fabric
   */
  public static LocalFabric create(FabricOptions options) {
    return create(options, Metrics.globalRegistry);
  }

  /**
   * Adds a node to the JVM-wide fabric named {@code verbs.fabric.name}, creating it on first use
   * (with these options); the fabric goes away when its last node closes. This is what {@link
   * io.github.verbs4j.fabric.Fabric#open} does for {@code verbs.fabric=local}.
   *
   * @param options options
   * @param registry where meters go (used if the fabric is created)
   * @return the new node
   */
  public static LocalNode join(FabricOptions options, MeterRegistry registry) {
    String name = options.get(FabricOptions.NAME);
    synchronized (SHARED) {
      LocalFabric f = SHARED.get(name);
      if (f == null || f.closed) {
        f = new LocalFabric(options, registry, name);
        SHARED.put(name, f);
      }
      return f.addNode(options);
    }
  }

  /**
   * @param name a {@code verbs.fabric.name}
   * @return the open JVM-wide fabric of that name that {@link #join} made, or null
   */
  public static LocalFabric shared(String name) {
    synchronized (SHARED) {
      LocalFabric f = SHARED.get(name);
      return f == null || f.closed ? null : f;
    }
  }

  /**
   * Adds the node a process's options describe. With {@code verbs.rank} set: node id {@code rank +
   * 1}, and the job's size is {@code verbs.size} (fixed by the first ranked node, as the netty
   * coordinator does), so barriers wait for every rank whatever order they open in. Without: as
   * {@link #addNode()}.
   *
   * @param o the node's options
   * @return the node
   * @throws IllegalArgumentException naming the value if the rank is taken by an open node or the
   *     size differs from the job's
   * @throws IllegalStateException if the fabric is closed or the topology is full
   */
  public LocalNode addNode(FabricOptions o) {
    return "-1".equals(o.get(FabricOptions.RANK)) ? addNode() : add(o.rank() + 1, o.size());
  }

  /**
   * Adds a node: the next node id (1, 2, ...), rank {@code id - 1}; every other node is told it is
   * up.
   *
   * @return the node
   * @throws IllegalStateException if the fabric is closed or the topology is full
   */
  public LocalNode addNode() {
    return add(0, 0);
  }

  private String name() {
    return sharedName != null ? "'" + sharedName + "'" : "(private)";
  }

  /**
   * @param wantId the node id of a ranked node, 0 for the next free one
   * @param size the ranked node's job size, 0 if unranked
   */
  private LocalNode add(int wantId, int size) {
    LocalNode n;
    LocalNode[] others;
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("local fabric is closed");
      }
      if (size > 0) {
        if (declaredSize == 0) {
          declaredSize = size;
        } else if (size != declaredSize) {
          throw new IllegalArgumentException("verbs.size=" + size + " differs from the size " + declaredSize
              + " of local fabric " + name());
        }
      }
      int id = wantId > 0 ? wantId : count + 1;
      if (id > topology.maxNodes()) {
        throw new IllegalStateException("topology " + topology.spec() + " holds " + topology.maxNodes()
            + " nodes; cannot add node " + id);
      }
      LocalNode old = node(id);
      if (old != null && old.isOpen()) {
        throw new IllegalArgumentException("verbs.rank=" + (id - 1) + " already joined local fabric " + name()
            + " (node " + id + " is open)");
      }
      n = new LocalNode(this, id, Math.max(Math.max(count, id), declaredSize));
      LocalNode[] a = Arrays.copyOf(nodes, Math.max(nodes.length, id + 1));
      a[id] = n;
      nodes = a;
      count = Math.max(count, id);
      open++;
      bindLinks();
      others = a;
    }
    coordinator.setSize(size());
    for (LocalNode o : others) {
      if (o != null && o != n && o.isOpen()) {
        o.firePeer(n.nodeId(), true);
      }
    }
    return n;
  }

  private void bindLinks() {
    for (Link l : topology.links(count)) {
      if (l.id() >= linkBound.length) {
        linkBound = Arrays.copyOf(linkBound, Math.max(l.id() + 1, linkBound.length * 2));
      }
      if (!linkBound[l.id()]) {
        linkBound[l.id()] = true;
        metrics.bindLink(model, l.id());
      }
    }
  }

  /**
   * @param nodeId a node id
   * @return the node, or null if none has that id
   */
  public LocalNode node(int nodeId) {
    LocalNode[] a = nodes;
    return nodeId > 0 && nodeId < a.length ? a[nodeId] : null;
  }

  /** @return the node array (index = node id; null where none was added): do not modify */
  LocalNode[] nodeArray() {
    return nodes;
  }

  /** @return the nodes added so far, in id order (closed ones included) */
  public synchronized List<LocalNode> nodes() {
    List<LocalNode> l = new ArrayList<>();
    for (LocalNode n : nodes) {
      if (n != null) {
        l.add(n);
      }
    }
    return l;
  }

  synchronized int size() {
    return Math.max(count, declaredSize);
  }

  NodeDirectory directory() {
    List<NodeInfo> l = new ArrayList<>();
    for (LocalNode n : nodes()) {
      l.add(new NodeInfo(n.nodeId(), n.rank(), "local", "localhost", n.isOpen()));
    }
    return new NodeDirectory(l);
  }

  /** @return the fault injector (programmable by tests) */
  public FaultInjector faults() {
    return faults;
  }

  /** @return the link model (per-link parameters, queueing statistics) */
  public LinkModel linkModel() {
    return model;
  }

  /** @return the topology */
  public Topology topology() {
    return topology;
  }

  /** @return the fabric's meters */
  public FabricMetrics metrics() {
    return metrics;
  }

  /**
   * @return the bytes of the pairs the fabric's coordinator state holds itself: every pair with
   *     {@code verbs.fabric.kvs=root}, 0 with {@code hashed} (a node's {@code job().kvsBytes()} then)
   */
  public long coordinatorKvsBytes() {
    return coordinator.rootKvsBytes();
  }

  /** @return the pairs the coordinator state holds itself (every pair with root, 0 with hashed) */
  public long coordinatorKvsPairs() {
    return coordinator.rootKvsPairs();
  }

  /** @return the options */
  public FabricOptions options() {
    return options;
  }

  /** @return true in the deterministic mode */
  public boolean deterministic() {
    return deterministic;
  }

  /**
   * Crashes a node as {@code kill -9} would a process: it stops receiving, frames to it are dropped
   * ({@link DropReason#NODE_DOWN}) and every other node gets a peer-down event.
   *
   * @param nodeId the node
   * @throws IllegalArgumentException naming the node if unknown
   */
  public void kill(int nodeId) {
    LocalNode n = node(nodeId);
    if (n == null) {
      throw new IllegalArgumentException("kill: node=" + nodeId + " is not in this fabric");
    }
    n.close();
  }

  void nodeClosed(LocalNode n) {
    // the array, not nodes(): a copy per close made closing n nodes O(n^2) in allocations alone
    for (LocalNode o : nodes) {
      if (o != null && o != n && o.isOpen()) {
        o.firePeer(n.nodeId(), false);
      }
    }
    boolean last;
    synchronized (this) {
      last = --open == 0;
    }
    if (sharedName != null) {
      if (last) {
        synchronized (SHARED) {
          if (SHARED.get(sharedName) == this) {
            SHARED.remove(sharedName);
          }
        }
        closed = true;
        releasePending();
        metrics.close();
      }
    }
  }

  /** Deterministic mode, every node closed: frames still on their way are dropped (and freed), tasks not run. */
  private void releasePending() {
    if (!deterministic) {
      return;
    }
    synchronized (this) {
      DeterministicLoop.Event e;
      while ((e = loop.poll()) != null) {
        if (e.kind != DeterministicLoop.Kind.TASK && !e.cancelled) {
          e.node.deliver(e.frame); // to a closed node: counted as a drop, its payload released
        }
      }
    }
  }

  private void requireDeterministic(String what) {
    if (!deterministic) {
      throw new IllegalStateException(what + " needs verbs.fabric.mode=deterministic (this fabric is threaded)");
    }
  }

  /**
   * Deterministic mode: runs the next event (a hop, a delivery, a timer or task).
   *
   * @return false if there was none
   * @throws IllegalStateException in the threaded mode
   */
  public boolean step() {
    requireDeterministic("step()");
    synchronized (this) {
      DeterministicLoop.Event e = loop.poll();
      if (e == null) {
        return false;
      }
      run(e);
      return true;
    }
  }

  /**
   * Deterministic mode, as an agent's duty cycle: runs up to 256 events.
   *
   * @return events run (0 when idle)
   * @throws IllegalStateException in the threaded mode
   */
  public int doWork() {
    requireDeterministic("doWork()");
    int n = 0;
    synchronized (this) {
      DeterministicLoop.Event e;
      while (n < 256 && (e = loop.poll()) != null) {
        run(e);
        n++;
      }
    }
    return n;
  }

  /**
   * Deterministic mode: runs events until none is left.
   *
   * @return the number of events run
   * @throws IllegalStateException in the threaded mode, or after 100 million events (a timer that
   *     re-arms forever: use {@link #runUntil(long)})
   */
  public int runUntilIdle() {
    requireDeterministic("runUntilIdle()");
    int n = 0;
    synchronized (this) {
      DeterministicLoop.Event e;
      while ((e = loop.poll()) != null) {
        run(e);
        if (++n >= 100_000_000) {
          throw new IllegalStateException("runUntilIdle: 100000000 events without going idle; use runUntil(time)");
        }
      }
    }
    return n;
  }

  /**
   * Deterministic mode: runs every event at or before a modelled time.
   *
   * @param modelledNanos the time
   * @return the number of events run
   */
  public int runUntil(long modelledNanos) {
    requireDeterministic("runUntil()");
    int n = 0;
    synchronized (this) {
      while (true) {
        DeterministicLoop.Event e = loop.peek();
        if (e == null || e.time > modelledNanos) {
          return n;
        }
        run(loop.poll());
        n++;
      }
    }
  }

  /**
   * Deterministic mode: the time of the next event, for a driver that interleaves other work with
   * the fabric's events in time order.
   *
   * @return its modelled time, or {@link Long#MAX_VALUE} when no event is pending
   * @throws IllegalStateException in the threaded mode
   */
  public synchronized long nextEventTime() {
    requireDeterministic("nextEventTime()");
    DeterministicLoop.Event e = loop.peek();
    return e == null ? Long.MAX_VALUE : e.time;
  }

  /** @return deterministic mode: the modelled time of the latest event run; else 0 */
  public synchronized long now() {
    return deterministic ? loop.now() : 0;
  }

  /** @return deterministic mode: events waiting; threaded: frames in flight */
  public synchronized long pending() {
    return deterministic ? loop.size() : inFlight.get();
  }

  /**
   * Waits until no frame is in flight (threaded) or runs until idle (deterministic).
   *
   * @param timeout how long to wait
   * @throws FabricTimeoutException naming the frames still in flight
   */
  public void awaitIdle(Duration timeout) {
    if (deterministic) {
      runUntilIdle();
      return;
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    int stable = 0;
    while (stable < 3) {
      if (inFlight.get() == 0) {
        stable++;
      } else {
        stable = 0;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new FabricTimeoutException("awaitIdle: " + inFlight.get() + " frames still in flight after " + timeout);
      }
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private void run(DeterministicLoop.Event e) {
    if (e.cancelled) {
      return;
    }
    try {
      runEvent(e);
    } finally {
      loop.recycle(e);
    }
  }

  private void runEvent(DeterministicLoop.Event e) {
    switch (e.kind) {
      case HOP -> {
        LocalFrame f = e.frame;
        int i = f.hopIndex;
        boolean last = i == f.route.hops() - 1;
        long next = model.hop(f.route.link(i), e.time, f.length, last);
        if (last) {
          f.arrival = next + f.maxSer;
          loop.add(DeterministicLoop.Kind.DELIVER, f.arrival, e.node, f, null);
        } else {
          f.hopIndex = i + 1;
          loop.add(DeterministicLoop.Kind.HOP, next, e.node, f, null);
        }
      }
      case DELIVER -> e.node.deliver(e.frame);
      case TASK -> {
        e.node.clock().advanceTo(e.time);
        e.node.runEvent(e.task);
      }
    }
  }

  /** Closes every node (peers see them go down) and the fabric. Idempotent. */
  @Override
  public void close() {
    for (LocalNode n : nodes()) {
      n.close();
    }
    closed = true;
    releasePending();
    if (sharedName != null) {
      synchronized (SHARED) {
        if (SHARED.get(sharedName) == this) {
          SHARED.remove(sharedName);
        }
      }
    }
    metrics.close();
  }

  boolean isClosed() {
    return closed;
  }

  void dropped(DropReason r, long bytes) {
    metrics.drop(r, bytes);
  }
}
