package io.github.verbs4j.verbs.conformance;

import static io.github.verbs4j.verbs.conformance.KitAssertions.assertWc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WcFlag;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Conformance of good RC traffic: SEND, SEND_WITH_IMM, RDMA WRITE (with immediate), RDMA READ and
 * zero-length RDMA (§6 scenarios 15, 16, 19–23; §3.2–3.5). Rank 0 is the client. Subclass it and
 * return your {@link KitEnvironment}; see {@link AbstractConformance}.
 */
public abstract class RcTrafficConformance extends AbstractConformance {
  private static final int IMM = 1234;

  /** Scenario 15: RC SEND ping-pong of 1024 B: completions, byte_len, qp_num and the 'c'/'s' patterns. */
  @Test
  public void rcSendPingPongDeliversPatternsAndCompletions() {
    twoSided("rcSendPingPongDeliversPatternsAndCompletionsBody");
  }

  /**
   * Body of {@link #rcSendPingPongDeliversPatternsAndCompletions()}.
   *
   * @param p the rank
   */
  public void rcSendPingPongDeliversPatternsAndCompletionsBody(Peer p) {
    try (RcResources r = new RcResources(p, RcResources.options()).connect()) {
      Traffic.rcPingPong(p, r, 20, Traffic.busyPoller(p));
    }
  }

  /** Scenario 16 (RC): SEND_WITH_IMM delivers RECV with WITH_IMM and ntohl(imm) = 1234; a plain SEND has no flag. */
  @Test
  public void rcSendWithImmDeliversTheImmediateInNetworkOrder() {
    twoSided("rcSendWithImmDeliversTheImmediateInNetworkOrderBody");
  }

  /**
   * Body of {@link #rcSendWithImmDeliversTheImmediateInNetworkOrder()}.
   *
   * @param p the rank
   */
  public void rcSendWithImmDeliversTheImmediateInNetworkOrderBody(Peer p) {
    try (RcResources r = new RcResources(p, RcResources.options()).connect()) {
      int qpn = r.qp().qpNum();
      if (p.rank() == 1) {
        r.postRecv(0);
        r.postRecv(1);
      }
      p.barrier("recvs-posted");
      if (p.rank() == 0) {
        r.qp().postSend(r.send(10, r.msgSize()).opcode(WrOpcode.SEND_WITH_IMM).immData(SendWr.htonl(IMM)));
        assertWc(p.pollOne(r.cq()), 10, WcStatus.SUCCESS, WcOpcode.SEND, qpn);
        r.qp().postSend(r.send(11, r.msgSize()));
        assertWc(p.pollOne(r.cq()), 11, WcStatus.SUCCESS, WcOpcode.SEND, qpn);
      } else {
        WorkCompletion wc = p.pollOne(r.cq());
        assertWc(wc, 0, WcStatus.SUCCESS, WcOpcode.RECV, qpn);
        assertTrue(wc.hasFlag(WcFlag.WITH_IMM), () -> "IBV_WC_WITH_IMM missing: " + wc);
        assertEquals(IMM, SendWr.ntohl(wc.immData()), "imm_data is in network byte order");
        assertEquals(r.msgSize(), wc.byteLen());
        WorkCompletion plain = p.pollOne(r.cq());
        assertWc(plain, 1, WcStatus.SUCCESS, WcOpcode.RECV, qpn);
        assertFalse(plain.hasFlag(WcFlag.WITH_IMM), () -> "a plain SEND must not carry WITH_IMM: " + plain);
      }
    }
  }

  private static SendWr writeTo(RcResources r, long wrId, long remoteOffset) {
    return new SendWr().wrId(wrId).opcode(WrOpcode.RDMA_WRITE).signaled(true).sge(r.mr(), 0, r.msgSize())
        .rdma(r.remote().addr() + remoteOffset, r.remote().rkey());
  }

  /** Scenario 19: RDMA WRITE lands in the remote region, the responder sees no completion; both directions. */
  @Test
  public void rcRdmaWriteLandsInTheRemoteMrWithoutAResponderCompletion() {
    twoSided("rcRdmaWriteLandsInTheRemoteMrWithoutAResponderCompletionBody");
  }

