package io.github.verbs4j.fabric.topo;

import java.util.List;

/**
 * Which links exist and the static route between any two nodes. Node ids are 1-based. Thread-safe
 * and immutable once built (the switch topology grows with the node count, lazily).
 */
public interface Topology {
  /** @return the spec it was built from, e.g. {@code switch} or {@code peach2:rings=2,nodesPerRing=4} */
  String spec();

  /** @return the largest node id this topology can hold */
  int maxNodes();

  /**
   * @param src source node id
   * @param dst destination node id
   * @return the route; 0 hops if {@code src == dst}
   * @throws IllegalArgumentException naming the node if outside the topology
   */
  Route route(int src, int dst);

  /**
   * @param src source node id
   * @param dst destination node id
   * @return links crossed
   */
  default int hops(int src, int dst) {
    return route(src, dst).hops();
  }

  /**
   * @param nodes how many nodes are present (for the switch, which has a link pair per node)
   * @return the links among nodes {@code 1..nodes}
   */
  List<Link> links(int nodes);

  /**
   * The links of one node's port: the cables it transmits and receives on (switch: its uplink and
   * the switch's link to it; PEACH2: its E, W and S links and its neighbours' links into it).
   *
   * @param node a node
   * @param nodes how many nodes are present (at least {@code node})
   * @return the ids of the links that start or end at {@code node}, ascending
   */
  default int[] linksAt(int node, int nodes) {
    return links(Math.max(node, nodes)).stream().filter(l -> l.from() == node || l.to() == node)
        .mapToInt(Link::id).sorted().toArray();
  }

  /**
   * @param a one end
   * @param b the other end
   * @return the id of the directed link from {@code a} to {@code b} if they are adjacent, else -1
   */
  int linkBetween(int a, int b);
}
