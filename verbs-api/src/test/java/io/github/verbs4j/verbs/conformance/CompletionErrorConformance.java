package io.github.verbs4j.verbs.conformance;

import static io.github.verbs4j.verbs.conformance.KitAssertions.assertErrWc;
import static io.github.verbs4j.verbs.conformance.KitAssertions.assertWc;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.Sge;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Conformance of RC completion errors: protection and bounds, length, RNR, transport retry, flush,
 * responder resources, and the CONFORMANCE.md decisions (§6 scenarios 43, 46, 48–51, 53; §3.9;
 * §2.5). Error completions are checked for the exact wr_id, status and qp_num, and the QP states
 * after the error. Waits for an error use short timers (timeout 10, retry_cnt 2) and never assert
 * a duration. Subclass it and return your {@link KitEnvironment}; see {@link AbstractConformance}.
 */
public abstract class CompletionErrorConformance extends AbstractConformance {

  /** Scenario 43: a 1024-byte WRITE at remote end − 512 completes REM_ACCESS_ERR; both QPs end in ERR. */
  @Test
  public void rdmaWriteCrossingTheRemoteMrEndCompletesWithRemoteAccessError() {
    twoSided("rdmaWriteCrossingTheRemoteMrEndCompletesWithRemoteAccessErrorBody");
  }

  /**
   * Body of {@link #rdmaWriteCrossingTheRemoteMrEndCompletesWithRemoteAccessError()}.
   *
   * @param p the rank
   */
  public void rdmaWriteCrossingTheRemoteMrEndCompletesWithRemoteAccessErrorBody(Peer p) {
    try (RcResources r = new RcResources(p, RcResources.options()).connect()) {
      p.barrier("connected");
      if (p.rank() == 0) {
        long addr = r.remote().addr() + r.remote().length() - 512;
        r.qp().postSend(r.write(43, 1024).rdma(addr, r.remote().rkey()));
        assertErrWc(p.pollOne(r.cq()), 43, WcStatus.REM_ACCESS_ERR, r.qp().qpNum());
      }
      p.barrier("done");
      p.awaitState(r.qp(), QpState.ERR);
    }
  }

  /** Scenario 43: a local SGE reaching past its region completes LOC_PROT_ERR; the responder is untouched. */
  @Test
  public void localSgeBeyondItsMrCompletesWithLocalProtectionError() {
    twoSided("localSgeBeyondItsMrCompletesWithLocalProtectionErrorBody");
  }

  /**
   * Body of {@link #localSgeBeyondItsMrCompletesWithLocalProtectionError()}.
   *
   * @param p the rank
   */
  public void localSgeBeyondItsMrCompletesWithLocalProtectionErrorBody(Peer p) {
    try (RcResources r = new RcResources(p, RcResources.options()).connect()) {
      p.barrier("connected");
      if (p.rank() == 0) {
        r.qp().postSend(r.write(43, 1024).sge(r.mr(), r.mr().length() - 512, 1024));
        assertErrWc(p.pollOne(r.cq()), 43, WcStatus.LOC_PROT_ERR, r.qp().qpNum());
        p.awaitState(r.qp(), QpState.ERR);
      } else {
        p.expectNoCompletion(r.cq(), Peer.QUIET);
      }
      p.barrier("done");
      if (p.rank() == 1) {
        assertEquals(QpState.RTS, r.qp().state(), "a local error leaves the responder alone");
      }
    }
  }

  /** Scenario 46: a SEND whose lkey belongs to a region of another PD completes LOC_PROT_ERR. */
  @Test
  public void lkeyOfAnotherPdCompletesWithLocalProtectionError() {
    twoSided("lkeyOfAnotherPdCompletesWithLocalProtectionErrorBody");
  }

