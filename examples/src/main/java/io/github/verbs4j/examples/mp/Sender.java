package io.github.verbs4j.examples.mp;

import static io.github.verbs4j.examples.mp.Connections.RDMA_IN_FLIGHT;
import static io.github.verbs4j.examples.mp.Connections.WR_RDMA;
import static io.github.verbs4j.examples.mp.Connections.WR_SEND;
import static io.github.verbs4j.examples.mp.Connections.wrId;

import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Map;

/**
 * The send side of a {@link VerbsCommunicator}: posts the messages and RDMA operations that wait for
 * a peer on its open link as far as credits, send slots and the RDMA window allow, returns credits,
 * sends CLOSE on a link being closed once it is drained, and asks the {@link ConnectionManager}
 * for a link when a peer with work has none. Runs on the communicator's thread.
 */
final class Sender {
  private static final Outgoing CLOSE = new Outgoing(Wire.CLOSE, 0, 0, 0, 0, 0, 0, 0, null);
  private final int rank;
  private final int slots;
  private final int slotSize;
  private final int creditThreshold;
  /** On-demand connections; null for the baseline. */
  private final ConnectionManager cm;
  /** The communicator's RDMA operations in flight, by request id. */
  private final Map<Integer, Request> rdma;
  private final Connections conn;
  /** DC: send WRs outstanding on each DCI. */
  private final int[] dciInFlight;
  private final SendWr swr = new SendWr();
  /** The communicator is closing: no more credit messages. */
  boolean closing;
  /**
   * The peers that may have something to post (work queued, or credits owed), so that progress
   * visits these (and, on demand, the closing links) instead of every rank of the job.
   */
  private final ArrayList<Peer> active = new ArrayList<>();

  Sender(int rank, Connections conn, ConnectionManager cm, Map<Integer, Request> rdma) {
    this.rank = rank;
    this.slots = conn.slots;
    this.slotSize = conn.slotSize;
    this.creditThreshold = Math.max(1, (slots - MpConfig.RESERVED_SLOTS) / 2);
    this.cm = cm;
    this.rdma = rdma;
    this.conn = conn;
    this.dciInFlight = new int[conn.dcis == null ? 0 : conn.dcis.length];
  }

  /** Notes that {@code p} may have something to post: work queued for it, or credits owed to it. */
  void touch(Peer p) {
    if (!p.active) {
      p.active = true;
      active.add(p);
    }
  }

  /** Queues {@code o} for {@code p}. */
  void enqueue(Peer p, Outgoing o) {
    p.pending.addLast(o);
    touch(p);
  }

  /**
   * Drains the peers that may have something to post; a peer leaves the list once it has no work
   * and owes no credits (a closing link is drained by the connection manager's list instead).
   *
   * @return work done
   */
  int drainActive() {
    int work = 0;
    int kept = 0;
    for (int i = 0; i < active.size(); i++) {
      Peer p = active.get(i);
      work += drain(p);
      if (p.hasWork() || p.link != null && !closing && p.link.owed >= creditThreshold) {
        active.set(kept++, p);
      } else {
        p.active = false;
      }
    }
    for (int i = active.size() - 1; i >= kept; i--) {
      active.remove(i);
    }
    return work;
  }

  /** A send or RDMA operation posted on {@code l} has completed (DC: frees room on its DCI). */
  void completed(Link l) {
    if (l.ah != null) {
      dciInFlight[l.peer % dciInFlight.length]--;
    }
  }

  /** @return whether {@code l} may post one more WR now (DC: its DCI's queue has room) */
  private boolean room(Link l) {
    return l.ah == null || dciInFlight[l.peer % dciInFlight.length] < conn.dciDepth;
  }

  /** Posts {@link #swr} on {@code l}, addressed to the peer's DC target when the link is DC. */
  private void post(Link l) {
    if (l.ah != null) {
      swr.dc(l.ah, l.dctn, Connections.DC_KEY);
      dciInFlight[l.peer % dciInFlight.length]++;
    }
    l.qp.postSend(swr);
  }

  /**
   * Posts what waits for peer {@code p} as far as credits, slots and the RDMA window allow, on an
   * open link; asks for a link when there is none, and sends CLOSE once a closing link is drained.
   */
  int drain(Peer p) {
    switch (p.state) {
      case OPEN -> {
        return drainOpen(p, p.link);
      }
      case DRAINING -> {
        Link l = p.link;
        if (l.rdmaInFlight > 0 || !l.sendsDone() || !trySend(p, l, CLOSE)) {
          return 0; // CLOSE goes behind everything sent on the link, once there is a slot for it
        }
        if (cm != null) {
          cm.closeSent(p);
        } else {
          p.state = Peer.State.CLOSE_SENT; // hybrid: a pair going back to DC ({@link HybridSwitch})
        }
        return 1;
      }
      case IDLE -> {
        if (conn.dcis != null && p.hasWork()) {
          return drainOpen(p, conn.openDcLink(p)) + 1;
        }
        if (cm != null && p.hasWork()) {
          return cm.want(p) ? 1 : 0;
        }
        return 0;
      }
      default -> {
        return 0;
      }
    }
  }

