package io.github.verbs4j.verbs.spi.runtime;

/**
 * What a provider's port learns from its fabric about whether it and a peer ran their receive
 * sides: the facts {@link AckWait} judges a local ACK timeout by. A fabric that cannot tell (one
 * JVM, sockets) keeps the defaults, which make every timeout count as before.
 */
public interface PeerProgress {
  /**
   * This node's engine has taken every packet that reached it (engine thread; cheap): a fabric
   * that can, tells peers ({@link #peerCaughtUpNanos} on their side).
   */
  default void receiverCaughtUp() {}

  /**
   * @return whether every packet that reached this node was handed to its engine (none waits in
   *     the fabric's own inbound queues); true when the fabric cannot tell
   */
  default boolean receiveDrained() {
    return true;
  }

  /**
   * @param peer the peer's address in the port's terms (an ib LID, a tca node)
   * @return how far the peer's reader has read what reached it (a count that only grows while its
   *     host runs that reader), or {@link Long#MAX_VALUE} if the fabric cannot tell
   */
  default long peerReadMark(int peer) {
    return Long.MAX_VALUE;
  }

  /**
   * @param peer the peer's address in the port's terms
   * @return {@link System#nanoTime()} when the peer's engine last had taken everything that reached
   *     it, or {@link Long#MAX_VALUE} if the fabric cannot tell
   */
  default long peerCaughtUpNanos(int peer) {
    return Long.MAX_VALUE;
  }

  /** @return how long the fabric lets a peer be silent before it declares it down, ns (0: never) */
  default long peerTimeoutNanos() {
    return 0;
  }
}
