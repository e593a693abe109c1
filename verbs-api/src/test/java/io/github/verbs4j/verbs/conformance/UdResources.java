package io.github.verbs4j.verbs.conformance;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AddressHandle;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.CompletionChannel;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WrOpcode;
import java.util.EnumSet;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A UD end, like pyverbs' {@code UDResources}: a PD, CQ(s), a send region of {@code msgSize}
 * bytes, a receive region of {@code msgSize + 40} (the first 40 bytes of every UD receive hold the
 * GRH area), a UD QP brought to RTS at creation with Q_Key 0x11111111, and after {@link
 * #exchangeInfo()} an address handle to the peer.
 *
 * <pre>{@code
 * try (UdResources u = new UdResources(p, UdResources.options()).exchangeInfo()) {
 *   if (p.rank() == 1) { u.postRecv(1); }
 *   p.barrier("posted");
 *   if (p.rank() == 0) { u.qp().postSend(u.send(1, 1024)); }
 * }
 * }</pre>
 */
public final class UdResources implements AutoCloseable {
  /** Bytes of every UD receive buffer reserved for the GRH. */
  public static final int GRH_SIZE = 40;
  /** pyverbs' and perftest's UD Q_Key. */
  public static final int QKEY = 0x11111111;

  /** Creation parameters; every setter returns this. */
  public static final class Options {
    private int msgSize = RcResources.DEFAULT_MSG_SIZE;
    private int qkey = QKEY;
    private int cqDepth = 1000;
    private QpCap cap = QpCap.DEFAULT;
    private boolean separateCqs;
    private CompletionChannel channel;
    private int recvBufferSize = -1;

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
     * Sets {@code qkey}.
     *
     * @param q this QP's Q_Key
     * @return this
     */
    public Options qkey(int q) {
      qkey = q;
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
     * Sets {@code channel}.
     *
     * @param ch a completion channel for the CQ(s)
     * @return this
     */
    public Options channel(CompletionChannel ch) {
      channel = ch;
      return this;
    }

    /**
     * Sets {@code recvBufferSize}.
     *
     * @param n the receive region's size (default msgSize + 40)
     * @return this
     */
    public Options recvBufferSize(int n) {
      recvBufferSize = n;
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
  private final MemoryRegion sendMr;
  private final MemoryRegion recvMr;
  private final QueuePair qp;
  private AddressHandle ah;
  private int remoteLid;
  private int remoteQpn;
  private int remoteQkey;

  /**
   * Creates everything and brings the QP to RTS (RESET→INIT with PKEY_INDEX, PORT, QKEY; →RTR;
   * →RTS with a random SQ_PSN), as the pyverbs UD QP constructor does.
   *
   * @param peer this rank
   * @param options parameters
   */
  public UdResources(Peer peer, Options options) {
    this.peer = peer;
    this.o = options;
    try {
      pd = closer.add(peer.ctx().allocPd());
      sendCq = closer.add(peer.ctx().createCq(options.cqDepth, options.channel, 0));
      recvCq = options.separateCqs ? closer.add(peer.ctx().createCq(options.cqDepth, options.channel, 0)) : sendCq;
      sendMr = closer.add(pd.allocateMemory(Math.max(1, options.msgSize), EnumSet.of(Access.LOCAL_WRITE)));
      int recvSize = options.recvBufferSize > 0 ? options.recvBufferSize : options.msgSize + GRH_SIZE;
      recvMr = closer.add(pd.allocateMemory(recvSize, EnumSet.of(Access.LOCAL_WRITE)));
      qp = closer.add(pd.createQp(QpInitAttr.builder(QpType.UD).sendCq(sendCq).recvCq(recvCq).cap(options.cap)
          .build()));
      qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(options.qkey));
      qp.modify(new QpAttr().qpState(QpState.RTR));
      qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(ThreadLocalRandom.current().nextInt(1 << 24)));
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
   * Swaps LID, QPN and Q_Key with the peer and creates the address handle to it.
   *
   * @return this
   */
  public UdResources exchangeInfo() {
    long[] t = peer.exchange(peer.uniqueName("ud"), peer.ctx().queryPort(1).lid(), qp.qpNum(), o.qkey);
    remoteLid = (int) t[0];
    remoteQpn = (int) t[1];
    remoteQkey = (int) t[2];
    ah = closer.add(pd.createAh(AhAttr.lid(remoteLid)));
    return this;
  }

  /** @return the PD */
  public ProtectionDomain pd() {
    return pd;
  }

  /** @return the send CQ (the only CQ unless separate) */
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

  /** @return the send region */
  public MemoryRegion sendMr() {
    return sendMr;
  }

  /** @return the receive region (GRH area first) */
  public MemoryRegion recvMr() {
    return recvMr;
  }

  /** @return the QP */
  public QueuePair qp() {
    return qp;
  }

  /** @return the AH to the peer */
  public AddressHandle ah() {
    return ah;
  }

  /** @return the peer's QPN */
  public int remoteQpn() {
    return remoteQpn;
  }

  /** @return the peer's Q_Key */
  public int remoteQkey() {
    return remoteQkey;
  }

  /** @return the peer's LID */
  public int remoteLid() {
    return remoteLid;
  }

  /**
   * A signaled UD SEND of {@code len} bytes from the send region to the peer.
   *
   * @param wrId the WR id
   * @param len bytes (0: no SGE)
   * @return the WR
   */
  public SendWr send(long wrId, int len) {
    SendWr wr = new SendWr().wrId(wrId).opcode(WrOpcode.SEND).signaled(true).ud(ah, remoteQpn, remoteQkey);
    return len == 0 ? wr : wr.sge(sendMr, 0, len);
  }

  /**
   * Posts a receive covering the whole receive region.
   *
   * @param wrId the WR id
   */
  public void postRecv(long wrId) {
    qp.postRecv(new RecvWr().wrId(wrId).sge(recvMr, 0, (int) recvMr.length()));
  }

  /** Closes the AH, QP, regions, CQ(s) and PD. */
  @Override
  public void close() {
    closer.close();
  }
}
