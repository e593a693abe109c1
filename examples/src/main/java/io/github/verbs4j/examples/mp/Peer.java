package io.github.verbs4j.examples.mp;

import io.github.verbs4j.verbs.QueuePair;
import java.util.ArrayDeque;

/** One peer of a {@link VerbsCommunicator}: its QP, slot areas, credits and what waits to be sent to it. */
final class Peer {
  final int rank;
  final QueuePair qp;
  /** Offset of its receive slots in the slab. */
  final int recvBase;
  /** Offset of its send slots in the slab. */
  final int sendBase;
  final ArrayDeque<Integer> freeSendSlots = new ArrayDeque<>();
  final ArrayDeque<Outgoing> pending = new ArrayDeque<>();
  final ArrayDeque<Transfer> pendingRdma = new ArrayDeque<>();
  /** Messages it can still take (free receive slots there, less the reserved ones). */
  int credits;
  /** Receive slots reposted here since the last credits went back. */
  int owed;
  int rdmaInFlight;

  Peer(int rank, QueuePair qp, int recvBase, int sendBase) {
    this.rank = rank;
    this.qp = qp;
    this.recvBase = recvBase;
    this.sendBase = sendBase;
  }
}
