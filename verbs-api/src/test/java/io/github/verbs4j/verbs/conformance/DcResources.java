package io.github.verbs4j.verbs.conformance;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AddressHandle;
import io.github.verbs4j.verbs.AhAttr;
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
import io.github.verbs4j.verbs.SrqAttr;
import io.github.verbs4j.verbs.WrOpcode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A DC end, like pyverbs' {@code DCResources} (tests/test_mlx5_dc.py): a PD, one CQ, an SRQ, a
 * region, {@code dciCount} DCIs (send-only, {@code sq_sig_all}, max_send_wr 100) and one DCT on
 * the SRQ with access key 0xbadc0de. {@link #connect()} brings the DCIs to RTS and the DCT to RTR
 * (where it gets its number), then swaps LID, DCT number, rkey and address with the peer and
 * creates an AH to it. Needs {@link io.github.verbs4j.verbs.Capability#DC}.
 */
public final class DcResources implements AutoCloseable {
  /** pyverbs' DCT access key. */
  public static final long DC_KEY = 0xbadc0deL;

  /** Creation parameters; every setter returns this. */
  public static final class Options {
    private int dciCount = 2;
    private long dcKey = DC_KEY;
    private int msgSize = RcResources.DEFAULT_MSG_SIZE;
    private int srqMaxWr = 100;
    private int timeout = 14;
    private int retryCnt = 7;
    private int rnrRetry = 7;
    private int minRnrTimer = 12;

    private Options() {}

    /**
     * Sets {@code dciCount}.
     *
     * @param n number of DCIs
     * @return this
     */
    public Options dciCount(int n) {
      dciCount = n;
      return this;
    }

    /**
     * Sets {@code dcKey}.
     *
     * @param key the DCT's access key
     * @return this
     */
    public Options dcKey(long key) {
      dcKey = key;
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
     * Sets {@code timeout}.
     *
     * @param t the DCIs' ACK timeout code
     * @return this
     */
    public Options timeout(int t) {
      timeout = t;
      return this;
    }

    /**
     * Sets {@code retryCnt}.
     *
     * @param n the DCIs' transport retries
     * @return this
     */
    public Options retryCnt(int n) {
      retryCnt = n;
      return this;
    }

    /**
     * Sets {@code rnrRetry}.
     *
     * @param n the DCIs' RNR retries
     * @return this
     */
    public Options rnrRetry(int n) {
      rnrRetry = n;
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
  private final CompletionQueue cq;
  private final SharedReceiveQueue srq;
  private final MemoryRegion mr;
  private final List<QueuePair> dcis = new ArrayList<>();
  private final QueuePair dct;
  private AddressHandle ah;
  private int remoteDctn;
  private int remoteRkey;
  private long remoteAddr;

  /**
   * Creates the PD, CQ, SRQ, region, DCIs and DCT (in RESET).
   *
   * @param peer this rank
   * @param options parameters
   */
  public DcResources(Peer peer, Options options) {
    this.peer = peer;
    this.o = options;
    try {
      pd = closer.add(peer.ctx().allocPd());
      cq = closer.add(peer.ctx().createCq(1000, null, 0));
      srq = closer.add(pd.createSrq(SrqAttr.of(Math.min(options.srqMaxWr, peer.ctx().queryDevice().maxSrqWr()), 1)));
      mr = closer.add(pd.allocateMemory(2L * options.msgSize,
          EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ)));
      QpCap dciCap = QpCap.builder().maxSendWr(100).maxRecvWr(0).maxSendSge(1).maxRecvSge(0).build();
      for (int i = 0; i < options.dciCount; i++) {
        dcis.add(closer.add(pd.createQp(QpInitAttr.builder(QpType.DCI).sendCq(cq).cap(dciCap).sqSigAll(true)
            .build())));
      }
      dct = closer.add(pd.createQp(QpInitAttr.builder(QpType.DCT).recvCq(cq).srq(srq)
          .cap(QpCap.builder().maxRecvWr(0).maxRecvSge(0).maxSendSge(0).build()).dcKey(options.dcKey).build()));
    } catch (RuntimeException e) {
      try {
        closer.close();
      } catch (RuntimeException c) {
        e.addSuppressed(c);
      }
      throw e;
    }
  }

  /**
   * DCIs: RESET→INIT (PKEY_INDEX, PORT) →RTR (PATH_MTU) →RTS (TIMEOUT, RETRY_CNT, RNR_RETRY,
   * MAX_QP_RD_ATOMIC, SQ_PSN). DCT: RESET→INIT (ACCESS_FLAGS, PKEY_INDEX, PORT) →RTR
   * (MIN_RNR_TIMER, AV, PATH_MTU). Then the exchange and the AH.
   *
   * @return this
   */
  public DcResources connect() {
    for (QueuePair dci : dcis) {
      dci.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1));
      dci.modify(new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024));
      dci.modify(new QpAttr().qpState(QpState.RTS).timeout(o.timeout).retryCnt(o.retryCnt).rnrRetry(o.rnrRetry)
          .maxRdAtomic(1).sqPsn(ThreadLocalRandom.current().nextInt(1 << 24)));
    }
    int lid = peer.ctx().queryPort(1).lid();
    dct.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1)
        .qpAccessFlags(EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ)));
    dct.modify(new QpAttr().qpState(QpState.RTR).minRnrTimer(o.minRnrTimer).ahAttr(AhAttr.lid(lid))
        .pathMtu(Mtu.MTU_1024));
    long[] t = peer.exchange(peer.uniqueName("dc"), lid, dct.qpNum(), mr.rkey(), mr.address());
    remoteDctn = (int) t[1];
    remoteRkey = (int) t[2];
    remoteAddr = t[3];
    ah = closer.add(pd.createAh(AhAttr.lid((int) t[0])));
    return this;
  }

  /**
   * A SEND of {@code len} bytes from the region's first half to the peer's DCT.
   *
   * @param wrId the WR id
   * @param len bytes
   * @param dcKey the key to present (the right one is {@link #DC_KEY} unless changed)
   * @return the WR
   */
  public SendWr send(long wrId, int len, long dcKey) {
    return new SendWr().wrId(wrId).opcode(WrOpcode.SEND).sge(mr, 0, len).dc(ah, remoteDctn, dcKey);
  }

  /**
   * An RDMA WRITE of {@code len} bytes from the region's first half to the start of the peer's region.
   *
   * @param wrId the WR id
   * @param len bytes
   * @return the WR
   */
  public SendWr write(long wrId, int len) {
    return new SendWr().wrId(wrId).opcode(WrOpcode.RDMA_WRITE).sge(mr, 0, len).rdma(remoteAddr, remoteRkey)
        .dc(ah, remoteDctn, o.dcKey);
  }

  /**
   * Posts a receive of {@code msgSize} bytes into the region's second half, to the SRQ.
   *
   * @param wrId the WR id
   */
  public void postSrqRecv(long wrId) {
    srq.postRecv(new RecvWr().wrId(wrId).sge(mr, o.msgSize, o.msgSize));
  }

  /** @return the CQ of the DCIs and the DCT */
  public CompletionQueue cq() {
    return cq;
  }

  /** @return the region */
  public MemoryRegion mr() {
    return mr;
  }

  /** @return the DCIs */
  public List<QueuePair> dcis() {
    return Collections.unmodifiableList(dcis);
  }

  /** @return the DCT */
  public QueuePair dct() {
    return dct;
  }

  /** @return the SRQ behind the DCT */
  public SharedReceiveQueue srq() {
    return srq;
  }

  /** @return the message size */
  public int msgSize() {
    return o.msgSize;
  }

  /** Closes the AH, DCT, DCIs, region, SRQ, CQ and PD. */
  @Override
  public void close() {
    closer.close();
  }
}
