package io.github.verbs4j.examples.mp;

import io.github.verbs4j.verbs.AddressHandle;
import java.util.ArrayDeque;

/**
 * One peer of a {@link VerbsCommunicator}: what waits to be sent to it, and its connection ({@link
 * Link}) while it has one. With {@link MpConfig.Strategy#ON_DEMAND} a peer's connection comes and
 * goes; each connection is one epoch of the pair, numbered alike on both sides.
 */
final class Peer {
  /** Where the peer's connection is (seed 003 §3.2's context life cycle). */
  enum State {
    /** No QP or ring. */
    IDLE,
    /** Our QP is created (INIT) and our address sent; waiting for the peer's. */
    CONNECTING,
    /**
     * Our QP is at RTS, the peer's is not known to be: nothing is posted yet. The peer's CONNECT
     * flagged RTS, or any message on the link, makes it {@link #OPEN}.
     */
    RTS,
    /** Both QPs at RTS: messages may be posted. */
    OPEN,
    /** Closing: nothing new is posted; CLOSE goes once our sends and RDMA have completed. */
    DRAINING,
    /** Our CLOSE is posted; waiting for the peer's. */
    CLOSE_SENT
  }

  final int rank;
  final ArrayDeque<Outgoing> pending = new ArrayDeque<>();
  final ArrayDeque<Transfer> pendingRdma = new ArrayDeque<>();
  State state = State.IDLE;
  /** The pair's connection number: both sides move to the next when a CLOSE handshake ends. */
  int epoch;
  /**
   * The current connection, or null when {@link State#IDLE}. (Hybrid: CONNECTING and RTS name its
   * RC link while the pair moves to it, OPEN the link it sends on, DC or RC.)
   */
  Link link;
  /** Whether the peer's CLOSE of this epoch has arrived. */
  boolean peerClosed;
  /** Whether the {@link Sender} has it in its list of peers to drain. */
  boolean active;
  /** When this side last sent to or received from the peer (a logical clock), for LRU eviction. */
  long lastUse;
  /** When our CONNECT was last sent (nanoTime), to resend it. */
  long connectSentAt;
  /** The peer's control address (LID, UD QPN), once known; 0 before. */
  int lid;
  int udQpn;
  /** The address handle of the peer's control QP, while it is connected or connecting. */
  AddressHandle ah;
  /** DC and hybrid: the peer's DC link, kept when the peer moves to an RC link (its late completions). */
  Link dcLink;
  /** Hybrid: where the pair is in the switch from the DC channel to RC. */
  HybridSwitch.Phase phase = HybridSwitch.Phase.DC;
  /** Hybrid: the peer refused an RC link (it had no room); this side does not ask again. */
  boolean refused;
  /** Hybrid: moved back from RC to make room; it asks again only after it has been light once. */
  boolean cooling;
  /** Hybrid: this side asked for the pair's RC link (the peer is its heavy source), not the peer. */
  boolean askedRc;
  /** Hybrid: while moving back, the source it makes room for. */
  Peer roomFor;
  /** Hybrid, DC RDMA: the ring this rank gave the peer to write into, else null. */
  io.github.verbs4j.verbs.MemoryRegion inRingMr;
  java.nio.ByteBuffer inRing;
  /** Hybrid, DC RDMA: whether the ring's offer has gone (from then on only the ring's messages earn credits). */
  boolean ringOffered;

  Peer(int rank) {
    this.rank = rank;
  }

  /** Appends what a timed-out wait reports about this peer, if anything waits or its link is not open. */
  void describe(StringBuilder b) {
    Link l = link;
    boolean inFlight = l != null && (!l.sendsDone() || l.rdmaInFlight > 0);
    if (hasWork() || inFlight || l != null && l.credits == 0 || state != State.OPEN && l != null
        || phase != HybridSwitch.Phase.DC && phase != HybridSwitch.Phase.RC) {
      b.append("; to rank ").append(rank).append(" (").append(state).append(", epoch ").append(epoch);
      if (dcLink != null) {
        b.append(", ").append(phase);
      }
      b.append("): ").append(pending.size()).append(" waiting, RDMA queued ").append(pendingRdma.size());
      if (l != null) {
        b.append(", credits ").append(l.credits).append(", free slots ").append(l.freeSendSlots.size())
            .append(" of ").append(l.sendSlots).append(", RDMA in flight ").append(l.rdmaInFlight);
        if (l.remoteRing != 0) {
          b.append(", into ring ").append(l.remoteRingIndex).append(" at slot ").append(l.nextRemoteSlot);
        }
      }
    }
  }

  /**
   * @param epoch a wr_id's epoch (8 bits)
   * @return the link of that epoch: the current one, or the DC link a hybrid pair moved from; null
   *     if it has closed
   */
  Link linkOf(int epoch) {
    if (link != null && (link.epoch & 0xff) == epoch) {
      return link;
    }
    return dcLink != null && (dcLink.epoch & 0xff) == epoch ? dcLink : null;
  }

  /** @return whether something waits to be sent to the peer */
  boolean hasWork() {
    return !pending.isEmpty() || !pendingRdma.isEmpty();
  }
}
