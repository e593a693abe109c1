package io.github.verbs4j.tca.verbs;

import io.github.verbs4j.tca.peach2.TcaMallocPool;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.spi.RecvWqe;
import io.github.verbs4j.verbs.spi.SoftMemoryRegion;

/**
 * The target's rendezvous messages of one QP, in PSN order from the responder's expected PSN (at
 * most {@link #WINDOW}): first those it answered with CTS and whose FIN it has not taken yet
 * (<em>granted</em>), then RTSs it could not grant while earlier messages were granted (no receive
 * WQE, a bad key or length) and those that came behind them (<em>held</em>). The first held RTS is
 * judged again when every message before it has finished, as an InfiniBand responder checks a
 * request only once the earlier ones are done: granted, or NAKed (RNR or fatal) so that the NAK
 * still acknowledges everything before it; the held RTSs behind a NAKed one are dropped (the
 * requester sends them again from the NAKed one).
 *
 * <p>Each grant keeps, from its CTS to its FIN (or a flush), the receive WQE it took, the region it
 * holds and the bounce buffer it allocated: the requester may DMA into a granted destination until
 * then, and into nothing else. Runs under the QP's lock; allocates only bounce buffers.
 */
final class RendezvousTarget {
  /**
   * Rendezvous messages a requester has waiting for their CTS and a target keeps at once per QP:
   * enough that the target's CTS for the next message comes back while the requester still moves
   * the data of the previous ones, so both proxies copy at the same time; small, since each grant
   * may hold a bounce buffer as long as its message.
   */
  static final int WINDOW = 4;

  /** One rendezvous message at the target. */
  static final class Grant {
    /** A free slot. */
    static final int FREE = 0;
    /** Answered with CTS; waits for its FIN. */
    static final int GRANTED = 1;
    /** Not grantable while earlier messages were granted: judged again when they finish. */
    static final int HELD = 2;

    int state;
    int psn;
    /** The receive WQE it took (SEND, WRITE with immediate), when {@link #hasRecv}. */
    final RecvWqe recv = new RecvWqe();
    boolean hasRecv;
    boolean write;
    boolean imm;
    int immData;
    boolean solicited;
    int length;
    long addr;
    /** The region a WRITE holds from RTS to FIN, or null. */
    SoftMemoryRegion mr;
    /** Pool memory the data lands in when it cannot go to its destination directly, or null. */
    TcaMallocPool.Block bounce;
    /** Where the CTS told the requester to write. */
    long dst;
    /** A held RTS's header, for judging it later. */
    final Packet rts = new Packet();

    /** Lets go of the region a WRITE held. */
    void releaseRegion() {
      if (mr != null) {
        ((TcaMemoryRegion) mr).release();
        mr = null;
      }
    }

    /** Returns its bounce buffer and region; its receive WQE stays readable. */
    private void freeMemory() {
      if (bounce != null) {
        bounce.free();
        bounce = null;
      }
      releaseRegion();
    }

    private void release() {
      freeMemory();
      hasRecv = false;
      state = FREE;
    }
  }

  private final Grant[] ring = new Grant[WINDOW];
  /**
   * UC: the receive WQE a lost message took; the next message uses it before the receive queue, as
   * a UC responder reuses the WQE of a message it dropped (IBA 9.8.3).
   */
  private final RecvWqe spare = new RecvWqe();
  private boolean hasSpare;
  private int first;
  /** Messages kept: the granted ones, then the held ones. */
  private int count;
  private int granted;

  RendezvousTarget() {
    for (int i = 0; i < ring.length; i++) {
      ring[i] = new Grant();
    }
  }

  /** @return granted messages waiting for their FIN */
  int granted() {
    return granted;
  }

  /** @return messages kept, granted and held: the next RTS's PSN is this far from the expected PSN */
  int kept() {
    return count;
  }

  /** @return whether an RTS may be judged on arrival (room, and no held RTS before it) */
  boolean mayGrant() {
    return count < WINDOW && count == granted;
  }

  /**
   * @return the slot {@link Responder} judges an RTS in: the first held RTS when there is one (with
   *     the receive WQE it took, if any), else a free slot for an arriving RTS
   */
  Grant judging() {
    Grant g = ring[(first + granted) % WINDOW];
    if (count == granted) {
      g.state = Grant.FREE;
      g.hasRecv = false;
    }
    return g;
  }