  /**
   * Body of {@link #rcRdmaWriteLandsInTheRemoteMrWithoutAResponderCompletion()}.
   *
   * @param p the rank
   */
  public void rcRdmaWriteLandsInTheRemoteMrWithoutAResponderCompletionBody(Peer p) {
    try (RcResources r = new RcResources(p, RcResources.options()).connect()) {
      int msg = r.msgSize();
      Patterns.fill(r.buffer(), 0, msg, 190 + p.rank());
      Traffic.fill(r.buffer(), msg, msg, (byte) 0);
      p.barrier("filled");
      for (int writer = 0; writer < 2; writer++) {
        if (p.rank() == writer) {
          r.qp().postSend(writeTo(r, 20 + writer, msg));
          assertWc(p.pollOne(r.cq()), 20 + writer, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, r.qp().qpNum());
        }
        p.barrier("written-" + writer);
        if (p.rank() != writer) {
          Patterns.verify("RDMA WRITE target", r.buffer(), msg, msg, 190 + writer);
          p.expectNoCompletion(r.cq(), Peer.QUIET);
        }
        p.barrier("checked-" + writer);
      }
    }
  }

  /** Scenario 20: 0-byte RDMA WRITE and READ succeed although rkey and address are invalid (C9-88). */
  @Test
  public void zeroLengthRdmaWriteAndReadSucceedWithoutRkeyChecks() {
    twoSided("zeroLengthRdmaWriteAndReadSucceedWithoutRkeyChecksBody");
  }

