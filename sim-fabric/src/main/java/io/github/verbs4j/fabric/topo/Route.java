package io.github.verbs4j.fabric.topo;

import java.util.Arrays;

/**
 * A static route: the directed links a frame crosses from source to destination, in order.
 * Immutable; topologies cache them, so looking one up allocates nothing.
 */
public final class Route {
  private final int src;
  private final int dst;
  private final int[] links;
  private final int[] outPorts;

  /**
   * @param src source node
   * @param dst destination node
   * @param links link ids in order
   * @param outPorts the port each hop leaves by
   */
  public Route(int src, int dst, int[] links, int[] outPorts) {
    if (links.length != outPorts.length) {
      throw new IllegalArgumentException("links.length=" + links.length + " != outPorts.length=" + outPorts.length);
    }
    this.src = src;
    this.dst = dst;
    this.links = links.clone();
    this.outPorts = outPorts.clone();
  }

  /** @return the source node */
  public int src() {
    return src;
  }

  /** @return the destination node */
  public int dst() {
    return dst;
  }

  /** @return the number of links crossed */
  public int hops() {
    return links.length;
  }

  /**
   * @param i hop index, 0-based
   * @return the link id of hop {@code i}
   */
  public int link(int i) {
    return links[i];
  }

  /**
   * @param i hop index, 0-based
   * @return the port hop {@code i} leaves by
   */
  public int outPort(int i) {
    return outPorts[i];
  }

  @Override
  public String toString() {
    return "Route{" + src + "->" + dst + ", links=" + Arrays.toString(links) + ", ports=" + Arrays.toString(outPorts) + "}";
  }
}
