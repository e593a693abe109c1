package io.github.verbs4j.verbs.conformance;

import static io.github.verbs4j.verbs.conformance.KitAssertions.assertErrWc;
import static io.github.verbs4j.verbs.conformance.KitAssertions.assertWc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.github.verbs4j.verbs.AsyncEvent;
import io.github.verbs4j.verbs.AsyncEventType;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

/**
 * Conformance of the QP async events CONFORMANCE.md lists as raised (COMM_EST, SQ_DRAINED,
 * QP_REQ_ERR, QP_ACCESS_ERR; §4.3 [rec]: the responder raises QP_REQ_ERR / QP_ACCESS_ERR when an
 * incoming RC request is NAKed and no responder completion reports it). CQ_ERR is checked by
 * {@link CompletionQueueConformance}, SRQ_LIMIT_REACHED and QP_LAST_WQE_REACHED by {@link
 * SharedReceiveQueueConformance}; PORT_ACTIVE/PORT_ERR (raised only when a port changes state,
 * never at open) by {@link PortEventConformance}.
 * Subclass it and return your {@link KitEnvironment}; see {@link AbstractConformance}.
 */
public abstract class AsyncEventConformance extends AbstractConformance {

  /** §3.9 and §4.3: a WRITE with a bad rkey raises QP_ACCESS_ERR on the responder QP. */
  @Test
  public void remoteAccessViolationRaisesQpAccessErrOnTheResponder() {
    twoSided("remoteAccessViolationRaisesQpAccessErrOnTheResponderBody");
  }

  /**
   * Body of {@link #remoteAccessViolationRaisesQpAccessErrOnTheResponder()}.
   *
   * @param p the rank
   */
  public void remoteAccessViolationRaisesQpAccessErrOnTheResponderBody(Peer p) {
    try (RcResources r = new RcResources(p, RcResources.options()).connect()) {
      p.barrier("connected");
      if (p.rank() == 0) {
        r.qp().postSend(r.write(1, 256).rdma(r.remote().addr(), r.remote().rkey() + 1));
        assertErrWc(p.pollOne(r.cq()), 1, WcStatus.REM_ACCESS_ERR, r.qp().qpNum());
      } else {
        AsyncEvent ev = p.awaitAsyncEvent(AsyncEventType.QP_ACCESS_ERR, p.timeout());
        assertSame(r.qp(), ev.qp(), "the event names the responder QP");
      }
      p.barrier("done");
    }
  }

  /** §3.5 and §4.3: a READ to a responder with max_dest_rd_atomic 0 raises QP_REQ_ERR on the responder QP. */
  @Test
  public void invalidRequestRaisesQpReqErrOnTheResponder() {
    twoSided("invalidRequestRaisesQpReqErrOnTheResponderBody");
  }

  /**
   * Body of {@link #invalidRequestRaisesQpReqErrOnTheResponder()}.
   *
   * @param p the rank
   */
  public void invalidRequestRaisesQpReqErrOnTheResponderBody(Peer p) {
    RcResources.Options o = RcResources.options();
    if (p.rank() == 1) {
      o.maxDestRdAtomic(0);
    }
    try (RcResources r = new RcResources(p, o).connect()) {
      p.barrier("connected");
      if (p.rank() == 0) {
        r.qp().postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_READ).signaled(true).sge(r.mr(), 0, 64)
            .rdma(r.remote().addr(), r.remote().rkey()));
        assertErrWc(p.pollOne(r.cq()), 1, WcStatus.REM_INV_REQ_ERR, r.qp().qpNum());
      } else {
        AsyncEvent ev = p.awaitAsyncEvent(AsyncEventType.QP_REQ_ERR, p.timeout());
        assertSame(r.qp(), ev.qp(), "the event names the responder QP");
      }
      p.barrier("done");
    }
  }

  /** §2.1 and §4.3: the first packet received by an RC QP in RTR raises COMM_EST for that QP. */
  @Test
  public void firstPacketReceivedInRtrRaisesCommunicationEstablished() {
    twoSided("firstPacketReceivedInRtrRaisesCommunicationEstablishedBody");
  }

  /**
   * Body of {@link #firstPacketReceivedInRtrRaisesCommunicationEstablished()}.
   *
   * @param p the rank
   */
  public void firstPacketReceivedInRtrRaisesCommunicationEstablishedBody(Peer p) {
    try (RcResources r = new RcResources(p, RcResources.options())) {
      r.exchangeInfo().toInit();
      if (p.rank() == 1) {
        r.postRecv(0);
        r.toRtr();
      } else {
        r.toRtr().toRts();
      }
      p.barrier("ready");
      if (p.rank() == 0) {
        r.qp().postSend(r.send(1, 64));
        assertWc(p.pollOne(r.cq()), 1, WcStatus.SUCCESS, WcOpcode.SEND, r.qp().qpNum());
      } else {
        assertWc(p.pollOne(r.cq()), 0, WcStatus.SUCCESS, WcOpcode.RECV, r.qp().qpNum());
        AsyncEvent ev = p.awaitAsyncEvent(AsyncEventType.COMM_EST, p.timeout());
        assertSame(r.qp(), ev.qp());
        assertEquals(QpState.RTR, r.qp().state(), "COMM_EST does not change the state");
        r.toRts();
      }
      p.barrier("done");
    }
  }

  /** §2.1: RTS→SQD with EN_SQD_ASYNC_NOTIFY raises SQ_DRAINED once outstanding sends are done; SQD→RTS resumes. */
  @Test
  public void sqdWithNotificationRaisesSqDrainedAndRtsResumes() {
    twoSided("sqdWithNotificationRaisesSqDrainedAndRtsResumesBody");
  }

  /**
   * Body of {@link #sqdWithNotificationRaisesSqDrainedAndRtsResumes()}.
   *
   * @param p the rank
   */
  public void sqdWithNotificationRaisesSqDrainedAndRtsResumesBody(Peer p) {
    try (RcResources r = new RcResources(p, RcResources.options()).connect()) {
      if (p.rank() == 1) {
        r.postRecv(0);
        r.postRecv(1);
      }
      p.barrier("recvs-posted");
      if (p.rank() == 0) {
        r.qp().postSend(r.send(1, r.msgSize()));
        r.qp().modify(new QpAttr().qpState(QpState.SQD).enSqdAsyncNotify(true));
        AsyncEvent ev = p.awaitAsyncEvent(AsyncEventType.SQ_DRAINED, p.timeout());
        assertSame(r.qp(), ev.qp());
        assertWc(p.pollOne(r.cq()), 1, WcStatus.SUCCESS, WcOpcode.SEND, r.qp().qpNum());
        assertEquals(false, r.qp().query().sqDraining(), "drained");
        r.qp().modify(new QpAttr().qpState(QpState.RTS));
        r.qp().postSend(r.send(2, r.msgSize()));
        assertWc(p.pollOne(r.cq()), 2, WcStatus.SUCCESS, WcOpcode.SEND, r.qp().qpNum());
      } else {
        p.pollUntil(r.cq(), 2).forEach(wc -> assertEquals(WcStatus.SUCCESS, wc.status(), wc::toString));
      }
    }
  }
}
