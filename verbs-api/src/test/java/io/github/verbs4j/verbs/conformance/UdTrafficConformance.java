package io.github.verbs4j.verbs.conformance;

import static io.github.verbs4j.verbs.conformance.KitAssertions.assertErrWc;
import static io.github.verbs4j.verbs.conformance.KitAssertions.assertWc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.Sge;
import io.github.verbs4j.verbs.WcFlag;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

/**
 * Conformance of UD traffic: the GRH area, immediates, zero-length sends, silent drops (Q_Key
 * mismatch, larger than the MTU) and the CONFORMANCE.md decisions for UD errors (§6 scenarios 16,
 * 17, 18, 58; §3.8). Subclass it and return your {@link KitEnvironment}; see {@link
 * AbstractConformance}.
 */
public abstract class UdTrafficConformance extends AbstractConformance {

  private static int udMsg(Peer p) {
    return Math.min(RcResources.DEFAULT_MSG_SIZE, p.ctx().queryPort(1).activeMtu().bytes());
  }

  /** Scenario 17: UD SEND of 1024 B: payload at offset 40 of a msg+40 buffer, byte_len 1064, src_qp = sender. */
  @Test
  public void udSendPlacesThePayloadAfterThe40ByteGrhArea() {
    twoSided("udSendPlacesThePayloadAfterThe40ByteGrhAreaBody");
  }

  /**
   * Body of {@link #udSendPlacesThePayloadAfterThe40ByteGrhArea()}.
   *
   * @param p the rank
   */
  public void udSendPlacesThePayloadAfterThe40ByteGrhAreaBody(Peer p) {
    int msg = udMsg(p);
    try (UdResources u = new UdResources(p, UdResources.options().msgSize(msg)).exchangeInfo()) {
      if (p.rank() == 1) {
        u.postRecv(0);
      } else {
        Patterns.fill(u.sendMr().buffer(), 0, msg, 17);
      }
      p.barrier("recv-posted");
      if (p.rank() == 0) {
        u.qp().postSend(u.send(1, msg));
        assertWc(p.pollOne(u.cq()), 1, WcStatus.SUCCESS, WcOpcode.SEND, u.qp().qpNum());
      } else {
        WorkCompletion wc = p.pollOne(u.cq());
        assertWc(wc, 0, WcStatus.SUCCESS, WcOpcode.RECV, u.qp().qpNum());
        assertEquals(msg + UdResources.GRH_SIZE, wc.byteLen(), "byte_len includes the 40-byte GRH area");
        assertEquals(u.remoteQpn(), wc.srcQp(), "src_qp is the sender's QPN");
        assertEquals(u.remoteLid(), wc.slid(), "slid is the sender's LID");
        Patterns.verify("UD payload at offset 40", u.recvMr().buffer(), UdResources.GRH_SIZE, msg, 17);
      }
    }
  }

  /** Scenario 16 (UD): SEND_WITH_IMM delivers WITH_IMM and ntohl(imm) = 1234. */
  @Test
  public void udSendWithImmDeliversTheImmediateInNetworkOrder() {
    twoSided("udSendWithImmDeliversTheImmediateInNetworkOrderBody");
  }

  /**
   * Body of {@link #udSendWithImmDeliversTheImmediateInNetworkOrder()}.
   *
   * @param p the rank
   */
  public void udSendWithImmDeliversTheImmediateInNetworkOrderBody(Peer p) {
    int msg = udMsg(p);
    try (UdResources u = new UdResources(p, UdResources.options().msgSize(msg)).exchangeInfo()) {
      if (p.rank() == 1) {
        u.postRecv(0);
      }
      p.barrier("recv-posted");
      if (p.rank() == 0) {
        u.qp().postSend(u.send(1, msg).opcode(WrOpcode.SEND_WITH_IMM).immData(SendWr.htonl(1234)));
        assertWc(p.pollOne(u.cq()), 1, WcStatus.SUCCESS, WcOpcode.SEND, u.qp().qpNum());
      } else {
        WorkCompletion wc = p.pollOne(u.cq());
        assertWc(wc, 0, WcStatus.SUCCESS, WcOpcode.RECV, u.qp().qpNum());
        assertTrue(wc.hasFlag(WcFlag.WITH_IMM), wc::toString);
        assertEquals(1234, SendWr.ntohl(wc.immData()));
      }
    }
  }

