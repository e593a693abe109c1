package io.github.verbs4j.fabric;

/**
 * Told when this node's own port changes state ({@link NodeLinks}): it went down when a link of
 * the port was taken down, or came up when the last one came back. Called on the node's fabric
 * thread, once per change, in the order of the changes. Not called for other nodes' links: a peer
 * behind a switch whose link goes down is not this node's business (frames to it are lost, and
 * its {@link PeerListener} says nothing either: the peer is still alive).
 */
@FunctionalInterface
public interface LinkStateListener {
  /** @param up true: every link of the port is up again; false: one of them went down */
  void onLinkStateChanged(boolean up);
}
