package io.github.verbs4j.examples.common;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.Mtu;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QueuePair;
import java.util.EnumSet;

/**
 * Brings an RC QP from RESET to RTS against a peer's {@link RcAddress}, with perftest's settings:
 * port 1, P_Key index 0, timeout 14, retry count 7, infinite RNR retries, RNR timer 12, SL 0, and the
 * smaller of the two ports' MTUs.
 */
public final class RcConnector {
  /** perftest's QP timeout code (4.096 µs × 2^14 ≈ 67 ms). */
  public static final int TIMEOUT = 14;
  /** perftest's retry count. */
  public static final int RETRY_CNT = 7;
  /** 7 = retry forever after an RNR NAK. */
  public static final int RNR_RETRY = 7;
  /** RNR NAK timer code the responder advertises (0.64 ms, perftest's value). */
  public static final int MIN_RNR_TIMER = 12;

  private RcConnector() {}

  /**
   * RESET → INIT with remote write, read and atomic access allowed.
   *
   * @param qp the QP
   */
  public static void toInit(QueuePair qp) {
    qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1)
        .qpAccessFlags(EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ, Access.REMOTE_ATOMIC)));
  }

  /**
   * INIT → RTR → RTS.
   *
   * @param qp the QP, in INIT
   * @param local what this side published (its PSN and MTU)
   * @param remote what the peer published
   * @param maxRdAtomic READ/atomic requests this side may have outstanding (initiator depth)
   * @param maxDestRdAtomic READ/atomic requests this side accepts (responder resources)
   */
  public static void connect(QueuePair qp, RcAddress local, RcAddress remote, int maxRdAtomic, int maxDestRdAtomic) {
    connect(qp, local, remote, maxRdAtomic, maxDestRdAtomic, TIMEOUT);
  }

  /**
   * {@link #connect(QueuePair, RcAddress, RcAddress, int, int)} with another local ACK timeout.
   *
   * @param qp the QP, in INIT
   * @param local what this side published (its PSN and MTU)
   * @param remote what the peer published
   * @param maxRdAtomic READ/atomic requests this side may have outstanding (initiator depth)
   * @param maxDestRdAtomic READ/atomic requests this side accepts (responder resources)
   * @param timeout the QP timeout code (4.096 µs × 2^timeout; 0 = infinite)
   */
  public static void connect(QueuePair qp, RcAddress local, RcAddress remote, int maxRdAtomic, int maxDestRdAtomic,
      int timeout) {
    Mtu mtu = Mtu.ofBytes(Math.min(local.mtu(), remote.mtu()));
    qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(mtu).destQpNum(remote.qpn()).rqPsn(remote.psn())
        .maxDestRdAtomic(maxDestRdAtomic).minRnrTimer(MIN_RNR_TIMER).ahAttr(AhAttr.lid(remote.lid())));
    qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(local.psn()).timeout(timeout).retryCnt(RETRY_CNT)
        .rnrRetry(RNR_RETRY).maxRdAtomic(maxRdAtomic));
  }
}
