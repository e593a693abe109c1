package io.github.verbs4j.fabric.netty;

import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.FabricMetrics;
import io.github.verbs4j.fabric.FrameHeader;
import io.github.verbs4j.fabric.time.LinkModel;
import io.github.verbs4j.fabric.topo.Link;
import io.github.verbs4j.fabric.topo.Route;
import io.github.verbs4j.fabric.topo.Topology;
import io.netty.buffer.ByteBuf;
import java.util.List;

/**
 * Transit routing of a netty node: which process models each link, and so where a frame goes next.
 * Every directed link is modelled by the one process that sees all of its traffic — the process of
 * the node that transmits on it, or, for a switch's link to a node, that node's process; a link of
 * a board whose process is down (or absent) is modelled by whoever holds the frame. A frame
 * crosses its route in pieces: each process models the links it owns and passes the frame on, as a
 * {@link FrameHeader#TYPE_TRANSIT} frame carrying the head's modelled time, to the process that
 * owns the next link (store and forward through intermediate PEACH2 boards, as the ring does), or
 * finally to the destination as a data frame.
 */
final class TransitRouter {
  private final Topology topology;
  private final LinkModel model;
  private final FabricMetrics metrics;
  private final NettyMembership members;
  private final Outbox outbox;
  private final int self;
  private final int size;
  private final int[] linkOwner;
  private final int[] linkFrom;
  private final int[] linkTo;

  /**
   * @param topology the job's topology
   * @param model this process's link model
   * @param metrics where misrouted frames are counted
   * @param members peers and their liveness
   * @param outbox where frames passed on are written
   * @param self this node's id
   * @param size the number of ranks
   */
  TransitRouter(Topology topology, LinkModel model, FabricMetrics metrics, NettyMembership members, Outbox outbox,
      int self, int size) {
    this.topology = topology;
    this.model = model;
    this.metrics = metrics;
    this.members = members;
    this.outbox = outbox;
    this.self = self;
    this.size = size;
    List<Link> links = topology.links(size);
    int maxLink = 0;
    for (Link l : links) {
      maxLink = Math.max(maxLink, l.id());
    }
    int[] owners = new int[maxLink + 1];
    linkFrom = new int[maxLink + 1];
    linkTo = new int[maxLink + 1];
    for (Link l : links) {
      linkFrom[l.id()] = l.from();
      linkTo[l.id()] = l.to();
      // The transmitter sees all of a link's traffic; a switch (node 0) has no process, but all
      // traffic on its link to a node goes to that node.
      int o = l.from() != 0 ? l.from() : l.to();
      owners[l.id()] = o <= size ? o : 0;
      if (o == self) {
        metrics.bindLink(model, l.id());
      }
    }
    this.linkOwner = owners;
  }

  /**
   * The node whose process models a link: its transmitter, or the receiving node of a switch's
   * link; 0 if that node has no live process, in which case whoever holds the frame models it.
   */
  private int owner(int linkId) {
    int o = linkId < linkOwner.length ? linkOwner[linkId] : 0;
    if (o == 0 || o == self) {
      return o;
    }
    Peer p = members.peer(o);
    return p != null && p.up ? o : 0;
  }

  /**
   * @param route a route
   * @param from the first hop to look at
   * @return the first hop at or after {@code from} that this process does not model (or hops())
   */
  int ownedHops(Route route, int from) {
    int n = route.hops();
    int i = from;
    while (i < n) {
      int o = owner(route.link(i));
      if (o != 0 && o != self) {
        break;
      }
      i++;
    }
    return i;
  }

  /**
   * @param route a route
   * @param done hops modelled so far
   * @return the process a frame goes to once hops {@code 0..done-1} are modelled
   */
  int nextNode(Route route, int done) {
    return done == route.hops() ? route.dst() : owner(route.link(done));
  }

  /**
   * Whether {@code peer} may hand this process a frame from {@code src} to {@code dst}: it is a node
   * of the route between them (an intermediate board that stores and forwards, or the holder of a
   * frame whose next link's process is down).
   *
   * @param peer the authenticated peer of the connection the frame came on
   * @param src the frame's source node
   * @param dst its destination node
   * @return true if the peer is on the route
   */
  boolean mayRelay(int peer, int src, int dst) {
    if (src < 1 || src > size || dst < 1 || dst > size || src == dst) {
      return false;
    }
    Route route = topology.route(src, dst);
    for (int i = 0; i < route.hops(); i++) {
      int l = route.link(i);
      if (l < linkFrom.length && (linkFrom[l] == peer || linkTo[l] == peer)) {
        return true;
      }
    }
    return false;
  }

  /**
   * @param dst a destination other than this node
   * @return the node whose connection this node's frames to {@code dst} take
   */
  int via(int dst) {
    Route route = topology.route(self, dst);
    return nextNode(route, ownedHops(route, 0));
  }

  /**
   * A transit frame reached this process (on the event loop; its header decoded into {@code h}):
   * models the links this process owns, then passes it on, or, if it has reached its destination
   * here, rewrites {@code h} as the data frame's header and leaves the frame's reader index at the
   * payload for the caller to deliver.
   *
   * @param h the decoded header
   * @param frame the whole frame (ownership passes unless this returns true)
   * @param at where the header starts
   * @return true if the frame is for this node
   */
  boolean onTransit(FrameHeader h, ByteBuf frame, int at) {
    int src = h.src();
    int dst = h.dst();
    int done = h.hops();
    if (src > size || dst > size || src == dst || done >= topology.hops(src, dst)) {
      metrics.drop(DropReason.MISROUTED, frame.readableBytes() - FrameHeader.LENGTH);
      frame.release();
      return false;
    }
    Route route = topology.route(src, dst);
    // The sender chose this process to model hop `done`: always take at least that one, so a
    // frame never bounces between processes that disagree about liveness.
    int next = ownedHops(route, done + 1);
    int len = h.length();
    long time = model.advance(route, done, next, h.arrivalTimeNanos(), len);
    if (next == route.hops() && dst == self) {
      h.set(h.flags(), next, src, dst, h.tag(), len, h.sendTimeNanos(), time);
      frame.skipBytes(FrameHeader.LENGTH);
      return true;
    }
    // Store and forward: the frame (a slice of the read buffer, which this node owns) is rewritten
    // in place and written on; the write releases it.
    FrameHeader.advance(frame, at, next == route.hops() ? FrameHeader.TYPE_DATA : FrameHeader.TYPE_TRANSIT, next, time);
    outbox.forward(members.peer(nextNode(route, next)), frame);
    return false;
  }
}
