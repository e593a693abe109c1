package io.github.verbs4j.verbs.conformance;

import static io.github.verbs4j.verbs.conformance.KitAssertions.assertEinvalNaming;
import static io.github.verbs4j.verbs.conformance.KitAssertions.assertErrno;
import static io.github.verbs4j.verbs.conformance.KitAssertions.assertWc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.AsyncEvent;
import io.github.verbs4j.verbs.AsyncEventType;
import io.github.verbs4j.verbs.Capability;
import io.github.verbs4j.verbs.DeviceAttr;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SharedReceiveQueue;
import io.github.verbs4j.verbs.SrqAttr;
import io.github.verbs4j.verbs.SrqAttrMask;
import io.github.verbs4j.verbs.VerbsException;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Conformance of shared receive queues: traffic through an SRQ shared by two RC QPs, the limit
 * event, LAST_WQE_REACHED, resize and the SRQ's post and close rules (§6 scenarios 27, 52, 54,
 * 55; §4.4; §3.10). Subclass it and return your {@link KitEnvironment}; see {@link
 * AbstractConformance}.
 */
public abstract class SharedReceiveQueueConformance extends AbstractConformance {

  /** Scenario 27: two RC QPs sharing an SRQ, 100 ping-pongs: every message arrives; WCs carry the receiving QP's number. */
  @Test
  public void twoRcQpsSharingAnSrqReceiveEveryMessageWithTheirQpNum() {
    twoSided("twoRcQpsSharingAnSrqReceiveEveryMessageWithTheirQpNumBody");
  }

  /**
   * Body of {@link #twoRcQpsSharingAnSrqReceiveEveryMessageWithTheirQpNum()}.
   *
   * @param p the rank
   */
  public void twoRcQpsSharingAnSrqReceiveEveryMessageWithTheirQpNumBody(Peer p) {
    int iters = 100;
    try (SrqResources s = new SrqResources(p, SrqResources.options().qpCount(2)).connect()) {
      int msg = s.qp(0).msgSize();
      long nextRecv = 0;
      for (int k = 0; k < 4; k++) {
        s.postSrqRecv(nextRecv++);
      }
      Traffic.Completions wcs = new Traffic.Completions(Traffic.busyPoller(p), s.cq(), s.cq());
      p.barrier("recvs-posted");
      for (int i = 0; i < iters; i++) {
        RcResources q = s.qp(i % 2);
        int qpn = q.qp().qpNum();
        if (p.isClient()) {
          Patterns.fill(q.buffer(), 0, msg, 2 * i);
          q.qp().postSend(q.send(i, msg));
          assertWc(wcs.send(), i, WcStatus.SUCCESS, WcOpcode.SEND, qpn);
        }
        WorkCompletion recv = wcs.recv();
        assertEquals(WcStatus.SUCCESS, recv.status(), recv::toString);
        assertEquals(WcOpcode.RECV, recv.opcode(), recv::toString);
        assertEquals(qpn, recv.qpNum(), "qp_num names the QP that received (iteration " + i + ")");
        assertEquals(msg, recv.byteLen());
        Patterns.verify("message " + i, s.recvMr().buffer(), s.slotOffset(recv.wrId()), msg,
            p.isClient() ? 2 * i + 1 : 2 * i);
        s.postSrqRecv(nextRecv++);
        if (!p.isClient()) {
          Patterns.fill(q.buffer(), 0, msg, 2 * i + 1);
          q.qp().postSend(q.send(i, msg));
          assertWc(wcs.send(), i, WcStatus.SUCCESS, WcOpcode.SEND, qpn);
        }
      }
    }
  }

  /**
   * Scenario 52: a QP on an SRQ moved to ERR raises QP_LAST_WQE_REACHED (element = the QP); the
   * SRQ's WRs are not flushed and stay available to the other QP.
   */
  @Test
  public void qpOnAnSrqMovedToErrRaisesLastWqeReachedAndTheSrqWrsStayAvailable() {
    twoSided("qpOnAnSrqMovedToErrRaisesLastWqeReachedAndTheSrqWrsStayAvailableBody");
  }

