package io.github.verbs4j.fabric;

/**
 * The state of a node's own port: the topology links that start or end at the node ({@link
 * io.github.verbs4j.fabric.topo.Topology#linksAt}) — on the switch topology its uplink and the
 * switch's link to it, on PEACH2 rings the board's E, W and S cables in both directions. The port
 * is up while all of them are up, and down while fault injection holds one of them down ({@link
 * io.github.verbs4j.fabric.fault.FaultInjector#linkDown}). A cable has two ends: on PEACH2 the
 * neighbouring board's port goes down with it; the switch is not a node. Node-pair faults ({@code
 * LinkFaults.down()}, the {@code down}/{@code up} script actions) are losses on one path through the
 * fabric, not a port's cable: they change no port. A peer that leaves the fabric changes no port
 * either ({@link PeerListener} reports it).
 *
 * <p>In the netty fabric faults are per process: {@link #takeDown()} takes the node's links down
 * in its own process, which then drops the frames it would send and the frames it receives over
 * them; the neighbour's process at the other end of a PEACH2 cable is not told (its frames over
 * the cable are lost at this end).
 *
 * <pre>{@code
 * node.links().addListener(up -> port.setState(up ? ACTIVE : DOWN));
 * node.links().takeDown();   // fault injection: this node's cables are cut
 * node.links().bringUp();
 * }</pre>
 *
 * Thread-safe.
 */
public interface NodeLinks {
  /** @return true while every link of this node's port is up */
  boolean isUp();

  /**
   * Fault injection: takes every link of this node's port down (frames over them are dropped as
   * {@code link_down}); the listeners are told the port went down.
   */
  void takeDown();

  /** Fault injection: brings every link of this node's port up again. */
  void bringUp();

  /** @param listener told when the port goes down or comes up */
  void addListener(LinkStateListener listener);

  /** @param listener a listener to remove */
  void removeListener(LinkStateListener listener);
}
