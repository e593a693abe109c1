package io.github.verbs4j.fabric;

/**
 * Peer liveness events: the netty fabric learns them from the coordinator (a process that exits,
 * is killed or stops sending heartbeats is reported down to every peer); the local fabric reports a
 * node closed or killed by {@link io.github.verbs4j.fabric.local.LocalFabric#kill(int)}. Called on the
 * node's fabric thread. A node that went down never comes back under the same id.
 */
public interface PeerListener {
  /**
   * A peer joined (or was already up when the listener was added: not replayed).
   *
   * @param nodeId the peer's node id
   */
  default void onPeerUp(int nodeId) {}

  /**
   * A peer went down: frames to it are dropped ({@link DropReason#NODE_DOWN}) from now on.
   *
   * @param nodeId the peer's node id
   */
  void onPeerDown(int nodeId);
}