  /**
   * Body of {@link #qpOnAnSrqMovedToErrRaisesLastWqeReachedAndTheSrqWrsStayAvailable()}.
   *
   * @param p the rank
   */
  public void qpOnAnSrqMovedToErrRaisesLastWqeReachedAndTheSrqWrsStayAvailableBody(Peer p) {
    try (SrqResources s = new SrqResources(p, SrqResources.options().qpCount(2)).connect()) {
      if (p.rank() == 1) {
        for (int k = 0; k < 4; k++) {
          s.postSrqRecv(k);
        }
        s.qp(0).qp().modify(new QpAttr().qpState(QpState.ERR));
        AsyncEvent ev = p.awaitAsyncEvent(AsyncEventType.QP_LAST_WQE_REACHED, p.timeout());
        assertSame(s.qp(0).qp(), ev.qp(), "the event names the QP that entered ERR");
        p.expectNoCompletion(s.cq(), Peer.QUIET);
      }
      p.barrier("errored");
      if (p.rank() == 0) {
        RcResources q = s.qp(1);
        Patterns.fill(q.buffer(), 0, q.msgSize(), 52);
        q.qp().postSend(q.send(1, q.msgSize()));
        assertWc(p.pollOne(s.cq()), 1, WcStatus.SUCCESS, WcOpcode.SEND, q.qp().qpNum());
      } else {
        WorkCompletion wc = p.pollOne(s.cq());
        assertWc(wc, 0, WcStatus.SUCCESS, WcOpcode.RECV, s.qp(1).qp().qpNum());
        Patterns.verify("message through the surviving QP", s.recvMr().buffer(), s.slotOffset(0), s.qp(1).msgSize(),
            52);
      }
    }
  }

  /**
   * Scenario 54: 10 WRs posted, srq_limit 7 (queried back); 3 consumed: no event; the 4th: exactly
   * one SRQ_LIMIT_REACHED (element = the SRQ) and the limit reads 0; more consumption: no event.
   */
  @Test
  public void srqLimitEventFiresOnceWhenTheCountDropsBelowTheLimit() {
    twoSided("srqLimitEventFiresOnceWhenTheCountDropsBelowTheLimitBody");
  }

  /**
   * Body of {@link #srqLimitEventFiresOnceWhenTheCountDropsBelowTheLimit()}.
   *
   * @param p the rank
   */
  public void srqLimitEventFiresOnceWhenTheCountDropsBelowTheLimitBody(Peer p) {
    try (SrqResources s = new SrqResources(p, SrqResources.options().qpCount(1).srqMaxWr(16)).connect()) {
      RcResources q = s.qp(0);
      if (p.rank() == 1) {
        for (int k = 0; k < 10; k++) {
          s.postSrqRecv(k);
        }
        s.srq().arm(7);
        assertEquals(7, s.srq().query().srqLimit());
      }
      int[] batches = {3, 1, 2};
      for (int b = 0; b < batches.length; b++) {
        p.barrier("batch-" + b);
        if (p.rank() == 0) {
          for (int i = 0; i < batches[b]; i++) {
            q.qp().postSend(q.send(i, 64));
          }
          p.pollUntil(s.cq(), batches[b]).forEach(wc -> assertEquals(WcStatus.SUCCESS, wc.status(), wc::toString));
        } else {
          p.pollUntil(s.cq(), batches[b]).forEach(wc -> assertEquals(WcStatus.SUCCESS, wc.status(), wc::toString));
          if (b == 1) {
            AsyncEvent ev = p.awaitAsyncEvent(AsyncEventType.SRQ_LIMIT_REACHED, p.timeout());
            assertSame(s.srq(), ev.srq(), "the event names the SRQ");
            assertEquals(0, s.srq().query().srqLimit(), "the limit disarms after the event");
          }
          assertEquals(List.of(), p.asyncEvents(AsyncEventType.SRQ_LIMIT_REACHED, Peer.QUIET),
              b == 0 ? "7 left is not below the limit 7" : "one event per arming");
        }
      }
    }
  }

