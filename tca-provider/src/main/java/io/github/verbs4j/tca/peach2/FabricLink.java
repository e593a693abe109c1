package io.github.verbs4j.tca.peach2;

import io.github.verbs4j.fabric.CallerProgress;
import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.FrameHeader;
import io.github.verbs4j.fabric.LinkStateListener;
import io.github.verbs4j.fabric.PeerListener;
import io.github.verbs4j.fabric.time.FabricTimer;
import io.github.verbs4j.fabric.time.NodeClock;
import io.github.verbs4j.fabric.topo.Peach2Topology;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * A {@link Peach2Link} over a sim-fabric node whose topology is PEACH2 rings: frames travel the
 * fabric's static route, which the fabric models hop by hop (link latency, forwarding at
 * intermediate boards, serialisation on shared ring links). The board decides the destination by
 * address with its own registers; the fabric carries the frame along the same route.
 */
public final class FabricLink implements Peach2Link {
  /** Provider tag on every PEACH2 frame (unchecked ones carry the header flag {@code FrameHeader.FLAG_UNCHECKED}). */
  public static final int TAG = 0x2A;

  private final FabricNode node;
  private final Peach2Topology topology;
  private final HostClock clock;
  private final HostScheduler scheduler;
  private final List<NodeListener> listeners = new CopyOnWriteArrayList<>();
  private final ManagementPort management;
  private final boolean deterministic;
  private final Map<CableListener, LinkStateListener> cableListeners = new ConcurrentHashMap<>();
  /** The node's caller progress ({@code verbs.fabric.progress=caller}), or null. */
  private final CallerProgress callerProgress;

  private FabricLink(FabricNode node) {
    if (!(node.topology() instanceof Peach2Topology)) {
      node.close();
      throw new IllegalArgumentException("verbs.topology=" + node.topology().spec()
          + ": the tca provider needs a PEACH2 topology, e.g. peach2:rings=2,nodesPerRing=8");
    }
    this.node = node;
    this.callerProgress = node.callerProgress().orElse(null);
    this.topology = (Peach2Topology) node.topology();
    this.deterministic = node.options().deterministic(); // nothing moves while a thread waits: local or netty
    NodeClock c = node.clock();
    this.clock = new HostClock() {
      @Override
      public long nowNanos() {
        return c.nowNanos();
      }

      @Override
      public void charge(long nanos) {
        c.charge(nanos);
      }

      @Override
      public void advanceTo(long t) {
        c.advanceTo(t);
      }

      @Override
      public boolean isModelled() {
        return c.isModelled();
      }

      @Override
      public void busyProbe(java.util.function.BooleanSupplier busy) {
        c.busyProbe(busy);
      }
    };
    this.scheduler = new HostScheduler() {
      @Override
      public Cancellable schedule(long delayNanos, Runnable task) {
        FabricTimer t = node.scheduler().schedule(delayNanos, task);
        return t::cancel;
      }

      @Override
      public Timer timer(Runnable task) {
        return new Timer() {
          private FabricTimer armed; // the fabric's handle: arming makes no other

          @Override
          public void arm(long delayNanos) {
            armed = node.scheduler().schedule(delayNanos, task);
          }

          @Override
          public void cancel() {
            if (armed != null) {
              armed.cancel();
              armed = null;
            }
          }
        };
      }

      @Override
      public void execute(Runnable task) {
        node.scheduler().execute(task);
      }

      @Override
      public boolean inLinkThread() {
        return node.scheduler().inFabricThread();
      }

      @Override
      public boolean canWait() {
        return !deterministic && !node.scheduler().inFabricThread();
      }
    };
    node.addPeerListener(new PeerListener() {
      @Override
      public void onPeerUp(int nodeId) {}

      @Override
      public void onPeerDown(int nodeId) {
        for (NodeListener l : listeners) {
          l.onNodeDown(nodeId);
        }
      }
    });
    this.management = new ManagementPort() {
      @Override
      public int rank() {
        return node.rank();
      }

      @Override
      public int size() {
        return node.size();
      }

      @Override
      public void put(String key, byte[] value) {
        node.job().kvPut(key, value);
      }

      @Override
      public byte[] get(String key, Duration timeout) {
        return node.job().kvGet(key, timeout);
      }

      @Override
      public void barrier(String name, Duration timeout) {
        node.job().barrier(name, timeout);
      }
    };
  }

  /**
   * Wraps an open fabric node.
   *
   * @param node a node of a PEACH2 topology
   * @return the link
   * @throws IllegalArgumentException naming verbs.topology if it is not PEACH2 (the node is closed)
   */
  public static FabricLink wrap(FabricNode node) {
    return new FabricLink(node);
  }

  /** @return the node's modelled-time steps when the job runs in them ({@link FabricNode#steps()}) */
  public java.util.Optional<io.github.verbs4j.fabric.ModelledSteps> steps() {
    return node.steps();
  }