  /**
   * Body of {@link #zeroLengthRdmaWriteAndReadSucceedWithoutRkeyChecks()}.
   *
   * @param p the rank
   */
  public void zeroLengthRdmaWriteAndReadSucceedWithoutRkeyChecksBody(Peer p) {
    try (RcResources r = new RcResources(p, RcResources.options()).connect()) {
      p.barrier("connected");
      if (p.rank() == 0) {
        int badRkey = r.remote().rkey() ^ 0x5a5a0000;
        r.qp().postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).signaled(true).rdma(0, badRkey));
        assertWc(p.pollOne(r.cq()), 1, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, r.qp().qpNum());
        r.qp().postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ).signaled(true).rdma(0xdead0000L, badRkey));
        WorkCompletion wc = p.pollOne(r.cq());
        assertWc(wc, 2, WcStatus.SUCCESS, WcOpcode.RDMA_READ, r.qp().qpNum());
        assertEquals(0, wc.byteLen());
      }
      p.barrier("done");
      assertEquals(QpState.RTS, r.qp().state());
      if (p.rank() == 1) {
        p.expectNoCompletion(r.cq(), Peer.QUIET);
      }
    }
  }

  /** Scenario 21: WRITE_WITH_IMM places the data, consumes one receive (its SGEs unused) with RECV_RDMA_WITH_IMM. */
  @Test
  public void rdmaWriteWithImmConsumesAReceiveAndCompletesWithRecvRdmaWithImm() {
    twoSided("rdmaWriteWithImmConsumesAReceiveAndCompletesWithRecvRdmaWithImmBody");
  }

  /**
   * Body of {@link #rdmaWriteWithImmConsumesAReceiveAndCompletesWithRecvRdmaWithImm()}.
   *
   * @param p the rank
   */
  public void rdmaWriteWithImmConsumesAReceiveAndCompletesWithRecvRdmaWithImmBody(Peer p) {
    try (RcResources r = new RcResources(p, RcResources.options()).connect()) {
      int msg = r.msgSize();
      if (p.rank() == 0) {
        Patterns.fill(r.buffer(), 0, msg, 21);
      } else {
        Traffic.fill(r.buffer(), 0, 2 * msg, (byte) 0);
        r.postRecv(5);
      }
      p.barrier("recv-posted");
      if (p.rank() == 0) {
        r.qp().postSend(r.write(1, msg).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(SendWr.htonl(IMM)));
        assertWc(p.pollOne(r.cq()), 1, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, r.qp().qpNum());
      } else {
        WorkCompletion wc = p.pollOne(r.cq());
        assertWc(wc, 5, WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, r.qp().qpNum());
        assertTrue(wc.hasFlag(WcFlag.WITH_IMM), wc::toString);
        assertEquals(IMM, SendWr.ntohl(wc.immData()));
        assertEquals(msg, wc.byteLen(), "byte_len is the length written");
        Patterns.verify("WRITE_WITH_IMM data at remote_addr", r.buffer(), 0, msg, 21);
        KitAssertions.assertFilled(r.buffer(), r.recvOffset(), msg, (byte) 0);
      }
    }
  }

  /** Scenario 22: 10 receives, then 10 WRITE_WITH_IMM (imm = i+10, at offset i·msg): in order, with data in place. */
  @Test
  public void writeWithImmCompletionsArriveInPostingOrderWithTheirImmediates() {
    twoSided("writeWithImmCompletionsArriveInPostingOrderWithTheirImmediatesBody");
  }

  /**
   * Body of {@link #writeWithImmCompletionsArriveInPostingOrderWithTheirImmediates()}.
   *
   * @param p the rank
   */
  public void writeWithImmCompletionsArriveInPostingOrderWithTheirImmediatesBody(Peer p) {
    int n = 10;
    int msg = 1024;
    try (RcResources r = new RcResources(p, RcResources.options().msgSize(msg).mrSize((long) n * msg)).connect()) {
      int qpn = r.qp().qpNum();
      if (p.rank() == 1) {
        for (int i = 0; i < n; i++) {
          r.qp().postRecv(new RecvWr().wrId(i)); // no SGE: WRITE_WITH_IMM does not use it
        }
      } else {
        for (int i = 0; i < n; i++) {
          Patterns.fill(r.buffer(), i * msg, msg, 2200 + i);
        }
      }
      p.barrier("recvs-posted");
      if (p.rank() == 0) {
        for (int i = 0; i < n; i++) {
          r.qp().postSend(new SendWr().wrId(100 + i).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).signaled(true)
              .immData(SendWr.htonl(i + 10)).sge(r.mr(), (long) i * msg, msg)
              .rdma(r.remote().addr() + (long) i * msg, r.remote().rkey()));
        }
        List<WorkCompletion> wcs = p.pollUntil(r.cq(), n);
        for (int i = 0; i < n; i++) {
          assertWc(wcs.get(i), 100 + i, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, qpn);
        }
      } else {
        List<WorkCompletion> wcs = p.pollUntil(r.cq(), n);
        for (int i = 0; i < n; i++) {
          WorkCompletion wc = wcs.get(i);
          assertWc(wc, i, WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, qpn);
          assertEquals(i + 10, SendWr.ntohl(wc.immData()), "imm of completion " + i);
          Patterns.verify("write " + i, r.buffer(), i * msg, msg, 2200 + i);
        }
      }
    }
  }

  /** Scenario 23: RDMA READ of 1024 B fetches the remote 's' pattern; the responder sees no completion. */
  @Test
  public void rcRdmaReadFetchesTheRemotePattern() {
    twoSided("rcRdmaReadFetchesTheRemotePatternBody");
  }

  /**
   * Body of {@link #rcRdmaReadFetchesTheRemotePattern()}.
   *
   * @param p the rank
   */
  public void rcRdmaReadFetchesTheRemotePatternBody(Peer p) {
    try (RcResources r = new RcResources(p, RcResources.options()).connect()) {
      int msg = r.msgSize();
      if (p.rank() == 1) {
        Traffic.fill(r.buffer(), 0, msg, Traffic.SERVER_FILL);
      } else {
        Traffic.fill(r.buffer(), 0, 2 * msg, (byte) 0);
      }
      p.barrier("filled");
      if (p.rank() == 0) {
        r.qp().postSend(new SendWr().wrId(23).opcode(WrOpcode.RDMA_READ).signaled(true).sge(r.mr(), msg, msg)
            .rdma(r.remote().addr(), r.remote().rkey()));
        WorkCompletion wc = p.pollOne(r.cq());
        assertWc(wc, 23, WcStatus.SUCCESS, WcOpcode.RDMA_READ, r.qp().qpNum());
        assertEquals(msg, wc.byteLen(), "byte_len of a READ is the length read");
        KitAssertions.assertFilled(r.buffer(), msg, msg, Traffic.SERVER_FILL);
      }
      p.barrier("read");
      if (p.rank() == 1) {
        p.expectNoCompletion(r.cq(), Peer.QUIET);
      }
    }
  }
}
