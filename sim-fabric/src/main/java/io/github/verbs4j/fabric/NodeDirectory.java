package io.github.verbs4j.fabric;

import java.util.List;

/**
 * An immutable snapshot of the nodes of a fabric, as published by the coordinator.
 *
 * @param nodes the nodes in node-id order
 */
public record NodeDirectory(List<NodeInfo> nodes) {
  /** Copies the list. */
  public NodeDirectory {
    nodes = List.copyOf(nodes);
  }

  /**
   * @param nodeId a node id
   * @return its entry, or null if unknown
   */
  public NodeInfo node(int nodeId) {
    for (NodeInfo n : nodes) {
      if (n.nodeId() == nodeId) {
        return n;
      }
    }
    return null;
  }

  /**
   * @param nodeId a node id
   * @return true if the node is known and up
   */
  public boolean isUp(int nodeId) {
    NodeInfo n = node(nodeId);
    return n != null && n.up();
  }
}