  /** The message in {@link #judging()} is granted (its CTS goes now). */
  void grant(Grant g) {
    if (g.state != Grant.HELD) {
      count++;
    }
    g.state = Grant.GRANTED;
    granted++;
  }

  /**
   * The RTS in {@link #judging()} cannot be granted while earlier messages are: it is held (with the
   * receive WQE it took, if any).
   */
  void hold(Grant g, Packet p) {
    if (g.state != Grant.HELD) {
      g.rts.copyFrom(p);
      g.psn = p.psn;
      g.state = Grant.HELD;
      count++;
    }
  }

  /**
   * The RTS in {@link #judging()} was refused (NAKed): the RTSs held behind it are dropped too.
   */
  void refuse(Grant g) {
    if (g.state == Grant.HELD) {
      for (int i = granted; i < count; i++) {
        Grant h = ring[(first + i) % WINDOW];
        h.state = Grant.FREE;
        h.hasRecv = false;
      }
      count = granted;
    }
  }

  /**
   * An RTS after a held one waits behind it, taking nothing.
   *
   * @return false if there is no room (it is discarded)
   */
  boolean queue(Packet p) {
    if (count == granted || count == WINDOW) {
      return false;
    }
    Grant g = ring[(first + count) % WINDOW];
    g.rts.copyFrom(p);
    g.psn = p.psn;
    g.state = Grant.HELD;
    g.hasRecv = false;
    count++;
    return true;
  }

  /** @return the first held RTS, or null */
  Grant firstHeld() {
    return count > granted ? ring[(first + granted) % WINDOW] : null;
  }

  /** @return the first held RTS when every message before it has finished, or null */
  Grant heldDue() {
    return granted == 0 ? firstHeld() : null;
  }

  /** @return the oldest granted message, or null */
  Grant oldest() {
    return granted == 0 ? null : ring[first];
  }

  /** @return the message kept (granted or held) of that PSN, or null */
  Grant find(int psn) {
    for (int i = 0; i < count; i++) {
      Grant g = ring[(first + i) % WINDOW];
      if (g.psn == psn) {
        return g;
      }
    }
    return null;
  }

  /**
   * The oldest granted message finished (or failed): its memory goes back; its receive WQE stays
   * readable until the next grant.
   */
  void removeOldest() {
    ring[first].freeMemory();
    ring[first].state = Grant.FREE;
    first = (first + 1) % WINDOW;
    count--;
    granted--;
  }

  /**
   * UC: the first packet of a newer message came while these messages were kept. Their requester
   * gave up on them (no CTS in time) and sends no FIN: they are lost (IBA 9.8.3, as a partial UC
   * message ends when a new one starts). Their memory goes back, so a late FIN finds no grant; the
   * receive WQE the oldest took serves the next message ({@link #takeSpare}). A UC QP keeps one
   * message at most, and it took a receive WQE only if no spare one waited.
   */
  void abandon() {
    for (int i = 0; i < count && !hasSpare; i++) {
      Grant g = ring[(first + i) % WINDOW];
      if (g.hasRecv) {
        spare.copyFrom(g.recv);
        hasSpare = true;
      }
    }
    releaseGrants();
  }

  /**
   * @param into receives the receive WQE of a lost UC message, if there is one
   * @return whether there was one (it is taken)
   */
  boolean takeSpare(RecvWqe into) {
    if (!hasSpare) {
      return false;
    }
    hasSpare = false;
    into.copyFrom(spare);
    return true;
  }

  /**
   * Flushes the spare receive WQE and those the messages kept took, in PSN order, and releases all.
   *
   * @param flush scratch completion
   * @param qp the QP
   * @return completions pushed
   */
  int flush(WorkCompletion flush, TcaQueuePair qp) {
    int n = 0;
    if (hasSpare) {
      flush.reset(spare.wrId(), WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, qp.qpNum());
      qp.rcq().push(flush, false);
      n++;
    }
    for (int i = 0; i < count; i++) {
      Grant g = ring[(first + i) % WINDOW];
      if (g.hasRecv) {
        flush.reset(g.recv.wrId(), WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, qp.qpNum());
        qp.rcq().push(flush, false);
        n++;
      }
    }
    release();
    return n;
  }

  /** Returns every grant's pool memory and region; forgets the held RTSs and the spare receive WQE. */
  void release() {
    releaseGrants();
    hasSpare = false;
  }

  private void releaseGrants() {
    for (Grant g : ring) {
      g.release();
    }
    first = 0;
    count = 0;
    granted = 0;
  }
}
