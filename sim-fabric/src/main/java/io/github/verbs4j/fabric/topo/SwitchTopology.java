package io.github.verbs4j.fabric.topo;

import io.github.verbs4j.fabric.FrameHeader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * One switch (node 0) with a link pair to every node, as an InfiniBand subnet with a single switch:
 * node {@code n}'s uplink is link {@code 2(n-1)} (HCA port 1 → switch port n) and its downlink is
 * link {@code 2(n-1)+1}. Every route between two nodes is 2 hops with one forwarding (the switch).
 */
public final class SwitchTopology implements Topology {
  private final AtomicReferenceArray<AtomicReferenceArray<Route>> cache =
      new AtomicReferenceArray<>(FrameHeader.MAX_NODE_ID + 1);

  /** Creates the topology. */
  public SwitchTopology() {}

  @Override
  public String spec() {
    return "switch";
  }

  @Override
  public int maxNodes() {
    return FrameHeader.MAX_NODE_ID;
  }

  /**
   * @param node a node
   * @return its uplink id
   */
  public static int uplink(int node) {
    return 2 * (node - 1);
  }

  /**
   * @param node a node
   * @return its downlink id
   */
  public static int downlink(int node) {
    return 2 * (node - 1) + 1;
  }

  @Override
  public Route route(int src, int dst) {
    check(src, "src");
    check(dst, "dst");
    AtomicReferenceArray<Route> row = cache.get(src);
    if (row == null) {
      cache.compareAndSet(src, null, new AtomicReferenceArray<>(FrameHeader.MAX_NODE_ID + 1));
      row = cache.get(src);
    }
    Route r = row.get(dst);
    if (r == null) {
      r = src == dst ? new Route(src, dst, new int[0], new int[0])
          : new Route(src, dst, new int[] {uplink(src), downlink(dst)}, new int[] {1, dst});
      row.compareAndSet(dst, null, r);
      r = row.get(dst);
    }
    return r;
  }

  private static void check(int node, String what) {
    if (node < 1 || node > FrameHeader.MAX_NODE_ID) {
      throw new IllegalArgumentException(what + " node=" + node + " outside [1, " + FrameHeader.MAX_NODE_ID + "]");
    }
  }

  @Override
  public List<Link> links(int nodes) {
    List<Link> l = new ArrayList<>();
    for (int n = 1; n <= nodes; n++) {
      l.add(new Link(uplink(n), n, 1, 0, n));
      l.add(new Link(downlink(n), 0, n, n, 1));
    }
    return l;
  }

  @Override
  public int linkBetween(int a, int b) {
    if (a == 0 && b > 0) {
      return downlink(b);
    }
    if (b == 0 && a > 0) {
      return uplink(a);
    }
    return -1;
  }
}
