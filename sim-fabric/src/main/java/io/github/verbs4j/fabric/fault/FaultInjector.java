package io.github.verbs4j.fabric.fault;

import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.topo.Route;
import io.netty.buffer.ByteBuf;
import io.netty.util.collection.IntObjectHashMap;
import java.util.BitSet;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;

/**
 * The fault injector of a fabric (local) or a node (netty: faults apply at the sender). Defaults
 * come from {@code verbs.fault.*}; tests program it directly:
 *
 * <pre>{@code
 * FaultInjector f = fabric.faults();
 * f.link(1, 2).dropRate(0.1);              // directed node pair 1 -> 2
 * f.link(2, 1).at(5, FaultAction.CORRUPT); // the 6th frame from 2 to 1
 * f.linkDown(Peach2Topology.linkId(3, Port.E)); // a topology link: every route over it
 * }</pre>
 *
 * <p>A topology link taken down is a cut cable: the ports of the nodes at its ends go down ({@link
 * io.github.verbs4j.fabric.NodeLinks}, told through {@link #addLinkObserver}). A node pair taken
 * down ({@link LinkFaults#down()}, the script's {@code down}) loses the frames of one path and
 * changes no port.
 *
 * <p>When nothing is configured, {@link #decide} returns 0 after one volatile read. Thread-safe.
 */
public final class FaultInjector {
  final long seed;
  final double defaultDrop;
  final double defaultDuplicate;
  final double defaultReorder;
  final double defaultCorrupt;
  final double defaultDelay;
  final long defaultDelayNanos;
  private final long reorderWindowNanos;
  private final FaultScript script;
  private final boolean defaultsActive;
  private volatile boolean active;
  private volatile IntObjectHashMap<LinkFaults> pairs = new IntObjectHashMap<>();
  private final BitSet downLinks = new BitSet();
  private volatile boolean anyLinkDown;
  private volatile boolean mayCorrupt; // a corrupt rate or scripted corruption was configured (monotonic)
  private final Map<FaultAction, AtomicLong> injected = new EnumMap<>(FaultAction.class);
  private final List<IntConsumer> linkObservers = new CopyOnWriteArrayList<>();

  /** @param options the {@code verbs.fault.*} settings */
  public FaultInjector(FabricOptions options) {
    seed = options.getLong(FabricOptions.FAULT_SEED);
    defaultDrop = options.getDouble(FabricOptions.FAULT_DROP);
    defaultDuplicate = options.getDouble(FabricOptions.FAULT_DUPLICATE);
    defaultReorder = options.getDouble(FabricOptions.FAULT_REORDER);
    defaultCorrupt = options.getDouble(FabricOptions.FAULT_CORRUPT);
    defaultDelay = options.getDouble(FabricOptions.FAULT_DELAY);
    defaultDelayNanos = options.getLong(FabricOptions.FAULT_DELAY_NS);
    reorderWindowNanos = options.getLong(FabricOptions.FAULT_REORDER_NS);
    script = FaultScript.parse(options.get(FabricOptions.FAULT_SCRIPT));
    defaultsActive = defaultDrop > 0 || defaultDuplicate > 0 || defaultReorder > 0 || defaultCorrupt > 0
        || defaultDelay > 0 || !script.entries().isEmpty();
    active = defaultsActive;
    mayCorrupt = defaultCorrupt > 0
        || script.entries().stream().anyMatch(e -> e.action() == FaultAction.CORRUPT);
    for (FaultAction a : FaultAction.values()) {
      injected.put(a, new AtomicLong());
    }
  }

  /** @return the seed */
  public long seed() {
    return seed;
  }

  /** @return how long a reordered frame waits at most, ns */
  public long reorderWindowNanos() {
    return reorderWindowNanos;
  }

  /**
   * @return true if a corruption rate or a scripted corruption has been configured for any pair
   *     (by options or by {@link LinkFaults}); once true it stays true
   */
  public boolean mayCorrupt() {
    return mayCorrupt;
  }

  /** A pair was given a corruption rate or a scripted corruption. */
  void corruptionConfigured() {
    mayCorrupt = true;
  }

  /** @return true if any fault is configured */
  public boolean active() {
    return active;
  }