  /**
   * The fabric settings the tca provider uses: {@code settings} plus, where not set, a PEACH2
   * topology and the link costs of {@code params} ({@code verbs.link.latency-ns}, {@code
   * verbs.link.bandwidth-mb-s}, {@code verbs.link.forward-ns}).
   *
   * @param settings explicit {@code verbs.*} settings
   * @param params the board parameters
   * @return the settings to open the fabric with
   */
  public static Map<String, String> fabricSettings(Map<String, String> settings, Peach2Params params) {
    Map<String, String> m = new LinkedHashMap<>(settings);
    m.putIfAbsent(FabricOptions.TOPOLOGY.name(), DEFAULT_TOPOLOGY);
    m.putIfAbsent(FabricOptions.LINK_LATENCY_NS.name(), Long.toString(params.linkLatencyNs()));
    m.putIfAbsent(FabricOptions.LINK_BANDWIDTH.name(), Long.toString(params.linkMbs()));
    m.putIfAbsent(FabricOptions.LINK_FORWARD_NS.name(), Long.toString(params.forwardNs()));
    return m;
  }

  /** The topology used when {@code verbs.topology} is not set: two rings of eight (16 nodes, 512 GiB). */
  public static final String DEFAULT_TOPOLOGY = "peach2:rings=2,nodesPerRing=8";

  /**
   * Opens this process's node with {@link #fabricSettings} applied.
   *
   * @param settings explicit {@code verbs.*} settings
   * @param env the process environment (rank/size detection)
   * @param params board parameters
   * @param registry where fabric meters go
   * @return the link
   */
  public static FabricLink open(Map<String, String> settings, Map<String, String> env, Peach2Params params,
      MeterRegistry registry) {
    FabricOptions options = FabricOptions.from(fabricSettings(settings, params), env);
    return wrap(Fabric.open(options, registry));
  }

  /** @return the fabric node underneath (tests and the board's accounting) */
  public FabricNode fabricNode() {
    return node;
  }

  @Override
  public int nodeId() {
    return node.nodeId();
  }

  @Override
  public Peach2Topology topology() {
    return topology;
  }

  @Override
  public HostClock clock() {
    return clock;
  }

  @Override
  public HostScheduler scheduler() {
    return scheduler;
  }

  @Override
  public ByteBufAllocator alloc() {
    return node.alloc();
  }

  @Override
  public boolean transmit(int dstNode, ByteBuf frame, boolean unchecked) {
    return node.send(dstNode, TAG, unchecked ? FrameHeader.FLAG_UNCHECKED : 0, frame);
  }

  @Override
  public boolean transmit(int dstNode, ByteBuf frame, boolean unchecked, long sendTimeNanos) {
    return node.send(dstNode, TAG, unchecked ? FrameHeader.FLAG_UNCHECKED : 0, frame, sendTimeNanos);
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
  public boolean seesPeers() {
    return "local".equals(node.options().get(FabricOptions.FABRIC));
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
  public long peerReadMark(int dstNode) {
    return node.peerReadMark(dstNode);
  }

  @Override
  public long peerCaughtUpNanos(int dstNode) {
    return node.peerCaughtUpNanos(dstNode);
  }

  @Override
  public long peerTimeoutNanos() {
    return node.peerTimeoutNanos();
  }

  @Override
  public boolean isWritable(int dstNode) {
    return node.isWritable(dstNode);
  }

  @Override
  public void reject(ByteBuf frame) {
    node.reject(frame);
  }

  @Override
  public void setReceiver(Receiver receiver) {
    if (receiver == null) {
      node.setReceiver(null);
      return;
    }
    node.setReceiver((FrameHeader h, ByteBuf payload) -> receiver.onFrame(h.src(), h.hops(),
        (h.flags() & FrameHeader.FLAG_UNCHECKED) != 0, payload, clock.isModelled() ? h.arrivalTimeNanos() : Long.MIN_VALUE));
  }

  @Override
  public void addNodeListener(NodeListener listener) {
    listeners.add(listener);
  }

  /** The board's cables are the node's own links on the fabric ({@link FabricNode#links()}). */
  @Override
  public boolean cablesUp() {
    return node.links().isUp();
  }

  @Override
  public void addCableListener(CableListener listener) {
    LinkStateListener l = listener::onCablesChanged;
    if (cableListeners.putIfAbsent(listener, l) == null) {
      node.links().addListener(l);
    }
  }

  @Override
  public void removeCableListener(CableListener listener) {
    LinkStateListener l = cableListeners.remove(listener);
    if (l != null) {
      node.links().removeListener(l);
    }
  }

  @Override
  public ManagementPort management() {
    return management;
  }

  @Override
  public int progress(IntSupplier work, boolean pollIo) {
    CallerProgress cp = callerProgress;
    if (cp != null) {
      return cp.progress(work, pollIo);
    }
    return work != null ? work.getAsInt() : 0;
  }

  @Override
  public boolean awaitIo(IntSupplier work, BooleanSupplier ready, long timeoutNanos) {
    CallerProgress cp = callerProgress;
    return cp != null && cp.awaitIo(work, ready, timeoutNanos);
  }

  @Override
  public void wakeAwaiting() {
    CallerProgress cp = callerProgress;
    if (cp != null) {
      cp.wakeAwaiting();
    }
  }

  @Override
  public void yieldProgress() {
    CallerProgress cp = callerProgress;
    if (cp != null) {
      cp.yieldProgress();
    }
  }

  @Override
  public void close() {
    node.close();
  }
}
