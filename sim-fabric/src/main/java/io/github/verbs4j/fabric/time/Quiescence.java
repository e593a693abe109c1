package io.github.verbs4j.fabric.time;

/**
 * What a transport can see of the events still to come at a node, so that the node's {@link
 * ModelledTimers} move its modelled clock to a timer's deadline only when that timer is the next
 * event: the in-JVM fabric sees every node and every frame in flight; a netty node sees only
 * itself.
 */
public interface Quiescence {
  /**
   * @return a counter that changes with every activity the transport can see (charges, advances,
   *     frames sent and received by the nodes it watches)
   */
  long activity();

  /**
   * @param deadline the node's earliest timer deadline (modelled ns)
   * @return true if, as far as the transport can see, nothing but timers can happen before {@code
   *     deadline}: no frame on its way, no owner busy ({@link NodeClock#busy()}), and no other
   *     watched node with an earlier timer
   */
  boolean idleUntil(long deadline);
}
