package io.github.verbs4j.tca.verbs;

import io.github.verbs4j.tca.peach2.TcaMallocPool;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.spi.RecvWqe;
import io.github.verbs4j.verbs.spi.SoftMemoryRegion;

/**
 * The target's rendezvous messages of one QP: those it answered with CTS and whose FIN it has not
 * taken yet (at most {@link #WINDOW}, consecutive PSNs from the responder's expected PSN, in PSN
 * order), and at most one RTS that arrived while earlier ones were granted and could not be granted
 * (no receive WQE, a bad key or length): it is <em>held</em> and judged again when those before it
 * have finished, so its NAK (RNR or fatal) comes after them, as an InfiniBand responder checks each
 * request only once every earlier one is done, and a NAK still acknowledges everything before it.
 *
 * <p>Each grant keeps, from its CTS to its FIN (or a flush), the receive WQE it took, the region it
 * holds and the bounce buffer it allocated: the requester may DMA into a granted destination until
 * then, and into nothing else. Runs under the QP's lock; allocates only bounce buffers.
 */
final class RendezvousTarget {
  /**
   * Rendezvous messages a requester has waiting for their CTS and a target grants at once per QP:
   * enough that the target's CTS for the next message comes back while the requester still moves
   * the data of the previous ones, so both proxies copy at the same time; small, since each grant
   * may hold a bounce buffer as long as its message.
   */
  static final int WINDOW = 4;

  /** One rendezvous message at the target. */
  static final class Grant {
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
      state = 0;
    }
  }

  private final Grant[] ring = new Grant[WINDOW];
  private int first;
  private int count;
  /** The spare slot: a held RTS when {@link #held} points at it. */
  private Grant spare = new Grant();
  private Grant held;

  RendezvousTarget() {
    for (int i = 0; i < ring.length; i++) {
      ring[i] = new Grant();
    }
  }

  /** @return granted messages waiting for their FIN */
  int granted() {
    return count;
  }

  /** @return whether an RTS may be granted now (room, and no held RTS before it) */
  boolean mayGrant() {
    return count < WINDOW && held == null;
  }

  /** @return the slot the next grant fills (its receive WQE is taken into it); not yet counted */
  Grant next() {
    return ring[(first + count) % WINDOW];
  }

  /** Counts {@link #next()} as granted. */
  void grant(Grant g) {
    g.state = Grant.GRANTED;
    count++;
  }

  /** @return the oldest granted message, or null */
  Grant oldest() {
    return count == 0 ? null : ring[first];
  }

  /** @return the granted message of that PSN, or null */
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
    ring[first].state = 0;
    first = (first + 1) % WINDOW;
    count--;
  }

  /**
   * Holds the RTS that {@link #next()} was filled for: it and the receive WQE taken into it, if any.
   *
   * @param p the RTS
   */
  void hold(Packet p) {
    int at = (first + count) % WINDOW;
    Grant g = ring[at];
    g.releaseRegion();
    ring[at] = spare;
    spare = g;
    g.state = Grant.HELD;
    g.rts.copyFrom(p);
    held = g;
  }

  /** @return the held RTS when no message before it waits any more, or null */
  Grant heldDue() {
    return count == 0 ? held : null;
  }

  /** Makes the held RTS the {@link #next()} slot again (with the receive WQE it took), to be judged now. */
  void unhold() {
    int at = (first + count) % WINDOW;
    Grant g = ring[at];
    ring[at] = held;
    spare = g;
    held.state = 0;
    held = null;
  }

  /**
   * Flushes the receive WQEs the grants and the held RTS took, in PSN order, and releases all.
   *
   * @param flush scratch completion
   * @param qp the QP
   * @return completions pushed
   */
  int flush(WorkCompletion flush, TcaQueuePair qp) {
    int n = 0;
    for (int i = 0; i < count; i++) {
      n += flush(ring[(first + i) % WINDOW], flush, qp);
    }
    if (held != null) {
      n += flush(held, flush, qp);
    }
    release();
    return n;
  }

  private static int flush(Grant g, WorkCompletion flush, TcaQueuePair qp) {
    if (!g.hasRecv) {
      return 0;
    }
    flush.reset(g.recv.wrId(), WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, qp.qpNum());
    qp.rcq().push(flush, false);
    return 1;
  }

  /** Returns every grant's pool memory and region; forgets the held RTS. */
  void release() {
    for (Grant g : ring) {
      g.release();
    }
    spare.release();
    first = 0;
    count = 0;
    held = null;
  }
}
