package io.github.verbs4j.verbs.conformance;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SharedReceiveQueue;
import io.github.verbs4j.verbs.SrqAttr;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;

/**
 * RC QPs sharing one SRQ, like pyverbs' {@code SRQResources}: a PD, one CQ, an SRQ with a receive
 * region of {@code slots × msgSize} bytes, and {@code qpCount} {@link RcResources} on that PD, CQ
 * and SRQ (each with its own send region). {@link #connect()} connects QP i to the peer's QP i.
 *
 * <pre>{@code
 * try (SrqResources s = new SrqResources(p, SrqResources.options().qpCount(2)).connect()) {
 *   s.postSrqRecv(1);
 *   ...
 * }
 * }</pre>
 */
public final class SrqResources implements AutoCloseable {
  /** Creation parameters; every setter returns this. */
  public static final class Options {
    private int qpCount = 2;
    private int srqMaxWr = 1000;
    private int msgSize = RcResources.DEFAULT_MSG_SIZE;
    private int slots = 16;
    private int cqDepth = 1000;

    private Options() {}

    /**
     * Sets {@code qpCount}.
     *
     * @param n number of RC QPs on the SRQ
     * @return this
     */
    public Options qpCount(int n) {
      qpCount = n;
      return this;
    }

    /**
     * Sets {@code srqMaxWr}.
     *
     * @param n the SRQ's max_wr (capped at the device's max_srq_wr)
     * @return this
     */
    public Options srqMaxWr(int n) {
      srqMaxWr = n;
      return this;
    }

    /**
     * Sets {@code msgSize}.
     *
     * @param n message size
     * @return this
     */
    public Options msgSize(int n) {
      msgSize = n;
      return this;
    }

    /**
     * Sets {@code slots}.
     *
     * @param n receive buffers in the SRQ's region
     * @return this
     */
    public Options slots(int n) {
      slots = n;
      return this;
    }

    /**
     * Sets {@code cqDepth}.
     *
     * @param n CQ depth
     * @return this
     */
    public Options cqDepth(int n) {
      cqDepth = n;
      return this;
    }
  }

  /** @return two QPs, max_wr 1000, 1 KiB messages */
  public static Options options() {
    return new Options();
  }

  private final Closer closer = new Closer();
  private final Options o;
  private final ProtectionDomain pd;
  private final CompletionQueue cq;
  private final SharedReceiveQueue srq;
  private final MemoryRegion recvMr;
  private final List<RcResources> qps = new ArrayList<>();

  /**
   * Creates the PD, CQ, SRQ, receive region and the QPs (in RESET).
   *
   * @param peer this rank
   * @param options parameters
   */
  public SrqResources(Peer peer, Options options) {
    this.o = options;
    try {
      pd = closer.add(peer.ctx().allocPd());
      cq = closer.add(peer.ctx().createCq(options.cqDepth, null, 0));
      int maxWr = Math.min(options.srqMaxWr, peer.ctx().queryDevice().maxSrqWr());
      srq = closer.add(pd.createSrq(SrqAttr.of(maxWr, 1)));
      recvMr = closer.add(pd.allocateMemory((long) options.slots * options.msgSize, EnumSet.of(Access.LOCAL_WRITE)));
      for (int i = 0; i < options.qpCount; i++) {
        qps.add(closer.add(new RcResources(peer, RcResources.options().pd(pd).cq(cq).srq(srq)
            .msgSize(options.msgSize))));
      }
    } catch (RuntimeException e) {
      try {
        closer.close();
      } catch (RuntimeException c) {
        e.addSuppressed(c);
      }
      throw e;
    }
  }

  /** @return this, after connecting QP i to the peer's QP i, for every i */
  public SrqResources connect() {
    for (RcResources r : qps) {
      r.connect();
    }
    return this;
  }

  /**
   * Posts one receive of {@code msgSize} bytes into slot {@code wrId % slots} of the SRQ's region.
   *
   * @param wrId the WR id
   */
  public void postSrqRecv(long wrId) {
    srq.postRecv(new RecvWr().wrId(wrId).sge(recvMr, (wrId % o.slots) * o.msgSize, o.msgSize));
  }

  /** @return the offset in {@link #recvMr()} where receive {@code wrId} lands */
  public int slotOffset(long wrId) {
    return (int) ((wrId % o.slots) * o.msgSize);
  }

  /** @return the PD */
  public ProtectionDomain pd() {
    return pd;
  }

  /** @return the CQ every QP completes into */
  public CompletionQueue cq() {
    return cq;
  }

  /** @return the SRQ */
  public SharedReceiveQueue srq() {
    return srq;
  }

  /** @return the SRQ's receive region */
  public MemoryRegion recvMr() {
    return recvMr;
  }

  /** @return the QPs, in creation order */
  public List<RcResources> qps() {
    return Collections.unmodifiableList(qps);
  }

  /** @return QP {@code i} */
  public RcResources qp(int i) {
    return qps.get(i);
  }

  /** Closes the QPs, the region, the SRQ, the CQ and the PD. */
  @Override
  public void close() {
    closer.close();
  }
}