  /**
   * The faults of the directed path {@code src -> dst}, created with the configured defaults (and
   * the script entries that match it) on first use.
   *
   * @param src source node id
   * @param dst destination node id
   * @return its fault settings
   */
  public LinkFaults link(int src, int dst) {
    if (src < 1 || src > 0xFFFF || dst < 1 || dst > 0xFFFF) {
      throw new IllegalArgumentException("fault link src=" + src + ", dst=" + dst + " must be node ids in [1, 65535]");
    }
    int key = src << 16 | dst;
    LinkFaults f = pairs.get(key);
    if (f != null) {
      return f;
    }
    synchronized (this) {
      f = pairs.get(key);
      if (f == null) {
        f = new LinkFaults(src, dst, seed, this);
        for (FaultScript.Entry e : script.entries()) {
          if ((e.src() == 0 || e.src() == src) && (e.dst() == 0 || e.dst() == dst)) {
            f.at(e.frameIndex(), e.action());
          }
        }
        IntObjectHashMap<LinkFaults> copy = new IntObjectHashMap<>(pairs.size() * 2 + 4);
        copy.putAll(pairs);
        copy.put(key, f);
        pairs = copy;
        active = true;
      }
      return f;
    }
  }

  /**
   * Takes a topology link down: every frame routed over it is dropped ({@code link_down}), and the
   * ports of the nodes at its ends go down ({@link io.github.verbs4j.fabric.NodeLinks}). Taking a
   * link that is already down down again changes nothing.
   *
   * @param linkId the link id
   */
  public void linkDown(int linkId) {
    boolean changed;
    synchronized (this) {
      changed = !downLinks.get(linkId);
      downLinks.set(linkId);
      anyLinkDown = true;
      active = true;
    }
    if (changed) {
      linkChanged(linkId);
    }
  }

  /**
   * Brings a topology link up again.
   *
   * @param linkId the link id
   */
  public void linkUp(int linkId) {
    boolean changed;
    synchronized (this) {
      changed = downLinks.get(linkId);
      downLinks.clear(linkId);
      anyLinkDown = !downLinks.isEmpty();
    }
    if (changed) {
      linkChanged(linkId);
    }
  }

  private void linkChanged(int linkId) {
    for (IntConsumer o : linkObservers) {
      o.accept(linkId);
    }
  }

  /**
   * @param linkId a topology link
   * @return true if it is down
   */
  public synchronized boolean isLinkDown(int linkId) {
    return downLinks.get(linkId);
  }

  /** @return true if any topology link is down (one volatile read) */
  public boolean anyLinkDown() {
    return anyLinkDown;
  }

  /**
   * Adds an observer of topology link changes: told the link id, on the thread that changed it,
   * after the change (it reads the state with {@link #isLinkDown}).
   *
   * @param observer the observer
   */
  public void addLinkObserver(IntConsumer observer) {
    linkObservers.add(observer);
  }

  /** @param observer an observer to remove */
  public void removeLinkObserver(IntConsumer observer) {
    linkObservers.remove(observer);
  }

  /**
   * @param route a route
   * @return true if a link on it is down
   */
  public boolean routeDown(Route route) {
    if (!anyLinkDown) {
      return false;
    }
    synchronized (this) {
      for (int i = 0; i < route.hops(); i++) {
        if (downLinks.get(route.link(i))) {
          return true;
        }
      }
      return false;
    }
  }

  /**
   * Decides the faults of one frame from {@code src} to {@code dst} and counts them.
   *
   * @param src source node
   * @param dst destination node
   * @return a mask of {@link FaultAction#bit()}s (0 = deliver normally)
   */
  public int decide(int src, int dst) {
    if (!active) {
      return 0;
    }
    LinkFaults f = pairs.get(src << 16 | dst);
    if (f == null) {
      if (!defaultsActive) {
        return 0;
      }
      f = link(src, dst);
    }
    int mask = f.decide();
    if (mask != 0) {
      for (FaultAction a : FaultAction.values()) {
        if ((mask & a.bit()) != 0) {
          injected.get(a).incrementAndGet();
        }
      }
    }
    return mask;
  }

  /**
   * @param src source node
   * @param dst destination node
   * @return the delay of delayed frames on this pair, ns
   */
  public long delayNanos(int src, int dst) {
    LinkFaults f = pairs.get(src << 16 | dst);
    return f != null ? f.delayNanos() : defaultDelayNanos;
  }

  /**
   * Flips one bit of the readable bytes of {@code buf}, chosen by the pair's generator.
   *
   * @param src source node
   * @param dst destination node
   * @param buf a buffer the caller owns (not shared)
   * @return the bit index flipped, or -1 if the buffer is empty
   */
  public int corrupt(int src, int dst, ByteBuf buf) {
    int n = buf.readableBytes();
    if (n == 0) {
      return -1;
    }
    int bit = link(src, dst).nextInt(n * 8);
    int at = buf.readerIndex() + bit / 8;
    buf.setByte(at, buf.getByte(at) ^ (1 << (bit % 8)));
    return bit;
  }

  /**
   * @param action an action
   * @return how many times it was injected
   */
  public long injected(FaultAction action) {
    return injected.get(action).get();
  }
}
