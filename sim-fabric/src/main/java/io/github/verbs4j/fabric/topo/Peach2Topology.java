package io.github.verbs4j.fabric.topo;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * PEACH2 sub-cluster (seed 001): {@code rings} rings (1 or 2) of {@code nodesPerRing} (2..16) boards.
 * Within a ring, board {@code p}'s E port is cabled to board {@code p+1}'s W port (mod the ring); with
 * two rings, board {@code p} of ring 0 and board {@code p} of ring 1 are joined by their S ports.
 * Node ids: {@code 1 + ring × nodesPerRing + position}.
 *
 * <p>Links are directed: node {@code n}'s E, W and S links have ids {@code 3(n-1)}, {@code 3(n-1)+1},
 * {@code 3(n-1)+2}. Routes are static shortest paths; where several exist, each hop prefers S, then
 * E, then W, and every board decides only on the destination, so routes are loop-free and agree
 * hop by hop.
 *
 * <p>Global addresses: the sub-cluster shares one window; node {@code n} owns the slice {@code
 * [(n-1) << sliceBits, n << sliceBits)}. {@link #registers(int)} gives each board's mask/range
 * registers per port, and {@link #portFor(int, long)} routes an address with them as the hardware
 * does; a board receiving a frame for its own slice sends it out by N after subtracting {@link
 * #baseAddress(int)}.
 */
public final class Peach2Topology implements Topology {
  private final int rings;
  private final int perRing;
  private final int sliceBits;
  private final int nodes;
  private final int[][] dist;
  private final Route[][] routes;
  private final List<List<RouteRegister>> registers;
  private final List<Link> links;

  /**
   * @param rings 1 or 2
   * @param nodesPerRing 2..16
   * @param sliceBits log2 of each node's address slice
   */
  public Peach2Topology(int rings, int nodesPerRing, int sliceBits) {
    if (rings < 1 || rings > 2 || nodesPerRing < 2 || nodesPerRing > 16 || sliceBits < 1 || sliceBits > 56) {
      throw new IllegalArgumentException("peach2 rings=" + rings + " (1..2), nodesPerRing=" + nodesPerRing
          + " (2..16), sliceBits=" + sliceBits + " (1..56)");
    }
    this.rings = rings;
    this.perRing = nodesPerRing;
    this.sliceBits = sliceBits;
    this.nodes = rings * nodesPerRing;
    List<Link> l = new ArrayList<>();
    for (int n = 1; n <= nodes; n++) {
      l.add(new Link(linkId(n, Port.E), n, Port.E.value(), neighbour(n, Port.E), Port.W.value()));
      l.add(new Link(linkId(n, Port.W), n, Port.W.value(), neighbour(n, Port.W), Port.E.value()));
      if (rings == 2) {
        l.add(new Link(linkId(n, Port.S), n, Port.S.value(), neighbour(n, Port.S), Port.S.value()));
      }
    }
    this.links = List.copyOf(l);
    dist = new int[nodes + 1][nodes + 1];
    for (int d = 1; d <= nodes; d++) {
      bfs(d);
    }
    routes = new Route[nodes + 1][nodes + 1];
    for (int s = 1; s <= nodes; s++) {
      for (int d = 1; d <= nodes; d++) {
        routes[s][d] = computeRoute(s, d);
      }
    }
    List<List<RouteRegister>> regs = new ArrayList<>();
    regs.add(List.of());
    for (int n = 1; n <= nodes; n++) {
      regs.add(computeRegisters(n));
    }
    registers = List.copyOf(regs);
  }

  private Port[] ports() {
    return rings == 2 ? new Port[] {Port.S, Port.E, Port.W} : new Port[] {Port.E, Port.W};
  }

  /**
   * @param node a node
   * @param port E, W or S
   * @return the node at the other end of that port's cable
   */
  public int neighbour(int node, Port port) {
    int ring = (node - 1) / perRing;
    int pos = (node - 1) % perRing;
    return switch (port) {
      case E -> 1 + ring * perRing + (pos + 1) % perRing;
      case W -> 1 + ring * perRing + (pos + perRing - 1) % perRing;
      case S -> {
        if (rings != 2) {
          throw new IllegalArgumentException("node " + node + " has no S link with rings=" + rings);
        }
        yield 1 + (1 - ring) * perRing + pos;
      }
      case N -> node;
    };
  }

  /**
   * @param node a node
   * @param port E, W or S
   * @return the id of the directed link leaving {@code node} by {@code port}
   */
  public static int linkId(int node, Port port) {
    return 3 * (node - 1) + (port.value() - 1);
  }

  private void bfs(int d) {
    int[] row = new int[nodes + 1];
    Arrays.fill(row, -1);
    row[d] = 0;
    ArrayDeque<Integer> q = new ArrayDeque<>();
    q.add(d);
    while (!q.isEmpty()) {
      int u = q.poll();
      for (Port p : ports()) {
        int v = neighbour(u, p); // links are symmetric, so distances to d follow reverse edges
        if (row[v] < 0) {
          row[v] = row[u] + 1;
          q.add(v);
        }
      }
    }
    for (int s = 1; s <= nodes; s++) {
      dist[s][d] = row[s];
    }
  }

  private Port nextPort(int at, int dst) {
    for (Port p : ports()) {
      if (dist[neighbour(at, p)][dst] == dist[at][dst] - 1) {
        return p;
      }
    }
    throw new IllegalStateException("no next hop from " + at + " to " + dst);
  }

  private Route computeRoute(int src, int dst) {
    int h = dist[src][dst];
    int[] ls = new int[h];
    int[] ps = new int[h];
    int at = src;
    for (int i = 0; i < h; i++) {
      Port p = nextPort(at, dst);
      ls[i] = linkId(at, p);
      ps[i] = p.value();
      at = neighbour(at, p);
    }
    return new Route(src, dst, ls, ps);
  }

  private List<RouteRegister> computeRegisters(int node) {
    long mask = -1L << sliceBits;
    List<RouteRegister> r = new ArrayList<>();
    r.add(new RouteRegister(Port.N, mask, baseAddress(node), baseAddress(node)));
    for (Port p : ports()) {
      int runStart = -1;
      for (int d = 1; d <= nodes + 1; d++) {
        boolean via = d <= nodes && d != node && nextPort(node, d) == p;
        if (via && runStart < 0) {
          runStart = d;
        } else if (!via && runStart >= 0) {
          r.add(new RouteRegister(p, mask, baseAddress(runStart), baseAddress(d - 1)));
          runStart = -1;
        }
      }
    }
    return List.copyOf(r);
  }

  @Override
  public String spec() {
    return "peach2:rings=" + rings + ",nodesPerRing=" + perRing + ",sliceBits=" + sliceBits;
  }

  @Override
  public int maxNodes() {
    return nodes;
  }

  /** @return rings */
  public int rings() {
    return rings;
  }

  /** @return nodes per ring */
  public int nodesPerRing() {
    return perRing;
  }

  /** @return log2 of each node's slice of the global window */
  public int sliceBits() {
    return sliceBits;
  }

  @Override
  public Route route(int src, int dst) {
    check(src, "src");
    check(dst, "dst");
    return routes[src][dst];
  }

  private void check(int n, String what) {
    if (n < 1 || n > nodes) {
      throw new IllegalArgumentException(what + " node=" + n + " outside [1, " + nodes + "] of " + spec());
    }
  }

  @Override
  public List<Link> links(int ignored) {
    return links;
  }

  @Override
  public int linkBetween(int a, int b) {
    check(a, "a");
    check(b, "b");
    for (Port p : ports()) {
      if (neighbour(a, p) == b) {
        return linkId(a, p);
      }
    }
    return -1;
  }

  /**
   * @param node a node
   * @return the first global address of its slice
   */
  public long baseAddress(int node) {
    check(node, "node");
    return (long) (node - 1) << sliceBits;
  }

  /**
   * @param address a global address
   * @return the node owning it, or 0 if outside the window
   */
  public int nodeOf(long address) {
    if (address < 0) {
      return 0;
    }
    long n = (address >>> sliceBits) + 1;
    return n <= nodes ? (int) n : 0;
  }

  /**
   * @param node a board
   * @return its routing registers: N for its own slice first, then runs of destinations per port
   */
  public List<RouteRegister> registers(int node) {
    check(node, "node");
    return registers.get(node);
  }

  /**
   * Routes a global address at a board by its registers, as the hardware does.
   *
   * @param node the board the frame is at
   * @param address the frame's global address
   * @return the output port ({@link Port#N} if the address is in the board's own slice), or null if
   *     no register matches
   */
  public Port portFor(int node, long address) {
    for (RouteRegister r : registers(node)) {
      if (r.matches(address)) {
        return r.port();
      }
    }
    return null;
  }
}