  /**
   * Body of {@link #lkeyOfAnotherPdCompletesWithLocalProtectionError()}.
   *
   * @param p the rank
   */
  public void lkeyOfAnotherPdCompletesWithLocalProtectionErrorBody(Peer p) {
    try (RcResources r = new RcResources(p, RcResources.options()).connect();
        ProtectionDomain other = p.ctx().allocPd();
        MemoryRegion foreign = other.allocateMemory(1024, EnumSet.of(Access.LOCAL_WRITE))) {
      if (p.rank() == 1) {
        r.postRecv(0);
      }
      p.barrier("recv-posted");
      if (p.rank() == 0) {
        r.qp().postSend(r.send(46, 1024).sge(foreign, 0, 1024));
        assertErrWc(p.pollOne(r.cq()), 46, WcStatus.LOC_PROT_ERR, r.qp().qpNum());
        p.awaitState(r.qp(), QpState.ERR);
      } else {
        p.expectNoCompletion(r.cq(), Peer.QUIET);
      }
      p.barrier("done");
    }
  }

  /** Scenario 46: a WRITE with the rkey of a region whose PD is not the responder QP's completes REM_ACCESS_ERR. */
  @Test
  public void rkeyOfARegionInAnotherPdCompletesWithRemoteAccessError() {
    twoSided("rkeyOfARegionInAnotherPdCompletesWithRemoteAccessErrorBody");
  }

