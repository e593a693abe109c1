package io.github.verbs4j.examples.mp;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.spi.MemoryComponent;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.EnumSet;
import java.util.Set;

/**
 * The eager rings of a rank's RC links, with a few spares (issue #20): a closed link's ring, its
 * memory and its registration, waits here for the next link instead of being deregistered, so that
 * a rank that keeps opening and closing links allocates no direct memory in steady state. (A ring
 * is read and written through a view of its region, so deregistering it leaves the memory to a
 * GC; at the direct-memory limit every new ring then forced a full one.) At most {@link #maxSpares}
 * wait; a ring beyond them is deregistered. A spare is memory the rank holds: it stays counted in
 * {@code mp-buffers} (its registration in {@code mr}, by the provider) until it is deregistered.
 *
 * <p>Reuse is safe because a ring comes back only after its link's QP is destroyed, and its
 * registration grants no remote access. The QP's posted receives are the only work requests that
 * name the ring's lkey, and destroying the QP stops its responder: once the close returns no SEND
 * of the old epoch is being placed, and later ones find no QP. The rkey opens nothing: an RDMA
 * WRITE carrying it fails with a remote access error in any epoch, so keeping the keys across
 * epochs gives a late write no way in. A region with remote access is never taken back (its rkey
 * may be in a peer's hands; that would need new keys): it is deregistered.
 */
final class RingPool implements AutoCloseable {
  /** What a ring's registration allows: local writes (receives into it) and nothing remote. */
  static final Set<Access> ACCESS = EnumSet.of(Access.LOCAL_WRITE);

  /** A registered ring and the view the rank reads and writes it through (little-endian). */
  record Ring(MemoryRegion mr, ByteBuffer view) {}

  private final ProtectionDomain pd;
  private final MpMemory memory;
  private final long bytes;
  private final int maxSpares;
  private final ArrayDeque<Ring> spares;
  /** Rings registered so far, over the communicator's life. */
  private long allocated;
  private boolean closed;

  /**
   * @param pd where rings are registered
   * @param memory the layer's meters
   * @param bytes the length of a ring
   * @param maxSpares the most spares kept (0: none)
   */
  RingPool(ProtectionDomain pd, MpMemory memory, long bytes, int maxSpares) {
    this.pd = pd;
    this.memory = memory;
    this.bytes = bytes;
    this.maxSpares = maxSpares;
    this.spares = new ArrayDeque<>(Math.max(1, maxSpares));
  }

  /**
   * @param gamma the links a rank opens itself (on demand)
   * @return the spares a rank keeps: a quarter of γ, at least one
   */
  static int maxSpares(int gamma) {
    return Math.max(1, gamma / 4);
  }

  /** @return a ring for a new link: a spare if there is one, else newly registered memory */
  Ring take() {
    Ring r = spares.pollLast();
    if (r != null) {
      return r;
    }
    MemoryRegion mr = pd.allocateMemory(bytes, ACCESS);
    r = new Ring(mr, mr.buffer().order(ByteOrder.LITTLE_ENDIAN));
    allocated++;
    memory.add(r.view(), MemoryComponent.MP_BUFFERS, bytes); // keyed by the view: the provider keys the MR
    return r;
  }

  /**
   * Takes back the ring of a closed link; it is kept as a spare only if {@code qpDestroyed} (its
   * link's QP is destroyed), it grants no remote access, and there is room; else it is
   * deregistered.
   *
   * @param r the ring
   * @param qpDestroyed whether the QP that received into it is destroyed
   */
  void give(Ring r, boolean qpDestroyed) {
    if (qpDestroyed && !closed && spares.size() < maxSpares && r.mr().access().equals(ACCESS)) {
      spares.addLast(r);
      return;
    }
    memory.release(r.view());
    r.mr().close();
  }

  /** @return spares held now */
  int spares() {
    return spares.size();
  }

  /** @return rings registered so far */
  long allocated() {
    return allocated;
  }

  /** Deregisters the spares; rings given back later are deregistered at once. */
  @Override
  public void close() {
    closed = true;
    RuntimeException failure = null;
    for (Ring r = spares.pollFirst(); r != null; r = spares.pollFirst()) {
      memory.release(r.view());
      try {
        r.mr().close();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
