package io.github.verbs4j.verbs.conformance;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.CompletionChannel;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.Mtu;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.SharedReceiveQueue;
import io.github.verbs4j.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * An RC connection end, like pyverbs' {@code RCResources} (tests/base.py): a PD, a CQ (or a send
 * and a receive CQ), one memory region, an RC QP, the connection data exchanged with the peer, and
 * the bring-up RESET→INIT→RTR→RTS with pyverbs' defaults (PATH_MTU 1024, timeout 14, retry_cnt 7,
 * rnr_retry 7, min_rnr_timer 12, max_(dest_)rd_atomic 1, random 24-bit PSN; CQ depth and
 * max_send/recv_wr 1000). Every default can be overridden through {@link Options}.
 *
 * <p>Memory layout: the region holds {@code 2 * msgSize} bytes by default; {@code [0, msgSize)}
 * is the send area and the RDMA target the peer is given ({@link Remote#addr()} is the region's
 * {@link MemoryRegion#iova()}: its address, or 0 for a ZERO_BASED region), {@code [msgSize, 2 * msgSize)} is the receive area of {@link #postRecv(long)}.
 *
 * <pre>{@code
 * public void writeBody(Peer p) {
 *   try (RcResources r = new RcResources(p, RcResources.options().msgSize(4096)).connect()) {
 *     if (p.rank() == 0) {
 *       r.qp().postSend(r.write(1, 4096));
 *       KitAssertions.assertWc(p.pollOne(r.cq()), 1, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, r.qp().qpNum());
 *     }
 *     p.barrier("written");
 *   }
 * }
 * }</pre>
 *
 * <p>Both ranks must create their fixtures in the same order: the exchange names come from {@link
 * Peer#uniqueName(String)}. {@link #close()} closes the QP, the region, the CQs and the PD in that
 * order (objects passed in through {@link Options} are not closed).
 */
public final class RcResources implements AutoCloseable {
  /** What pyverbs sends by default. */
  public static final int DEFAULT_MSG_SIZE = 1024;

  /** Connection data of the peer's end. */
  public record Remote(int lid, int qpn, int psn, int rkey, long addr, long length) {}

  /** Creation and bring-up parameters; every setter returns this. */
  public static final class Options {
    private int msgSize = DEFAULT_MSG_SIZE;
    private long mrSize = -1;
    private int cqDepth = 1000;
    private QpCap cap = QpCap.DEFAULT;
    private Set<Access> mrAccess = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);
    private Set<Access> qpAccess = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);
    private Mtu pathMtu = Mtu.MTU_1024;
    private int timeout = 14;
    private int retryCnt = 7;
    private int rnrRetry = 7;
    private int minRnrTimer = 12;
    private int maxRdAtomic = 1;
    private int maxDestRdAtomic = 1;
    private int psn = -1;
    private boolean separateCqs;
    private boolean sqSigAll;
    private CompletionChannel channel;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private SharedReceiveQueue srq;

    private Options() {}

    /**
     * Sets {@code msgSize}.
     *
     * @param n message size, bytes
     * @return this
     */
    public Options msgSize(int n) {
      msgSize = n;
      return this;
    }

    /**
     * Sets {@code mrSize}.
     *
     * @param n region size, bytes (default 2 × msgSize)
     * @return this
     */
    public Options mrSize(long n) {
      mrSize = n;
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

    /**
     * Sets {@code cap}.
     *
     * @param c requested QP capacities
     * @return this
     */
    public Options cap(QpCap c) {
      cap = c;
      return this;
    }

    /**
     * Sets {@code mrAccess}.
     *
     * @param a the region's access flags
     * @return this
     */
    public Options mrAccess(Set<Access> a) {
      mrAccess = a;
      return this;
    }

    /**
     * Sets {@code qpAccess}.
     *
     * @param a the QP's access flags (qp_access_flags)
     * @return this
     */
    public Options qpAccess(Set<Access> a) {
      qpAccess = a;
      return this;
    }

    /**
     * Sets {@code pathMtu}.
     *
     * @param m path MTU
     * @return this
     */
    public Options pathMtu(Mtu m) {
      pathMtu = m;
      return this;
    }

    /**
     * Sets {@code timeout}.
     *
     * @param t local ACK timeout code (4.096 µs × 2^t)
     * @return this
     */
    public Options timeout(int t) {
      timeout = t;
      return this;
    }

    /**
     * Sets {@code retryCnt}.
     *
     * @param n transport retries
     * @return this
     */
    public Options retryCnt(int n) {
      retryCnt = n;
      return this;
    }

    /**
     * Sets {@code rnrRetry}.
     *
     * @param n RNR retries (7 = infinite)
     * @return this
     */
    public Options rnrRetry(int n) {
      rnrRetry = n;
      return this;
    }

    /**
     * Sets {@code minRnrTimer}.
     *
     * @param code the RNR timer this end advertises as responder
     * @return this
     */
    public Options minRnrTimer(int code) {
      minRnrTimer = code;
      return this;
    }

    /**
     * Sets {@code maxRdAtomic}.
     *
     * @param n initiator depth
     * @return this
     */
    public Options maxRdAtomic(int n) {
      maxRdAtomic = n;
      return this;
    }

    /**
     * Sets {@code maxDestRdAtomic}.
     *
     * @param n responder resources
     * @return this
     */
    public Options maxDestRdAtomic(int n) {
      maxDestRdAtomic = n;
      return this;
    }

    /**
     * Sets {@code psn}.
     *
     * @param p this end's initial 24-bit PSN (default random)
     * @return this
     */
    public Options psn(int p) {
      psn = p;
      return this;
    }

    /**
     * Sets {@code separateCqs}.
     *
     * @param on a send CQ and a receive CQ instead of one
     * @return this
     */
    public Options separateCqs(boolean on) {
      separateCqs = on;
      return this;
    }

    /**
     * Sets {@code sqSigAll}.
     *
     * @param on signal every send WR
     * @return this
     */
    public Options sqSigAll(boolean on) {
      sqSigAll = on;
      return this;
    }

    /**
     * Sets {@code channel}.
     *
     * @param ch a completion channel for the CQ(s) this fixture creates
     * @return this
     */
    public Options channel(CompletionChannel ch) {
      channel = ch;
      return this;
    }

    /**
     * Sets {@code pd}.
     *
     * @param shared use this PD (not closed by the fixture)
     * @return this
     */
    public Options pd(ProtectionDomain shared) {
      pd = shared;
      return this;
    }

    /**
     * Sets {@code cq}.
     *
     * @param shared use this CQ for sends and receives (not closed by the fixture)
     * @return this
     */
    public Options cq(CompletionQueue shared) {
      cq = shared;
      return this;
    }

    /**
     * Sets {@code srq}.
     *
     * @param shared attach the QP to this SRQ (not closed by the fixture)
     * @return this
     */
    public Options srq(SharedReceiveQueue shared) {
      srq = shared;
      return this;
    }
  }

  /** @return pyverbs' defaults */
  public static Options options() {
    return new Options();
  }

  private final Peer peer;
  private final Options o;
  private final Closer closer = new Closer();
  private final ProtectionDomain pd;
  private final CompletionQueue sendCq;
  private final CompletionQueue recvCq;
  private final MemoryRegion mr;
  private final QueuePair qp;
  private int psn;
  private Remote remote;

  /**
   * Creates the PD, CQ(s), region and QP (in RESET).
   *
   * @param peer this rank
   * @param options parameters
   */
  public RcResources(Peer peer, Options options) {
    this.peer = peer;
    this.o = options;
    this.psn = options.psn >= 0 ? options.psn : ThreadLocalRandom.current().nextInt(1 << 24);
    try {
      pd = options.pd != null ? options.pd : closer.add(peer.ctx().allocPd());
      if (options.cq != null) {
        sendCq = options.cq;
        recvCq = options.cq;
      } else {
        sendCq = closer.add(peer.ctx().createCq(options.cqDepth, options.channel, 0));
        recvCq = options.separateCqs ? closer.add(peer.ctx().createCq(options.cqDepth, options.channel, 0)) : sendCq;
      }
      long size = options.mrSize > 0 ? options.mrSize : 2L * Math.max(options.msgSize, 8);
      mr = closer.add(pd.allocateMemory(size, options.mrAccess));
      qp = closer.add(pd.createQp(QpInitAttr.builder(QpType.RC).sendCq(sendCq).recvCq(recvCq).srq(options.srq)
          .cap(options.cap).sqSigAll(options.sqSigAll).build()));
    } catch (RuntimeException e) {
      closeAfter(e);
      throw e;
    }
  }

  private void closeAfter(RuntimeException e) {
    try {
      closer.close();
    } catch (RuntimeException c) {
      e.addSuppressed(c);
    }
  }

  /** @return the protection domain */
  public ProtectionDomain pd() {
    return pd;
  }

  /** @return the send CQ (the only CQ unless {@link Options#separateCqs}) */
  public CompletionQueue cq() {
    return sendCq;
  }

  /** @return the send CQ */
  public CompletionQueue sendCq() {
    return sendCq;
  }

  /** @return the receive CQ */
  public CompletionQueue recvCq() {
    return recvCq;
  }

  /** @return the memory region */
  public MemoryRegion mr() {
    return mr;
  }

  /** @return a view of the region's memory */
  public ByteBuffer buffer() {
    return mr.buffer();
  }

  /** @return the QP */
  public QueuePair qp() {
    return qp;
  }

  /** @return the message size */
  public int msgSize() {
    return o.msgSize;
  }

  /** @return the offset of the receive area in the region */
  public int recvOffset() {
    return o.msgSize;
  }

  /** @return this end's initial PSN */
  public int psn() {
    return psn;
  }

  /**
   * Changes this end's initial PSN; call before {@link #exchangeInfo()} (e.g. before restating).
   *
   * @param p the 24-bit PSN
   * @return this
   */
  public RcResources psn(int p) {
    psn = p & 0xFFFFFF;
    return this;
  }

  /** @return the peer's connection data (after {@link #exchangeInfo()}) */
  public Remote remote() {
    if (remote == null) {
      throw new IllegalStateException("exchangeInfo() was not called");
    }
    return remote;
  }

  /**
   * Swaps LID, QPN, PSN, rkey, address and length with the peer's fixture made in the same order.
   *
   * @return this
   */
  public RcResources exchangeInfo() {
    long[] t = peer.exchange(peer.uniqueName("rc"), peer.ctx().queryPort(1).lid(), qp.qpNum(), psn, mr.rkey(),
        mr.iova(), mr.length());
    remote = new Remote((int) t[0], (int) t[1], (int) t[2], (int) t[3], t[4], t[5]);
    return this;
  }

  /** @return this, after RESET→INIT with PKEY_INDEX 0, PORT 1 and the QP access flags */
  public RcResources toInit() {
    qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(o.qpAccess));
    return this;
  }

  /** @return this, after INIT→RTR towards the peer (rq_psn = the peer's PSN) */
  public RcResources toRtr() {
    Remote r = remote();
    qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(o.pathMtu).destQpNum(r.qpn()).rqPsn(r.psn())
        .maxDestRdAtomic(o.maxDestRdAtomic).minRnrTimer(o.minRnrTimer).ahAttr(AhAttr.lid(r.lid())));
    return this;
  }

  /** @return this, after RTR→RTS (sq_psn = this end's PSN) */
  public RcResources toRts() {
    qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(psn).timeout(o.timeout).retryCnt(o.retryCnt)
        .rnrRetry(o.rnrRetry).maxRdAtomic(o.maxRdAtomic));
    return this;
  }

  /** @return this, after {@link #exchangeInfo()} and RESET→INIT→RTR→RTS */
  public RcResources connect() {
    return exchangeInfo().toInit().toRtr().toRts();
  }

  /**
   * pyverbs' {@code restate_qps}: RESET, then INIT→RTR→RTS with the current connection data.
   *
   * @return this
   */
  public RcResources restate() {
    qp.modify(new QpAttr().qpState(QpState.RESET));
    return toInit().toRtr().toRts();
  }

  /**
   * A signaled SEND of {@code len} bytes from the send area.
   *
   * @param wrId the WR id
   * @param len bytes (0: no SGE)
   * @return the WR
   */
  public SendWr send(long wrId, int len) {
    SendWr wr = new SendWr().wrId(wrId).opcode(WrOpcode.SEND).signaled(true);
    return len == 0 ? wr : wr.sge(mr, 0, len);
  }

  /**
   * A signaled RDMA WRITE of {@code len} bytes from the send area to the start of the peer's region.
   *
   * @param wrId the WR id
   * @param len bytes (0: no SGE)
   * @return the WR
   */
  public SendWr write(long wrId, int len) {
    SendWr wr = new SendWr().wrId(wrId).opcode(WrOpcode.RDMA_WRITE).signaled(true)
        .rdma(remote().addr(), remote().rkey());
    return len == 0 ? wr : wr.sge(mr, 0, len);
  }

  /**
   * A signaled RDMA READ of {@code len} bytes from the start of the peer's region into the send area.
   *
   * @param wrId the WR id
   * @param len bytes (0: no SGE)
   * @return the WR
   */
  public SendWr read(long wrId, int len) {
    SendWr wr = new SendWr().wrId(wrId).opcode(WrOpcode.RDMA_READ).signaled(true)
        .rdma(remote().addr(), remote().rkey());
    return len == 0 ? wr : wr.sge(mr, 0, len);
  }

  /**
   * Posts one receive of {@code msgSize} bytes into the receive area (to the SRQ if the QP has one).
   *
   * @param wrId the WR id
   */
  public void postRecv(long wrId) {
    RecvWr wr = new RecvWr().wrId(wrId).sge(mr, o.msgSize, o.msgSize);
    if (qp.srq() != null) {
      qp.srq().postRecv(wr);
    } else {
      qp.postRecv(wr);
    }
  }

  /** Closes the QP, the region, the CQ(s) and the PD this fixture created, in that order. */
  @Override
  public void close() {
    closer.close();
  }
}
