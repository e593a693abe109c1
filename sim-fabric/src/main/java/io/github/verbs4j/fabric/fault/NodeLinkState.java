package io.github.verbs4j.fabric.fault;

import io.github.verbs4j.fabric.LinkStateListener;
import io.github.verbs4j.fabric.NodeLinks;
import io.github.verbs4j.fabric.topo.Topology;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link NodeLinks} of one node over a fault injector: watches the injector's topology links and
 * tells the listeners, through the node's fabric thread, each time the node's port changes state.
 * Both fabrics use it (local: one injector for all nodes; netty: the node's own).
 */
public final class NodeLinkState implements NodeLinks {
  private static final Logger LOG = LoggerFactory.getLogger(NodeLinkState.class);

  private final FaultInjector faults;
  private final int nodeId;
  private final int[] links;
  private final Executor fabricThread;
  private final List<LinkStateListener> listeners = new CopyOnWriteArrayList<>();
  private final IntConsumer observer = this::linkChanged;
  private volatile boolean up;

  /**
   * Starts watching {@code faults}; {@link #close()} stops.
   *
   * @param faults the injector that holds the topology links' state
   * @param topology the topology
   * @param nodeId the node
   * @param nodes how many nodes are present
   * @param fabricThread runs the listeners on the node's fabric thread
   */
  public NodeLinkState(FaultInjector faults, Topology topology, int nodeId, int nodes, Executor fabricThread) {
    this.faults = faults;
    this.nodeId = nodeId;
    this.links = topology.linksAt(nodeId, nodes);
    this.fabricThread = fabricThread;
    faults.addLinkObserver(observer);
    synchronized (this) {
      up = allUp();
    }
  }

  private boolean allUp() {
    for (int l : links) {
      if (faults.isLinkDown(l)) {
        return false;
      }
    }
    return true;
  }

  private void linkChanged(int linkId) {
    if (Arrays.binarySearch(links, linkId) < 0) {
      return;
    }
    boolean now;
    synchronized (this) {
      now = allUp();
      if (now == up) {
        return;
      }
      up = now;
      // Queued under the lock, so listeners see the changes in the order they happened.
      if (!listeners.isEmpty()) {
        try {
          fabricThread.execute(() -> tell(now));
        } catch (RejectedExecutionException e) {
          LOG.debug("node {}: closed, link state change not reported", nodeId);
        }
      }
    }
  }

  private void tell(boolean state) {
    for (LinkStateListener l : listeners) {
      try {
        l.onLinkStateChanged(state);
      } catch (RuntimeException e) {
        LOG.warn("node {}: link state listener threw", nodeId, e);
      }
    }
  }

  @Override
  public boolean isUp() {
    return up;
  }

  @Override
  public void takeDown() {
    for (int l : links) {
      faults.linkDown(l);
    }
  }

  @Override
  public void bringUp() {
    for (int l : links) {
      faults.linkUp(l);
    }
  }

  @Override
  public void addListener(LinkStateListener listener) {
    listeners.add(listener);
  }

  @Override
  public void removeListener(LinkStateListener listener) {
    listeners.remove(listener);
  }

  /** Stops watching the injector (the node closed). */
  public void close() {
    faults.removeLinkObserver(observer);
  }

  @Override
  public String toString() {
    return "node " + nodeId + " links " + Arrays.toString(links) + (up ? " up" : " down");
  }
}
