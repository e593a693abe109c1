package io.github.verbs4j.fabric.topo;

import java.util.Locale;

/**
 * A parsed {@code verbs.topology} value: {@code switch}, or {@code
 * peach2[:rings=R,nodesPerRing=N,sliceBits=B]} with R in 1..2 (default 1), N in 2..16 (default 8),
 * B in 20..40 (default 35: 32 GiB per node, 16 nodes in the 512 GiB window).
 *
 * @param kind {@code switch} or {@code peach2}
 * @param rings PEACH2 rings
 * @param nodesPerRing PEACH2 nodes per ring
 * @param sliceBits log2 of the address slice each PEACH2 node owns
 */
public record TopologySpec(String kind, int rings, int nodesPerRing, int sliceBits) {

  /**
   * @param spec the value
   * @return the parsed spec
   * @throws IllegalArgumentException naming {@code verbs.topology} and the value if malformed
   */
  public static TopologySpec parse(String spec) {
    String s = spec.trim().toLowerCase(Locale.ROOT);
    if (s.equals("switch") || s.isEmpty()) {
      return new TopologySpec("switch", 0, 0, 0);
    }
    if (!s.startsWith("peach2")) {
      throw new IllegalArgumentException("verbs.topology=" + spec + " must be switch or peach2[:rings=R,nodesPerRing=N]");
    }
    int rings = 1;
    int per = 8;
    int slice = 35;
    String rest = s.substring("peach2".length());
    if (!rest.isEmpty()) {
      if (rest.charAt(0) != ':') {
        throw new IllegalArgumentException("verbs.topology=" + spec + ": expected ':' after peach2");
      }
      for (String kv : rest.substring(1).split(",")) {
        String[] p = kv.split("=", 2);
        if (p.length != 2) {
          throw new IllegalArgumentException("verbs.topology=" + spec + ": '" + kv + "' is not key=value");
        }
        int v;
        try {
          v = Integer.parseInt(p[1].trim());
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("verbs.topology=" + spec + ": " + p[0] + "=" + p[1] + " is not an integer", e);
        }
        switch (p[0].trim()) {
          case "rings" -> rings = v;
          case "nodesperring" -> per = v;
          case "slicebits" -> slice = v;
          default -> throw new IllegalArgumentException("verbs.topology=" + spec + ": unknown parameter '" + p[0]
              + "' (rings, nodesPerRing, sliceBits)");
        }
      }
    }
    if (rings < 1 || rings > 2) {
      throw new IllegalArgumentException("verbs.topology=" + spec + ": rings=" + rings + " must be 1 or 2");
    }
    if (per < 2 || per > 16) {
      throw new IllegalArgumentException("verbs.topology=" + spec + ": nodesPerRing=" + per + " must be in [2, 16]");
    }
    if (slice < 20 || slice > 40) {
      throw new IllegalArgumentException("verbs.topology=" + spec + ": sliceBits=" + slice + " must be in [20, 40]");
    }
    return new TopologySpec("peach2", rings, per, slice);
  }

  /** @return the topology this spec describes */
  public Topology build() {
    return kind.equals("switch") ? new SwitchTopology() : new Peach2Topology(rings, nodesPerRing, sliceBits);
  }

  @Override
  public String toString() {
    return kind.equals("switch") ? "switch" : "peach2:rings=" + rings + ",nodesPerRing=" + nodesPerRing + ",sliceBits=" + sliceBits;
  }
}
