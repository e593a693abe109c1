package io.github.verbs4j.examples.mp;

import io.github.verbs4j.verbs.spi.MemoryComponent;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link MpConfig.Strategy#HYBRID} (seed 003 §3.3, §3.5): moves a source rank from the DC channel
 * to an RC link with its own eager ring when this rank has received enough from it.
 *
 * <p><b>Deciding</b> (the receiver, as in the paper: "per source rank, the number of receives"):
 * every message received from a peer is counted in the {@link TrafficHistory}; when a peer on the
 * DC channel reaches {@link MpConfig.Hybrid#threshold()} messages over the history and this rank
 * holds fewer than {@link MpConfig.Hybrid#rcLinks()} RC links, the rank creates an RC QP and ring
 * for it and asks it to switch. A peer that refuses (no room) is not asked again. A heavy source that
 * cannot have RC (this rank at its cap, or the source refused) gets seed 003's third method, <b>RDMA
 * over DC</b>: the rank makes a ring of receive slots for it and sends RING_OFFER (its address, rkey
 * and index) on the DC channel; from then on the source RDMA-WRITEs each message, with the ring's
 * index and the slot as immediate data, into the next slot of that ring over its DCI (the write
 * consumes a receive of the shared pool, which only signals it). The ring is filled in order and
 * emptied in order, and credits keep the source from overrunning it; a source's messages stay on one
 * DCI, so those sent into the pool before the offer arrived are handled first. Rings: {@link #RINGS}
 * per rank, less the RC cap (seed 003 §3.4: 1,024 rings per node for RC and DC RDMA sources). A pair
 * with a ring in either direction does not move to RC (a rank refuses a peer it gave a ring), so a
 * peer has an RC link or a ring, not both.
 *
 * <p><b>Handing over</b> without losing, duplicating or reordering a message: the DC channel
 * delivers a peer's messages in order (a peer always uses the same DCI), and each side's last
 * message on it is a marker.
 * <ol>
 *   <li>The asking side (A) makes its RC link the peer's current link, so nothing more is posted on
 *       the DC channel; once its RDMA operations on DC have completed (so that a FIN that now goes
 *       on RC cannot overtake its data), it sends SWITCH with its RC address ({@link Phase#WANT},
 *       {@link Phase#SWITCH_SENT}).
 *   <li>The peer (B) handles SWITCH after every earlier DC message of A's. It makes an RC link too,
 *       connects it to A's (RTS), makes it current, and once its own DC RDMA has completed sends
 *       SWITCH_ACK with its address, its last DC message ({@link Phase#ACCEPTING}). B posts nothing
 *       on RC until a message from A arrives there (A's QP may not be at RTS before).
 *   <li>A handles SWITCH_ACK after every earlier DC message of B's, connects, and sends a CREDIT
 *       on RC first; both are on RC ({@link Phase#RC}).
 * </ol>
 * If both ask at once, the lower rank's SWITCH wins: the higher rank answers it with its own
 * link, the lower ignores the higher's SWITCH. A rank with no room (or closing) answers
 * SWITCH_NACK; the asking side closes its unused link and goes back to the DC channel, where it had
 * posted nothing since its SWITCH.
 *
 * <p><b>Moving back</b> (the paper re-assigns methods every interval): when a source on the DC
 * channel reaches the threshold while this rank (or its node) holds all the RC links it may, and
 * the RC peer this rank asked for with the fewest messages over the history has fewer than
 * 1/{@link #HYSTERESIS} of the new source's, that peer goes back to the DC channel to make room
 * ({@link Phase#LEAVING}): each side posts nothing more on RC, and once its RC sends and RDMA have
 * completed sends CLOSE as its last RC message (the side that receives CLOSE first does the same);
 * a side whose CLOSE has completed and that has the peer's makes the DC link current again. Its RC traffic is then all in
 * the peer's CQ (the one CQ of the rank) before anything it posts on DC. The RC QP lingers {@link
 * #LINGER_NANOS} (an ACK of the peer's CLOSE the device may still hold) and is then destroyed with
 * its ring. A source moved back does not ask for RC again until its count has fallen below the
 * threshold once (it may get a ring meanwhile), so two sources cannot take turns evicting each
 * other; the new source is asked as soon as the room is there.
 */
final class HybridSwitch {
  private static final Logger LOG = LoggerFactory.getLogger(HybridSwitch.class);

  /** Where a pair is in the move from the DC channel to RC. */
  enum Phase {
    /** On the DC channel. */
    DC,
    /** This side asked: its RC link is current (nothing posted), SWITCH waits for DC RDMA to complete. */
    WANT,
    /** This side's SWITCH is sent; waiting for SWITCH_ACK or SWITCH_NACK. */
    SWITCH_SENT,
    /** The peer asked: our RC link is at RTS and current, SWITCH_ACK waits for DC RDMA to complete. */
    ACCEPTING,
    /** On the RC link (this side may post once the peer is {@link Peer.State#OPEN} on it). */
    RC,
    /** Going back to the DC channel: the RC link's CLOSE handshake is under way. */
    LEAVING
  }

  /** A source on RC is moved back only for one with this many times its messages (an assumption). */
  static final int HYSTERESIS = 2;
  /** How long a left RC QP outlives the handshake (as the on-demand links': an ACK may still be held). */
  static final long LINGER_NANOS = ConnectionManager.LINGER_NANOS;

  /**
   * Seed 003 §3.4: eager rings per node for the sources on RC or DC RDMA (per rank under {@link
   * MpConfig.Strategy#HYBRID}, per node under {@link MpConfig.Strategy#SHARED}).
   */
  static final int RINGS = 1024;
  /** Bits of a ring immediate that hold the slot (slots per link are at most 4,096). */
  private static final int SLOT_BITS = 12;

  private final Connections conn;
  private final Sender sender;
  /** Rings given to sources for DC RDMA, by index (the index is in every write's immediate). */
  private final List<Peer> rings = new ArrayList<>();
  private final int maxRings;
  /** Peers whose RING_OFFER waits to be posted. */
  private final List<Peer> offers = new ArrayList<>();
  private final int rank;
  private final int threshold;
  private final int maxRc;
  private final TrafficHistory history;
  /** Peers whose marker (SWITCH, SWITCH_ACK) waits to be posted. */
  private final List<Peer> markers = new ArrayList<>();
  /** Peers owed a SWITCH_NACK. */
  private final List<Peer> nacks = new ArrayList<>();
  /** Peers between DC and an RC link they are OPEN on. */
  private final List<Peer> moving = new ArrayList<>();
  /** Peers on RC (phase {@link Phase#RC}), the candidates for moving back. */
  private final List<Peer> onRc = new ArrayList<>();
  /** Peers going back to DC, and the RC links they left (until destroyed). */
  private final List<Peer> leaving = new ArrayList<>();
  private final List<Link> retiring = new ArrayList<>();
  private long movesBack;
  private int rcLinks;
  private long switches;
  private long refusals;
  private boolean stopped;

  HybridSwitch(Connections conn, Sender sender, int rank, MpConfig.Hybrid settings) {
    this.conn = conn;
    this.sender = sender;
    this.rank = rank;
    this.threshold = settings.threshold();
    this.maxRc = conn.maxLinks;
    this.maxRings = Math.max(0, RINGS - settings.rcLinks());
    this.history = new TrafficHistory(conn.peers.ranks(), settings.interval().toNanos(), System.nanoTime());
    conn.memory.add(history, MemoryComponent.MP_PEERS, TrafficHistory.bytes(conn.peers.ranks()));
  }

  /** A message (not a credit or a marker) arrived from {@code p}: count it, and ask for RC when it is heavy. */
  void received(Peer p) {
    long now = System.nanoTime();
    long count = history.record(p.rank, now);
    if (p.cooling && count < threshold) {
      p.cooling = false; // light again: it may earn RC anew
    }
    if (p.phase != Phase.DC || p.inRing != null || stopped || count < threshold || p.dcLink == null) {
      return;
    }
    boolean mayAsk = !p.refused && !p.cooling && p.link == p.dcLink;
    if (mayAsk && mayAddRcLink()) {
      askRc(p);
    } else if (mayAsk && (!leaving.isEmpty() || moveBackLighterThan(p, count, now))) {
      // room is being made: the source is asked once it is there, or asks again with a later message
    } else if ((p.refused || p.link == p.dcLink) && rings.size() < maxRings && conn.openRing(p)) {
      rings.add(p);
      offers.add(p);
    }
  }

  /** Makes an RC link for source {@code p} and asks it to switch (the rank's room is counted). */
  private void askRc(Peer p) {
    p.link = newRcLink(p);
    p.state = Peer.State.CONNECTING;
    p.phase = Phase.WANT;
    p.askedRc = true;
    markers.add(p);
    moving.add(p);
  }

  /**
   * Starts moving back the RC peer this rank asked for (its own heavy source, not one whose peer
   * asked) with the fewest messages over the history, if it has fewer than 1/{@link #HYSTERESIS}
   * of {@code count}, the messages of {@code candidate}.
   *
   * @return whether one is moving back
   */
  private boolean moveBackLighterThan(Peer candidate, long count, long now) {
    Peer victim = null;
    long least = Long.MAX_VALUE;
    for (Peer v : onRc) {
      long c = history.sum(v.rank, now);
      if (v.askedRc && v.state == Peer.State.OPEN && c < least) {
        least = c;
        victim = v;
      }
    }
    if (victim == null || least * HYSTERESIS >= count) {
      return false;
    }
    leave(victim);
    victim.roomFor = candidate;
    return true;
  }

  /** Peer {@code p}, on RC, goes back to the DC channel: nothing more is posted on RC, CLOSE goes once drained. */
  private void leave(Peer p) {
    onRc.remove(p);
    leaving.add(p);
    p.phase = Phase.LEAVING;
    p.state = Peer.State.DRAINING; // the sender posts CLOSE once the link's sends and RDMA have completed
    sender.touch(p);
    LOG.debug("rank {}: rank {} goes back to DC", rank, p.rank);
  }

  /**
   * The peer's CLOSE arrived on the RC link: its last RC message. If this side had not begun
   * moving back, it does now.
   */
  void closeReceived(Peer p) {
    if (p.phase == Phase.RC && p.state == Peer.State.OPEN) {
      leave(p);
    } else if (p.phase != Phase.LEAVING) {
      throw new MpException("rank " + rank + ": CLOSE from rank " + p.rank + " in phase " + p.phase + ", state "
          + p.state);
    }
    p.peerClosed = true;
  }

  /**
   * @return whether this rank (and under {@link MpConfig.Strategy#SHARED} its node, which then counts
   *     the link) has room for another RC link
   */
  private boolean mayAddRcLink() {
    return rcLinks < maxRc && (conn.nodeRings == null || conn.nodeRings.takeRcLink());
  }

  /** @return the immediate of a DC RDMA write into slot {@code slot} of ring {@code ring} */
  static int ringImm(int ring, int slot) {
    return ring << SLOT_BITS | slot;
  }

  /** @return the slot a DC RDMA write's immediate names */
  static int ringSlot(int imm) {
    return imm & (1 << SLOT_BITS) - 1;
  }

  /** @return the source that owns the ring a DC RDMA write's immediate names */
  Peer ringOwner(int imm) {
    return rings.get(imm >>> SLOT_BITS);
  }

  private Link newRcLink(Peer p) {
    p.epoch++; // the RC link's completions are told from the DC link's by the epoch in their wr_id
    Link l = conn.openLink(p);
    rcLinks++;
    return l;
  }

  /**
   * A message of kind {@code kind} from {@code p} on the DC channel: handles it if it is a marker.
   *
   * @return whether it was a marker
   */
  boolean marker(Peer p, int kind, ByteBuffer slab, int at) {
    switch (kind) {
      case Wire.SWITCH -> switchAsked(p, slab, at);
      case Wire.SWITCH_ACK -> {
        if (p.phase != Phase.SWITCH_SENT) {
          throw new MpException("rank " + rank + ": SWITCH_ACK from rank " + p.rank + " in phase " + p.phase);
        }
        connect(p.link, slab, at);
        p.state = Peer.State.OPEN; // the peer connected before it answered
        p.phase = Phase.RC;
        onRc.add(p);
        switches++;
        p.pending.addFirst(new Outgoing(Wire.CREDIT, 0, 0, 0, 0, 0, 0, 0, null)); // tells the peer we are at RTS
        sender.touch(p);
      }
      case Wire.RING_OFFER -> {
        Link d = p.dcLink; // from now on this rank's messages to p go into that ring, on the same DCI
        d.remoteRing = Wire.addr(slab, at);
        d.remoteRkey = Wire.rkey(slab, at);
        d.remoteRingIndex = Wire.tag(slab, at);
        d.nextRemoteSlot = 0;
        d.credits = conn.slots - MpConfig.RESERVED_SLOTS; // the ring's, in place of the pool's
        sender.touch(p);
      }
      case Wire.SWITCH_NACK -> {
        if (p.phase != Phase.SWITCH_SENT) {
          throw new MpException("rank " + rank + ": SWITCH_NACK from rank " + p.rank + " in phase " + p.phase);
        }
        backToDc(p);
        p.refused = true;
        refusals++;
      }
      default -> {
        return false;
      }
    }
    return true;
  }

  private void switchAsked(Peer p, ByteBuffer slab, int at) {
    switch (p.phase) {
      case DC -> {
        if (stopped || p.inRing != null || !mayAddRcLink()) { // a source on DC RDMA stays there
          nacks.add(p);
          return;
        }
        p.link = newRcLink(p);
        p.askedRc = false;
        moving.add(p);
      }
      case WANT -> markers.remove(p); // we had not asked yet: answer instead, with the link we made
      case SWITCH_SENT -> {
        if (rank < p.rank) {
          return; // both asked: ours wins, the peer answers it
        }
      }
      default -> {
        throw new MpException("rank " + rank + ": SWITCH from rank " + p.rank + " in phase " + p.phase);
      }
    }
    if (stopped) {
      backToDc(p);
      nacks.add(p);
      return;
    }
    connect(p.link, slab, at);
    p.state = Peer.State.RTS; // until a message from the peer arrives on the RC link
    p.phase = Phase.ACCEPTING;
    markers.add(p);
  }

  /** Closes the RC link that was not used and makes the DC link current again. */
  private void backToDc(Peer p) {
    Link rc = p.link;
    p.link = p.dcLink;
    p.state = Peer.State.OPEN;
    p.phase = Phase.DC;
    markers.remove(p);
    moving.remove(p);
    rcLinks--;
    if (conn.nodeRings != null) {
      conn.nodeRings.releaseRcLink();
    }
    conn.closeLink(rc, null);
    sender.touch(p);
  }

  private void connect(Link rc, ByteBuffer slab, int at) {
    conn.connectLink(rc, Wire.senderId(slab, at), Wire.tag(slab, at), Wire.length(slab, at),
        Wire.receiverId(slab, at), Wire.rkey(slab, at));
  }

  /**
   * Posts the markers that are due: SWITCH and SWITCH_ACK once the pair's RDMA on DC has completed,
   * and refusals.
   *
   * @return work done
   */
  int progress() {
    int work = finishLeaving();
    for (int i = 0; i < offers.size(); i++) {
      Peer p = offers.get(i);
      Outgoing o = new Outgoing(Wire.RING_OFFER, 0, rings.indexOf(p), 0, 0, 0, p.inRingMr.address(),
          p.inRingMr.rkey(), null);
      if (sender.sendMarker(p, p.dcLink, o)) {
        p.ringOffered = true; // after the offer's header took the pool's owed credits
        offers.remove(i--);
        work++;
      }
    }
    for (int i = 0; i < nacks.size(); i++) {
      Peer p = nacks.get(i);
      if (sender.sendMarker(p, p.dcLink, Wire.SWITCH_NACK, null)) {
        nacks.remove(i--);
        work++;
      }
    }
    for (int i = 0; i < markers.size(); i++) {
      Peer p = markers.get(i);
      if (p.dcLink.rdmaInFlight > 0) {
        continue;
      }
      boolean asking = p.phase == Phase.WANT;
      if (sender.sendMarker(p, p.dcLink, asking ? Wire.SWITCH : Wire.SWITCH_ACK, p.link)) {
        markers.remove(i--);
        work++;
        if (asking) {
          p.phase = Phase.SWITCH_SENT;
        } else {
          p.phase = Phase.RC;
          onRc.add(p);
          switches++;
        }
        LOG.debug("rank {}: {} sent to rank {}", rank, asking ? "SWITCH" : "SWITCH_ACK", p.rank);
      }
    }
    return work;
  }

  /**
   * Pairs whose RC CLOSE handshake is through (ours completed, the peer's received) go back to the
   * DC channel; RC links left long enough ago are destroyed.
   *
   * @return work done
   */
  private int finishLeaving() {
    if (leaving.isEmpty() && retiring.isEmpty()) {
      return 0;
    }
    int work = 0;
    long now = System.nanoTime();
    for (int i = 0; i < leaving.size(); i++) {
      Peer p = leaving.get(i);
      Link rc = p.link;
      if (p.state == Peer.State.DRAINING) {
        work += sender.drain(p); // CLOSE once the link is drained (the sender's active list may have let it go)
      }
      if (p.state != Peer.State.CLOSE_SENT || !p.peerClosed || !rc.sendsDone() || rc.rdmaInFlight > 0) {
        continue;
      }
      leaving.remove(i--);
      rc.closeCompletedAt = now;
      retiring.add(rc);
      p.link = p.dcLink;
      p.state = Peer.State.OPEN;
      p.phase = Phase.DC;
      p.peerClosed = false;
      p.cooling = true;
      rcLinks--;
      if (conn.nodeRings != null) {
        conn.nodeRings.releaseRcLink();
      }
      movesBack++;
      sender.touch(p); // what waited goes on DC
      work++;
      Peer c = p.roomFor;
      p.roomFor = null;
      if (c != null && c.phase == Phase.DC && c.inRing == null && !c.refused && !c.cooling && !stopped
          && c.dcLink != null && c.link == c.dcLink && mayAddRcLink()) {
        askRc(c); // the source the room was made for
      }
    }
    for (int i = 0; i < retiring.size(); i++) {
      Link l = retiring.get(i);
      if (now - l.closeCompletedAt > LINGER_NANOS) {
        retiring.remove(i--);
        conn.closeLink(l, null);
        work++;
      }
    }
    return work;
  }

  /** @return the RC links left but not destroyed yet, to be closed with the communicator */
  List<AutoCloseable> retired() {
    List<AutoCloseable> l = new ArrayList<>();
    for (Link r : retiring) {
      conn.memory.linkClosed(r);
      l.add(r.qp);
      l.add(r.ringMr);
    }
    retiring.clear();
    return l;
  }

  /**
   * The communicator is closing: no more switches are begun, a peer that asks is refused, and a
   * switch or ring not yet offered is dropped (the peer may be closing too, and what waits for it
   * goes on the DC channel instead).
   */
  void stop() {
    stopped = true;
    for (Peer p : new ArrayList<>(markers)) {
      if (p.phase == Phase.WANT) {
        backToDc(p);
      }
    }
    offers.clear();
  }

  /**
   * @return whether no switch is under way (every moved pair is OPEN on its RC link, no marker
   *     waits) and nothing sent from the shared DC send pool is still in flight
   */
  boolean settled() {
    moving.removeIf(p -> p.phase == Phase.RC && p.state == Peer.State.OPEN);
    return moving.isEmpty() && markers.isEmpty() && nacks.isEmpty() && offers.isEmpty() && leaving.isEmpty()
        && conn.sendPoolFree.size() == Connections.DC_SEND_BUFFERS;
  }

  /** @return the counts of this rank's links by kind */
  HybridStats stats() {
    int dc = 0;
    int out = 0;
    List<Integer> rc = new ArrayList<>();
    for (Peer p : conn.peers) {
      if (p != null && p.phase != Phase.DC) {
        rc.add(p.rank);
      } else if (p != null && p.dcLink != null) {
        dc++;
      }
      if (p != null && p.dcLink != null && p.dcLink.remoteRing != 0) {
        out++;
      }
    }
    return new HybridStats(dc, rc.stream().mapToInt(Integer::intValue).toArray(), maxRc, switches, refusals,
        rings.size(), out, movesBack);
  }
}
