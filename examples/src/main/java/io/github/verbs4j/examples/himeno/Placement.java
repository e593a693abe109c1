package io.github.verbs4j.examples.himeno;

import io.github.verbs4j.fabric.topo.TopologySpec;
import java.util.Arrays;

/**
 * Where Himeno's process grid runs (seed 000 §5.2: ranks are placed so that no two halo exchanges
 * share a PCIe link of the PEACH2 ring): the machine's topology (a {@code verbs.topology} value) and,
 * optionally, the node each grid position runs on.
 *
 * <p>Spec: {@code TOPOLOGY} or {@code TOPOLOGY/N0,N1,...}. {@code N_p} is the node of grid position
 * {@code p} (row-major, {@code p = px · ndy + py}, as {@link Decomposition}), numbered as the
 * topology numbers them ({@code 1 + ring × nodesPerRing + position}); the fabric runs rank {@code
 * n − 1} on node {@code n}, so grid position {@code p} is computed by rank {@code N_p − 1}. Without a
 * list, position {@code p} runs on node {@code p + 1}. Example: {@code
 * peach2:rings=1,nodesPerRing=4/1,2,4,3} puts a 2 × 2 grid around a ring of four, every halo
 * neighbour one cable away; {@code peach2:rings=1,nodesPerRing=4} (positions in node order) puts
 * the i neighbours two hops apart, both i exchanges through the same links.
 *
 * @param topology the {@code verbs.topology} value, as given
 * @param spec the parsed topology
 * @param nodes the node of each grid position, or null for node order
 */
public record Placement(String topology, TopologySpec spec, int[] nodes) {

  /**
   * @param value the spec
   * @return the placement
   * @throws IllegalArgumentException naming the value if the topology or the node list is malformed
   */
  public static Placement parse(String value) {
    String v = value.trim();
    int slash = v.indexOf('/');
    String topo = slash < 0 ? v : v.substring(0, slash).trim();
    TopologySpec spec;
    try {
      spec = TopologySpec.parse(topo);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("placement " + value + ": " + e.getMessage(), e);
    }
    if (slash < 0) {
      return new Placement(topo, spec, null);
    }
    String[] f = v.substring(slash + 1).split(",");
    int[] nodes = new int[f.length];
    for (int p = 0; p < f.length; p++) {
      try {
        nodes[p] = Integer.parseInt(f[p].trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("placement " + value + ": node '" + f[p].trim() + "' of grid position "
            + p + " is not a node number", e);
      }
    }
    int[] sorted = nodes.clone();
    Arrays.sort(sorted);
    for (int p = 0; p < sorted.length; p++) {
      if (sorted[p] != p + 1) {
        throw new IllegalArgumentException("placement " + value + ": the nodes " + Arrays.toString(nodes)
            + " must be 1.." + nodes.length + ", each once (node n runs rank n - 1)");
      }
    }
    if (!spec.kind().equals("switch") && nodes.length > spec.rings() * spec.nodesPerRing()) {
      throw new IllegalArgumentException("placement " + value + ": " + nodes.length + " nodes do not fit "
          + spec.rings() * spec.nodesPerRing() + " boards");
    }
    return new Placement(topo, spec, nodes);
  }

  /**
   * The rank that computes each grid position.
   *
   * @param ranks the job's size (= the grid's positions)
   * @return {@code rank[p]} for every position {@code p}
   * @throws IllegalArgumentException if the node list names a different number of positions
   */
  public int[] rankOfPosition(int ranks) {
    return rankOfPosition(nodes, ranks);
  }

  /**
   * @param nodes a node list (as {@link #nodes()}), or null for node order
   * @param ranks the job's size
   * @return the rank of each grid position
   */
  static int[] rankOfPosition(int[] nodes, int ranks) {
    int[] r = new int[ranks];
    if (nodes == null) {
      Arrays.setAll(r, p -> p);
      return r;
    }
    if (nodes.length != ranks) {
      throw new IllegalArgumentException("placement nodes " + Arrays.toString(nodes) + " name " + nodes.length
          + " grid positions, the job has " + ranks + " ranks");
    }
    Arrays.setAll(r, p -> nodes[p] - 1);
    return r;
  }

  /** @return the spec back as a user writes it */
  @Override
  public String toString() {
    if (nodes == null) {
      return topology;
    }
    StringBuilder b = new StringBuilder(topology).append('/');
    for (int p = 0; p < nodes.length; p++) {
      b.append(p == 0 ? "" : ",").append(nodes[p]);
    }
    return b.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Placement p && topology.equals(p.topology) && Arrays.equals(nodes, p.nodes);
  }

  @Override
  public int hashCode() {
    return 31 * topology.hashCode() + Arrays.hashCode(nodes);
  }
}