  /** Scenario 18: a 0-byte UD SEND succeeds on both sides; the receiver's byte_len is 40 (the GRH area only). */
  @Test
  public void udZeroLengthSendDeliversOnlyTheGrhArea() {
    twoSided("udZeroLengthSendDeliversOnlyTheGrhAreaBody");
  }

  /**
   * Body of {@link #udZeroLengthSendDeliversOnlyTheGrhArea()}.
   *
   * @param p the rank
   */
  public void udZeroLengthSendDeliversOnlyTheGrhAreaBody(Peer p) {
    try (UdResources u = new UdResources(p, UdResources.options().msgSize(64)).exchangeInfo()) {
      if (p.rank() == 1) {
        u.postRecv(0);
      }
      p.barrier("recv-posted");
      if (p.rank() == 0) {
        u.qp().postSend(u.send(1, 0));
        assertWc(p.pollOne(u.cq()), 1, WcStatus.SUCCESS, WcOpcode.SEND, u.qp().qpNum());
      } else {
        WorkCompletion wc = p.pollOne(u.cq());
        assertWc(wc, 0, WcStatus.SUCCESS, WcOpcode.RECV, u.qp().qpNum());
        assertEquals(UdResources.GRH_SIZE, wc.byteLen());
      }
    }
  }

  /** Scenario 58: a UD SEND with a Q_Key other than the receiver's succeeds at the sender and is dropped silently. */
  @Test
  public void udSendWithAWrongQkeyIsSilentlyDropped() {
    twoSided("udSendWithAWrongQkeyIsSilentlyDroppedBody");
  }

  /**
   * Body of {@link #udSendWithAWrongQkeyIsSilentlyDropped()}.
   *
   * @param p the rank
   */
  public void udSendWithAWrongQkeyIsSilentlyDroppedBody(Peer p) {
    try (UdResources u = new UdResources(p, UdResources.options().msgSize(64)).exchangeInfo()) {
      if (p.rank() == 1) {
        u.postRecv(0);
      }
      p.barrier("recv-posted");
      if (p.rank() == 0) {
        u.qp().postSend(u.send(1, 64).ud(u.ah(), u.remoteQpn(), 0x22222222));
        assertWc(p.pollOne(u.cq()), 1, WcStatus.SUCCESS, WcOpcode.SEND, u.qp().qpNum());
      } else {
        p.expectNoCompletion(u.cq(), Peer.QUIET);
      }
      p.barrier("wrong-key-checked");
      if (p.rank() == 0) {
        u.qp().postSend(u.send(2, 64));
        assertWc(p.pollOne(u.cq()), 2, WcStatus.SUCCESS, WcOpcode.SEND, u.qp().qpNum());
      } else {
        assertWc(p.pollOne(u.cq()), 0, WcStatus.SUCCESS, WcOpcode.RECV, u.qp().qpNum());
      }
    }
  }

  /** Scenario 58: a UD SEND of port MTU + 1 bytes succeeds at the sender and nothing is delivered (C10-93.1.1). */
  @Test
  public void udSendLargerThanThePortMtuSucceedsButIsNotDelivered() {
    twoSided("udSendLargerThanThePortMtuSucceedsButIsNotDeliveredBody");
  }