  /** Scenario 54: srq_limit > max_wr fails with EINVAL and leaves the limit as it was. */
  @Test
  public void srqLimitAboveMaxWrFailsWithEinval() {
    oneSided(p -> {
      try (ProtectionDomain pd = p.ctx().allocPd(); SharedReceiveQueue srq = pd.createSrq(SrqAttr.of(16, 1))) {
        srq.arm(2);
        int maxWr = srq.query().maxWr();
        assertTrue(maxWr >= 16, "max_wr " + maxWr);
        assertEinvalNaming("srq_limit", () -> srq.arm(maxWr + 1));
        assertEquals(2, srq.query().srqLimit());
      }
    });
  }

  /** Scenario 55 (optional, with SRQ_RESIZE): max_wr = min(device max, 2 × current) is queried back at least as large. */
  @Test
  public void srqResizeGrowsMaxWr() {
    oneSided(p -> {
      assumeCapability(p, Capability.SRQ_RESIZE);
      DeviceAttr d = p.ctx().queryDevice();
      try (ProtectionDomain pd = p.ctx().allocPd(); SharedReceiveQueue srq = pd.createSrq(SrqAttr.of(16, 1))) {
        int want = Math.min(d.maxSrqWr(), 2 * srq.query().maxWr());
        srq.modify(new SrqAttr(want, 1, 0), SrqAttrMask.MAX_WR.value());
        assertTrue(srq.query().maxWr() >= want, "max_wr " + srq.query().maxWr() + " < requested " + want);
      }
    });
  }

  /** Scenario 55: without SRQ_RESIZE a resize is rejected with EOPNOTSUPP and max_wr is unchanged. */
  @Test
  public void srqResizeWithoutTheCapabilityIsRejected() {
    oneSided(p -> {
      Assumptions.assumeFalse(p.ctx().queryDevice().has(Capability.SRQ_RESIZE), "the device can resize SRQs");
      try (ProtectionDomain pd = p.ctx().allocPd(); SharedReceiveQueue srq = pd.createSrq(SrqAttr.of(16, 1))) {
        int before = srq.query().maxWr();
        assertErrno(Errno.EOPNOTSUPP, () -> srq.modify(new SrqAttr(2 * before, 1, 0), SrqAttrMask.MAX_WR.value()));
        assertEquals(before, srq.query().maxWr());
      }
    });
  }

  /** §3.10 and §4.4: post_recv on a QP that uses an SRQ fails with EINVAL; the SRQ cannot be closed while a QP uses it. */
  @Test
  public void aQpOnAnSrqRejectsPostRecvAndKeepsTheSrqOpen() {
    oneSided(p -> {
      try (SrqResources s = new SrqResources(p, SrqResources.options().qpCount(1))) {
        RcResources q = s.qp(0);
        q.toInit();
        VerbsException e = assertErrno(Errno.EINVAL, () -> q.qp().postRecv(new RecvWr().wrId(1)
            .sge(q.mr(), 0, 64)));
        assertTrue(e.getMessage().contains("SRQ"), e.getMessage());
        assertSame(s.srq(), q.qp().srq());
        assertErrno(Errno.EBUSY, s.srq()::close);
      }
    });
  }

  /** §4.4: an SRQ beyond max_srq_wr or max_srq_sge fails with EINVAL naming the limit. */
  @Test
  public void srqCreationBeyondTheDeviceLimitsFailsWithEinval() {
    oneSided(p -> {
      DeviceAttr d = p.ctx().queryDevice();
      try (ProtectionDomain pd = p.ctx().allocPd()) {
        assertEinvalNaming("max_wr", () -> pd.createSrq(SrqAttr.of(d.maxSrqWr() + 1, 1)));
        assertEinvalNaming("max_sge", () -> pd.createSrq(SrqAttr.of(16, d.maxSrqSge() + 1)));
      }
    });
  }
}