  private int drainOpen(Peer p, Link l) {
    int work = 0;
    while (l.rdmaInFlight < RDMA_IN_FLIGHT && !p.pendingRdma.isEmpty() && room(l)) {
      postRdma(p, l, p.pendingRdma.pollFirst());
      work++;
    }
    while (!p.pending.isEmpty() && trySend(p, l, p.pending.peekFirst())) {
      p.pending.pollFirst();
      work++;
    }
    if (!closing && l.owed >= creditThreshold && !l.freeSendSlots.isEmpty()) {
      trySend(p, l, new Outgoing(Wire.CREDIT, 0, 0, 0, 0, 0, 0, 0, null));
      work++;
    }
    return work;
  }

  /**
   * Posts a hybrid marker on the DC link {@code dc} ({@link HybridSwitch}): SWITCH and SWITCH_ACK
   * carry the address of this rank's RC QP {@code rc}.
   *
   * @return whether it was posted (else a send slot or room on the DCI is missing: try again)
   */
  boolean sendMarker(Peer p, Link dc, int kind, Link rc) {
    Outgoing o = rc == null ? new Outgoing(kind, 0, 0, 0, 0, 0, 0, 0, null)
        : new Outgoing(kind, 0, rc.qp.qpNum(), conn.psn, conn.lid, conn.outReads, 0, conn.mtu, null);
    return trySend(p, dc, o);
  }

  /** Posts {@code o}, a hybrid marker, on the DC link {@code dc}; false if it must wait. */
  boolean sendMarker(Peer p, Link dc, Outgoing o) {
    return trySend(p, dc, o);
  }

  private boolean trySend(Peer p, Link l, Outgoing o) {
    boolean free = o.kind >= Wire.CREDIT; // CREDIT, CLOSE and the hybrid's markers use the reserved slots
    if (!free && l.credits == 0) {
      return false;
    }
    Integer slot = l.freeSendSlots.pollFirst();
    if (slot == null) {
      return false;
    }
    if (!room(l)) {
      l.freeSendSlots.addFirst(slot);
      return false;
    }
    ByteBuffer ring = l.ring;
    int at = l.sendBase + slot * slotSize;
    int payload = o.kind == Wire.EAGER ? o.length : 0;
    Wire.write(ring, at, o.kind, o.context, l.owed, o.tag, o.length, o.senderId, o.receiverId, o.addr, o.rkey,
        rank);
    l.owed = 0;
    if (payload > 0) {
      ring.put(at + Wire.HEADER_LENGTH, o.eager.buffer, o.eager.buffer.position(), payload);
    }
    swr.wrId(wrId(WR_SEND, l.epoch, p.rank, slot)).opcode(WrOpcode.SEND)
        .sge(l.ringMr, at, Wire.HEADER_LENGTH + payload).signaled(true);
    if (l.remoteRing != 0 && !free) { // hybrid, DC RDMA: into the next slot of the ring the peer gave us
      int r = l.nextRemoteSlot;
      l.nextRemoteSlot = (r + 1) % slots;
      swr.opcode(WrOpcode.RDMA_WRITE_WITH_IMM).rdma(l.remoteRing + (long) r * slotSize, l.remoteRkey)
          .immData(HybridSwitch.ringImm(l.remoteRingIndex, r));
    }
    post(l);
    if (!free) {
      l.credits--;
    }
    if (o.eager != null) {
      o.eager.complete(new Status(p.rank, o.tag, payload));
    }
    return true;
  }

  private void postRdma(Peer p, Link l, Transfer t) {
    int id = t.request.id;
    swr.wrId(wrId(WR_RDMA, l.epoch, p.rank, id)).opcode(t.read ? WrOpcode.RDMA_READ : WrOpcode.RDMA_WRITE)
        .rdma(t.remoteAddr, t.remoteRkey).signaled(true);
    swr.sgList().numSge(1);
    swr.sgList().sge(0).set(t.localAddr, t.length, t.lkey);
    post(l);
    l.rdmaInFlight++;
    rdma.put(id, t.request);
    if (!t.read) {
      // FIN follows the WRITE on the same QP, so the receiver sees it only after the data is placed.
      p.pending.addLast(new Outgoing(Wire.FIN, t.request.context, t.tag, t.length, 0, t.remoteId, 0, 0, null));
    }
  }
}