  /**
   * Body of {@link #rkeyOfARegionInAnotherPdCompletesWithRemoteAccessError()}.
   *
   * @param p the rank
   */
  public void rkeyOfARegionInAnotherPdCompletesWithRemoteAccessErrorBody(Peer p) {
    try (RcResources r = new RcResources(p, RcResources.options()).connect();
        ProtectionDomain other = p.ctx().allocPd();
        MemoryRegion foreign = other.allocateMemory(1024, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE))) {
      long[] theirs = p.exchange("foreign", foreign.address(), foreign.rkey());
      if (p.rank() == 0) {
        r.qp().postSend(r.write(46, 512).rdma(theirs[0], (int) theirs[1]));
        assertErrWc(p.pollOne(r.cq()), 46, WcStatus.REM_ACCESS_ERR, r.qp().qpNum());
      }
      p.barrier("done");
      p.awaitState(r.qp(), QpState.ERR);
      if (p.rank() == 1) {
        KitAssertions.assertFilled(foreign.buffer(), 0, 1024, (byte) 0);
      }
    }
  }

  /**
   * Scenario 48 (CONFORMANCE.md): a 2048-byte SEND into a 1024-byte receive: requester
   * REM_INV_REQ_ERR, responder LOC_LEN_ERR, both QPs in ERR.
   */
  @Test
  public void sendLargerThanTheReceiveBufferFailsOnBothSides() {
    twoSided("sendLargerThanTheReceiveBufferFailsOnBothSidesBody");
  }

  /**
   * Body of {@link #sendLargerThanTheReceiveBufferFailsOnBothSides()}.
   *
   * @param p the rank
   */
  public void sendLargerThanTheReceiveBufferFailsOnBothSidesBody(Peer p) {
    try (RcResources r = new RcResources(p, RcResources.options().msgSize(1024).mrSize(4096)).connect()) {
      if (p.rank() == 1) {
        r.postRecv(0);
      }
      p.barrier("recv-posted");
      if (p.rank() == 0) {
        r.qp().postSend(r.send(48, 2048));
        assertErrWc(p.pollOne(r.cq()), 48, WcStatus.REM_INV_REQ_ERR, r.qp().qpNum());
      } else {
        WorkCompletion wc = p.pollOne(r.cq());
        assertErrWc(wc, 0, WcStatus.LOC_LEN_ERR, r.qp().qpNum());
        assertEquals(WcOpcode.RECV, wc.opcode(), "verbs4j fills the opcode of a failed WR");
      }
      p.awaitState(r.qp(), QpState.ERR);
      p.barrier("done");
    }
  }

  /** CONFORMANCE.md: a receive WR with a bad lkey: responder LOC_PROT_ERR, requester REM_OP_ERR, both in ERR. */
  @Test
  public void recvWithABadLkeyGivesLocProtErrAtTheResponderAndRemOpErrAtTheRequester() {
    twoSided("recvWithABadLkeyGivesLocProtErrAtTheResponderAndRemOpErrAtTheRequesterBody");
  }

  /**
   * Body of {@link #recvWithABadLkeyGivesLocProtErrAtTheResponderAndRemOpErrAtTheRequester()}.
   *
   * @param p the rank
   */
  public void recvWithABadLkeyGivesLocProtErrAtTheResponderAndRemOpErrAtTheRequesterBody(Peer p) {
    try (RcResources r = new RcResources(p, RcResources.options()).connect()) {
      if (p.rank() == 1) {
        r.qp().postRecv(new RecvWr().wrId(0).sgList(new Sge(r.mr().address() + r.recvOffset(), r.msgSize(),
            r.mr().lkey() + 1)));
      }
      p.barrier("recv-posted");
      if (p.rank() == 0) {
        r.qp().postSend(r.send(1, r.msgSize()));
        assertErrWc(p.pollOne(r.cq()), 1, WcStatus.REM_OP_ERR, r.qp().qpNum());
      } else {
        assertErrWc(p.pollOne(r.cq()), 0, WcStatus.LOC_PROT_ERR, r.qp().qpNum());
      }
      p.awaitState(r.qp(), QpState.ERR);
      p.barrier("done");
    }
  }

  /** CONFORMANCE.md: a WRITE to a responder QP without REMOTE_WRITE access completes REM_ACCESS_ERR. */
  @Test
  public void writeToAQpWithoutRemoteWriteAccessCompletesWithRemoteAccessError() {
    twoSided("writeToAQpWithoutRemoteWriteAccessCompletesWithRemoteAccessErrorBody");
  }

  /**
   * Body of {@link #writeToAQpWithoutRemoteWriteAccessCompletesWithRemoteAccessError()}.
   *
   * @param p the rank
   */
  public void writeToAQpWithoutRemoteWriteAccessCompletesWithRemoteAccessErrorBody(Peer p) {
    RcResources.Options o = RcResources.options();
    if (p.rank() == 1) {
      o.qpAccess(EnumSet.of(Access.LOCAL_WRITE));
    }
    try (RcResources r = new RcResources(p, o).connect()) {
      p.barrier("connected");
      if (p.rank() == 0) {
        Traffic.fill(r.buffer(), 0, r.msgSize(), (byte) 0x77);
        r.qp().postSend(r.write(1, r.msgSize()));
        assertErrWc(p.pollOne(r.cq()), 1, WcStatus.REM_ACCESS_ERR, r.qp().qpNum());
      }
      p.barrier("done");
      p.awaitState(r.qp(), QpState.ERR);
      if (p.rank() == 1) {
        KitAssertions.assertFilled(r.buffer(), 0, r.msgSize(), (byte) 0);
      }
    }
  }

  /**
   * Scenario 49: a SEND with no receive posted and rnr_retry 1 completes RNR_RETRY_EXC_ERR after
   * the retries; the requester is in ERR, the responder still in RTS with nothing completed.
   */
  @Test
  public void rnrRetryExhaustionCompletesWithRnrRetryExcErrAndTheResponderStaysInRts() {
    twoSided("rnrRetryExhaustionCompletesWithRnrRetryExcErrAndTheResponderStaysInRtsBody");
  }

  /**
   * Body of {@link #rnrRetryExhaustionCompletesWithRnrRetryExcErrAndTheResponderStaysInRts()}.
   *
   * @param p the rank
   */
  public void rnrRetryExhaustionCompletesWithRnrRetryExcErrAndTheResponderStaysInRtsBody(Peer p) {
    try (RcResources r = new RcResources(p, RcResources.options().rnrRetry(1)).connect()) {
      p.barrier("connected");
      if (p.rank() == 0) {
        r.qp().postSend(r.send(49, 64));
        assertErrWc(p.pollOne(r.cq()), 49, WcStatus.RNR_RETRY_EXC_ERR, r.qp().qpNum());
        p.awaitState(r.qp(), QpState.ERR);
      }
      p.barrier("done");
      if (p.rank() == 1) {
        p.expectNoCompletion(r.cq(), Peer.QUIET);
        assertEquals(QpState.RTS, r.qp().state());
      }
    }
  }

  /** Scenario 49 (CONFORMANCE.md: rnr_retry 7 = infinite): a receive posted 100 ms later lets the SEND succeed. */
  @Test
  public void infiniteRnrRetryCompletesOnceAReceiveIsPosted() {
    twoSided("infiniteRnrRetryCompletesOnceAReceiveIsPostedBody");
  }

  /**
   * Body of {@link #infiniteRnrRetryCompletesOnceAReceiveIsPosted()}.
   *
   * @param p the rank
   */
  public void infiniteRnrRetryCompletesOnceAReceiveIsPostedBody(Peer p) {
    try (RcResources r = new RcResources(p, RcResources.options().rnrRetry(7)).connect()) {
      p.barrier("connected");
      if (p.rank() == 0) {
        Traffic.fill(r.buffer(), 0, 64, Traffic.CLIENT_FILL);
        r.qp().postSend(r.send(49, 64));
      }
      p.barrier("sent");
      if (p.rank() == 1) {
        p.pause(Duration.ofMillis(100));
        r.postRecv(0);
        WorkCompletion wc = p.pollOne(r.cq());
        assertWc(wc, 0, WcStatus.SUCCESS, WcOpcode.RECV, r.qp().qpNum());
        KitAssertions.assertFilled(r.buffer(), r.recvOffset(), 64, Traffic.CLIENT_FILL);
      } else {
        assertWc(p.pollOne(r.cq()), 49, WcStatus.SUCCESS, WcOpcode.SEND, r.qp().qpNum());
      }
    }
  }

  /**
   * Scenario 50: after the peer's QP moves to RESET, a SEND with timeout 10 and retry_cnt 2
   * completes RETRY_EXC_ERR and the QP is in ERR.
   */
  @Test
  public void sendToAPeerMovedToResetCompletesWithRetryExcErr() {
    twoSided("sendToAPeerMovedToResetCompletesWithRetryExcErrBody");
  }

  /**
   * Body of {@link #sendToAPeerMovedToResetCompletesWithRetryExcErr()}.
   *
   * @param p the rank
   */
  public void sendToAPeerMovedToResetCompletesWithRetryExcErrBody(Peer p) {
    try (RcResources r = new RcResources(p, RcResources.options().timeout(10).retryCnt(2)).connect()) {
      p.barrier("connected");
      if (p.rank() == 1) {
        r.qp().modify(new QpAttr().qpState(QpState.RESET));
      }
      p.barrier("peer-reset");
      if (p.rank() == 0) {
        r.qp().postSend(r.send(50, 64));
        assertErrWc(p.pollOne(r.cq()), 50, WcStatus.RETRY_EXC_ERR, r.qp().qpNum());
        p.awaitState(r.qp(), QpState.ERR);
      }
      p.barrier("done");
    }
  }

  /**
   * Scenario 51 and §2.5: with 5 receives and 3 unsignaled sends outstanding (the peer not yet
   * able to receive), modify to ERR gives 8 FLUSH_ERR completions (sends in SQ order, receives in
   * RQ order, opcodes filled in); a send posted in ERR also flushes; RESET discards everything
   * without completions (unpolled ones included); INIT→RTR→RTS then carries traffic again.
   */
  @Test
  public void modifyToErrFlushesEveryOutstandingWrInQueueOrder() {
    twoSided("modifyToErrFlushesEveryOutstandingWrInQueueOrderBody");
  }

  /**
   * Body of {@link #modifyToErrFlushesEveryOutstandingWrInQueueOrder()}.
   *
   * @param p the rank
   */
  public void modifyToErrFlushesEveryOutstandingWrInQueueOrderBody(Peer p) {
    // Rank 0's timeout 18 (~1 s) keeps its sends outstanding while rank 1's QP waits in INIT.
    RcResources.Options o = RcResources.options().separateCqs(true).timeout(18).retryCnt(7).msgSize(256);
    try (RcResources r = new RcResources(p, o)) {
      r.exchangeInfo().toInit();
      int qpn = r.qp().qpNum();
      if (p.rank() == 0) {
        for (int i = 0; i < 5; i++) {
          r.postRecv(100 + i);
        }
        r.toRtr().toRts();
        for (int i = 1; i <= 3; i++) {
          r.qp().postSend(r.send(i, 64).signaled(false));
        }
        r.qp().modify(new QpAttr().qpState(QpState.ERR));
        List<WorkCompletion> sends = p.pollUntil(r.sendCq(), 3);
        for (int i = 0; i < 3; i++) {
          assertErrWc(sends.get(i), i + 1, WcStatus.WR_FLUSH_ERR, qpn);
          assertEquals(WcOpcode.SEND, sends.get(i).opcode(), "opcode of a flushed SEND");
        }
        List<WorkCompletion> recvs = p.pollUntil(r.recvCq(), 5);
        for (int i = 0; i < 5; i++) {
          assertErrWc(recvs.get(i), 100 + i, WcStatus.WR_FLUSH_ERR, qpn);
          assertEquals(WcOpcode.RECV, recvs.get(i).opcode(), "opcode of a flushed receive");
        }
        r.qp().postSend(r.send(4, 64));
        assertErrWc(p.pollOne(r.sendCq()), 4, WcStatus.WR_FLUSH_ERR, qpn);
        r.qp().postSend(r.send(5, 64));
        r.postRecv(105);
        p.pause(Duration.ofMillis(50)); // let the flush completions of WR 5 and 105 land unpolled
        r.qp().modify(new QpAttr().qpState(QpState.RESET));
        p.expectNoCompletion(r.sendCq(), Peer.QUIET);
        p.expectNoCompletion(r.recvCq(), Peer.QUIET);
        r.psn((r.psn() + 0x1000) & 0xFFFFFF); // fresh PSNs for the new connection
        r.toInit();
      }
      p.barrier("flushed");
      r.exchangeInfo();
      if (p.rank() == 1) {
        r.postRecv(0);
      }
      r.toRtr().toRts();
      p.barrier("reconnected");
      if (p.rank() == 0) {
        Traffic.fill(r.buffer(), 0, 64, Traffic.CLIENT_FILL);
        r.qp().postSend(r.send(6, 64));
        assertWc(p.pollOne(r.sendCq()), 6, WcStatus.SUCCESS, WcOpcode.SEND, qpn);
      } else {
        assertWc(p.pollOne(r.recvCq()), 0, WcStatus.SUCCESS, WcOpcode.RECV, qpn);
        KitAssertions.assertFilled(r.buffer(), r.recvOffset(), 64, Traffic.CLIENT_FILL);
      }
    }
  }

  /** Scenario 53: an RDMA READ to a responder with max_dest_rd_atomic 0 completes REM_INV_REQ_ERR. */
  @Test
  public void rdmaReadToAResponderWithZeroMaxDestRdAtomicCompletesWithRemInvReqErr() {
    twoSided("rdmaReadToAResponderWithZeroMaxDestRdAtomicCompletesWithRemInvReqErrBody");
  }

  /**
   * Body of {@link #rdmaReadToAResponderWithZeroMaxDestRdAtomicCompletesWithRemInvReqErr()}.
   *
   * @param p the rank
   */
  public void rdmaReadToAResponderWithZeroMaxDestRdAtomicCompletesWithRemInvReqErrBody(Peer p) {
    RcResources.Options o = RcResources.options();
    if (p.rank() == 1) {
      o.maxDestRdAtomic(0);
    }
    try (RcResources r = new RcResources(p, o).connect()) {
      p.barrier("connected");
      if (p.rank() == 0) {
        r.qp().postSend(new SendWr().wrId(53).opcode(WrOpcode.RDMA_READ).signaled(true).sge(r.mr(), 0, 256)
            .rdma(r.remote().addr(), r.remote().rkey()));
        assertErrWc(p.pollOne(r.cq()), 53, WcStatus.REM_INV_REQ_ERR, r.qp().qpNum());
        p.awaitState(r.qp(), QpState.ERR);
      }
      p.barrier("done");
    }
  }
}
