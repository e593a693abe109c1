package io.github.verbs4j.examples.mp;

import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.QueuePair;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * One connection to a peer: its RC QP and its eager ring (a registered region of {@code slots}
 * receive slots followed by {@code slots} send slots), with the credits and work in flight on it.
 * A DC link has no QP or ring of its own: it sends on one of the rank's DCIs from the rank's send
 * pool, whose free-slot queue every DC link shares.
 */
final class Link {
  final int peer;
  final int epoch;
  final QueuePair qp;
  final MemoryRegion ringMr;
  final ByteBuffer ring;
  /** Offset of the send slots in the ring (the receive slots start at 0). */
  final int sendBase;
  /** Free send slots: the link's own, or (DC) the send pool's, shared with every DC link. */
  final ArrayDeque<Integer> freeSendSlots;
  /** The slots in {@link #freeSendSlots} when nothing is in flight. */
  final int sendSlots;
  /** Messages the peer can still take (free receive slots there, less the reserved ones). */
  int credits;
  /** Receive slots reposted here since the last credits went back. */
  int owed;
  int rdmaInFlight;
  /** DC: the peer's address handle and DC target number (the QP is one of the rank's DCIs). */
  io.github.verbs4j.verbs.AddressHandle ah;
  int dctn;
  /**
   * Hybrid, DC RDMA: the peer's ring for this rank's messages (address, rkey, its index at the peer
   * and the next slot), once offered; 0 before (messages go to the peer's shared pool).
   */
  long remoteRing;
  int remoteRkey;
  int remoteRingIndex;
  int nextRemoteSlot;
  /** Retiring: whether our CLOSE has completed, when the handshake ended and when the CLOSE completed (nanoTime). */
  boolean closeCompleted;
  long retiredAt;
  long closeCompletedAt;

  Link(int peer, int epoch, QueuePair qp, MemoryRegion ringMr, ByteBuffer ring, int sendBase,
      ArrayDeque<Integer> freeSendSlots, int sendSlots) {
    this.peer = peer;
    this.epoch = epoch;
    this.qp = qp;
    this.ringMr = ringMr;
    this.ring = ring;
    this.sendBase = sendBase;
    this.freeSendSlots = freeSendSlots;
    this.sendSlots = sendSlots;
  }

  /** @return whether nothing sent on this link is still in flight (DC: nothing sent on the pool) */
  boolean sendsDone() {
    return freeSendSlots.size() == sendSlots;
  }

  /** @return whether this link sends from the rank's shared DC send pool */
  boolean dc() {
    return ah != null;
  }
}
