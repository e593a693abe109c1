package io.github.verbs4j.fabric;

/**
 * Back-pressure: told when the path to a destination stops or starts accepting frames without
 * queueing beyond the high-water mark ({@code verbs.fabric.high-water-bytes} for netty, {@code
 * verbs.fabric.queue-frames} for local). Called on the node's fabric thread. A sender that keeps
 * sending while unwritable has frames dropped ({@link DropReason#BACKPRESSURE}) once the hard limit
 * is reached: nothing buffers without bound.
 */
@FunctionalInterface
public interface WritabilityListener {
  /**
   * @param dstNode the destination node id
   * @param writable true if {@link FabricNode#isWritable(int)} now holds for it
   */
  void onWritabilityChanged(int dstNode, boolean writable);
}