  /**
   * Body of {@link #udSendLargerThanThePortMtuSucceedsButIsNotDeliveredBody(Peer)}.
   *
   * @param p the rank
   */
  public void udSendLargerThanThePortMtuSucceedsButIsNotDeliveredBody(Peer p) {
    int mtu = p.ctx().queryPort(1).activeMtu().bytes();
    int big = (int) Math.max(mtu, p.exchange("mtu", mtu)[0]) + 1;
    try (UdResources u = new UdResources(p, UdResources.options().msgSize(big)).exchangeInfo()) {
      if (p.rank() == 1) {
        u.postRecv(0);
      }
      p.barrier("recv-posted");
      if (p.rank() == 0) {
        u.qp().postSend(u.send(1, mtu + 1));
        assertWc(p.pollOne(u.cq()), 1, WcStatus.SUCCESS, WcOpcode.SEND, u.qp().qpNum());
      } else {
        p.expectNoCompletion(u.cq(), Peer.QUIET);
      }
      p.barrier("big-checked");
      if (p.rank() == 0) {
        u.qp().postSend(u.send(2, 64));
        assertWc(p.pollOne(u.cq()), 2, WcStatus.SUCCESS, WcOpcode.SEND, u.qp().qpNum());
      } else {
        WorkCompletion wc = p.pollOne(u.cq());
        assertWc(wc, 0, WcStatus.SUCCESS, WcOpcode.RECV, u.qp().qpNum());
        assertEquals(64 + UdResources.GRH_SIZE, wc.byteLen(), "the receive was still free for the next message");
      }
    }
  }

  /** CONFORMANCE.md: a UD receive smaller than payload + 40 completes with LOC_LEN_ERR; the QP stays in RTS. */
  @Test
  public void udRecvBufferTooSmallCompletesWithLocLenErrAndTheQpStaysInRts() {
    twoSided("udRecvBufferTooSmallCompletesWithLocLenErrAndTheQpStaysInRtsBody");
  }

  /**
   * Body of {@link #udRecvBufferTooSmallCompletesWithLocLenErrAndTheQpStaysInRts()}.
   *
   * @param p the rank
   */
  public void udRecvBufferTooSmallCompletesWithLocLenErrAndTheQpStaysInRtsBody(Peer p) {
    UdResources.Options o = UdResources.options().msgSize(200);
    if (p.rank() == 1) {
      o.recvBufferSize(UdResources.GRH_SIZE + 100);
    }
    try (UdResources u = new UdResources(p, o).exchangeInfo()) {
      if (p.rank() == 1) {
        u.postRecv(0);
        u.postRecv(1);
      }
      p.barrier("recvs-posted");
      if (p.rank() == 0) {
        u.qp().postSend(u.send(1, 200));
        assertWc(p.pollOne(u.cq()), 1, WcStatus.SUCCESS, WcOpcode.SEND, u.qp().qpNum());
      } else {
        assertErrWc(p.pollOne(u.cq()), 0, WcStatus.LOC_LEN_ERR, u.qp().qpNum());
        assertEquals(QpState.RTS, u.qp().state(), "a UD QP stays in RTS after LOC_LEN_ERR");
      }
      p.barrier("too-small-checked");
      if (p.rank() == 0) {
        u.qp().postSend(u.send(2, 100));
        assertWc(p.pollOne(u.cq()), 2, WcStatus.SUCCESS, WcOpcode.SEND, u.qp().qpNum());
      } else {
        WorkCompletion wc = p.pollOne(u.cq());
        assertWc(wc, 1, WcStatus.SUCCESS, WcOpcode.RECV, u.qp().qpNum());
        assertEquals(100 + UdResources.GRH_SIZE, wc.byteLen());
      }
    }
  }

  /** CONFORMANCE.md: SQE is not entered; a UD send error (bad lkey) completes LOC_PROT_ERR and moves the QP to ERR. */
  @Test
  public void udSendErrorMovesTheQpToErrNotSqe() {
    twoSided("udSendErrorMovesTheQpToErrNotSqeBody");
  }

  /**
   * Body of {@link #udSendErrorMovesTheQpToErrNotSqe()}.
   *
   * @param p the rank
   */
  public void udSendErrorMovesTheQpToErrNotSqeBody(Peer p) {
    try (UdResources u = new UdResources(p, UdResources.options().msgSize(64)).exchangeInfo()) {
      p.barrier("ready");
      if (p.rank() == 0) {
        u.qp().postSend(u.send(1, 64).sgList(new Sge(u.sendMr().address(), 64, u.sendMr().lkey() + 1)));
        assertErrWc(p.pollOne(u.cq()), 1, WcStatus.LOC_PROT_ERR, u.qp().qpNum());
        p.awaitState(u.qp(), QpState.ERR);
      }
      p.barrier("done");
    }
  }
}
