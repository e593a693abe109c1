package io.github.verbs4j.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.ib.engine.IbCounters.Counter;
import io.github.verbs4j.ib.engine.IbParams;
import io.github.verbs4j.ib.engine.SrqFlowParams;
import io.github.verbs4j.ib.wire.Opcode;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.Capability;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.Mtu;
import io.github.verbs4j.verbs.PortCounter;
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
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Seed 002's SRQ flow control, packet by packet: an empty SRQ answers a SEND with a stop request
 * (not an RNR NAK) and sets the sender's bit; the device polls the SRQ every t_poll and, once
 * receives are posted, sends resend requests to exactly the stopped senders; a stopped requester
 * holds its stream at the stopped PSN without spending retry_cnt or rnr_retry and without timing
 * out, resumes from that PSN on the resend request, probes after its stop timer, and still ends in
 * RETRY_EXC_ERR within a bounded time when the receiver is gone. Crafted packets go in through a
 * {@link CapturePort}; a fake clock drives the timers.
 */
class SrqStopResendTest {
  private static final int PEER_LID = 2;
  private static final int PEER_QPN = 0x777;
  private static final int OTHER_LID = 3;
  private static final int OTHER_QPN = 0x778;
  /** timeout code 18: 4.096 us * 2^18, about 1.07 s. */
  private static final int TIMEOUT_CODE = 18;
  private static final long TIMEOUT_NANOS = 4096L << TIMEOUT_CODE;
  private static final long POLL = SrqFlowParams.PAPER_POLL_NANOS;

  private CapturedHca hca;
  private CapturePort port;
  private IbContext ctx;
  private ProtectionDomain pd;
  private CompletionQueue cq;

  private void start(SrqFlowParams.Mode mode) {
    hca = new CapturedHca(IbParams.builder().srqFlow(new SrqFlowParams(mode, 16, 4, POLL)));
    port = hca.port;
    ctx = hca.ctx;
    pd = hca.pd;
    cq = hca.cq;
  }

  @AfterEach
  void close() throws Exception {
    if (hca != null) {
      CapturedHca h = hca;
      hca = null;
      h.close();
    }
  }

  private SharedReceiveQueue srq() {
    SharedReceiveQueue s = pd.createSrq(SrqAttr.of(16, 1));
    hca.track(s);
    return s;
  }

  /** An RC QP with path MTU 256, on {@code srq} if not null, connected to (lid, qpn). */
  private QueuePair rc(SharedReceiveQueue srq, int lid, int qpn, int sqPsn, int rqPsn, int retryCnt, int rnrRetry) {
    QpInitAttr.Builder b = QpInitAttr.builder(QpType.RC).cq(cq)
        .cap(QpCap.builder().maxSendWr(16).maxRecvWr(srq == null ? 16 : 0).build());
    if (srq != null) {
      b.srq(srq);
    }
    QueuePair qp = pd.createQp(b.build());
    hca.track(qp);
    qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(TwoNodes.ALL));
    qp.modify(new QpAttr().qpState(QpState.RTR).ahAttr(AhAttr.lid(lid)).pathMtu(Mtu.MTU_256)
        .destQpNum(qpn).rqPsn(rqPsn).maxDestRdAtomic(1).minRnrTimer(14));
    qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(sqPsn).timeout(TIMEOUT_CODE).retryCnt(retryCnt)
        .rnrRetry(rnrRetry).maxRdAtomic(1));
    return qp;
  }

  private MemoryRegion mr(int len) {
    MemoryRegion m = pd.allocateMemory(len, TwoNodes.ALL);
    hca.track(m);
    return m;
  }

  /** @return the packets sent since the last call; the caller releases them ({@link #release}) */
  private List<Pkt.Seen> sent() {
    List<Pkt.Seen> l = new ArrayList<>();
    for (ByteBuf b : port.takeAll()) {
      l.add(Pkt.Seen.of(b));
    }
    return l;
  }

  private static void release(List<Pkt.Seen> l) {
    l.forEach(s -> s.buf().release());
  }

  private List<Integer> sentPsns() {
    List<Pkt.Seen> l = sent();
    List<Integer> psns = l.stream().map(Pkt.Seen::psn).toList();
    release(l);
    return psns;
  }

  private WorkCompletion[] polled() {
    WorkCompletion[] wcs = WorkCompletion.array(64);
    int n = cq.poll(wcs);
    WorkCompletion[] out = new WorkCompletion[n];
    System.arraycopy(wcs, 0, out, 0, n);
    return out;
  }

  private long counter(Counter c) {
    return ctx.counters().get(c);
  }

  private void inject(QueuePair qp, int fromLid, Pkt p) {
    port.inject(fromLid, p.from(fromLid).to(qp.qpNum()).build());
  }

  private void inject(QueuePair qp, Pkt p) {
    inject(qp, PEER_LID, p);
  }

  private static Pkt stop(int psn) {
    return Pkt.of(Opcode.SRQ_STOP_REQUEST).psn(psn).srqFc(1, 9);
  }

  private static Pkt resend(int psn) {
    return Pkt.of(Opcode.SRQ_RESEND_REQUEST).psn(psn).srqFc(1, 9);
  }

  private static Pkt ack(int psn) {
    return Pkt.of(Opcode.RC_ACKNOWLEDGE).psn(psn);
  }

  private static Pkt send(int psn) {
    return Pkt.of(Opcode.RC_SEND_ONLY).psn(psn).ackReq().payload(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
  }

  // ------------------------------------------------------------------ capability

  @Test
  void theDeviceReportsSrqStopResendOnlyWhenTheModeIsStopResend() {
    start(SrqFlowParams.Mode.STOP_RESEND);
    assertTrue(ctx.queryDevice().has(Capability.SRQ_STOP_RESEND));
    close0();
    start(SrqFlowParams.Mode.RNR);
    assertFalse(ctx.queryDevice().has(Capability.SRQ_STOP_RESEND));
  }

  private void close0() {
    try {
      close();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    cq = null;
  }

  // ------------------------------------------------------------------ responder and the SRQ's device poll

  @Test
  void aSendIntoAnEmptySrqIsDroppedAndAnsweredWithAStopRequestNotAnRnrNak() {
    start(SrqFlowParams.Mode.STOP_RESEND);
    SharedReceiveQueue srq = srq();
    QueuePair qp = rc(srq, PEER_LID, PEER_QPN, 10, 100, 7, 7);
    inject(qp, send(100));
    List<Pkt.Seen> out = sent();
    assertEquals(1, out.size());
    Pkt.Seen s = out.get(0);
    assertEquals(Opcode.SRQ_STOP_REQUEST, s.op());
    assertEquals(100, s.psn(), "the stop names the dropped PSN");
    assertEquals(PEER_QPN, s.destQp());
    assertEquals(PEER_LID, s.dlid());
    assertEquals(srq.srqNum(), s.srqFcSrq());
    assertEquals(PEER_LID * 4, s.srqFcSlot(), "slot = node * processes + process (the node's first sender)");
    release(out);
    inject(qp, send(101));
    inject(qp, send(102));
    assertTrue(sentPsns().isEmpty(), "behind a stop nothing is NAKed: the sender resends from 100 anyway");
    assertEquals(2, counter(Counter.DROP_BEHIND_STOP));
    assertEquals(1, counter(Counter.SRQ_STOPS_SENT));
    assertEquals(0, counter(Counter.RNR_NAKS_SENT));
    assertEquals(0, counter(Counter.SEQ_NAKS_SENT));
    assertEquals(0, ctx.queryPortCounters(1).get(PortCounter.SEND_RNR_ERR));
    assertEquals(0, polled().length, "a dropped SEND completes nothing");
  }

  @Test
  void inRnrModeTheSameSendIsRnrNaked() {
    start(SrqFlowParams.Mode.RNR);
    SharedReceiveQueue srq = srq();
    QueuePair qp = rc(srq, PEER_LID, PEER_QPN, 10, 100, 7, 7);
    inject(qp, send(100));
    List<Pkt.Seen> out = sent();
    assertEquals(1, out.size());
    assertEquals(Opcode.RC_ACKNOWLEDGE, out.get(0).op());
    release(out);
    assertEquals(1, counter(Counter.RNR_NAKS_SENT));
    assertEquals(0, counter(Counter.SRQ_STOPS_SENT));
    port.advance(10 * POLL);
    assertEquals(0, counter(Counter.SRQ_POLLS), "no poll without stop-resend");
  }

  @Test
  void postedReceivesAreFoundByTheDevicePollAndExactlyTheStoppedSendersGetResendRequests() {
    start(SrqFlowParams.Mode.STOP_RESEND);
    SharedReceiveQueue srq = srq();
    MemoryRegion m = mr(1024);
    QueuePair a = rc(srq, PEER_LID, PEER_QPN, 10, 100, 7, 7);
    QueuePair b = rc(srq, OTHER_LID, OTHER_QPN, 10, 500, 7, 7);
    QueuePair idle = rc(srq, 4, 0x779, 10, 900, 7, 7);
    inject(a, send(100));
    inject(b, OTHER_LID, send(500));
    List<Pkt.Seen> stops = sent();
    assertEquals(List.of(Opcode.SRQ_STOP_REQUEST, Opcode.SRQ_STOP_REQUEST), stops.stream().map(Pkt.Seen::op).toList());
    int slotA = stops.get(0).srqFcSlot();
    int slotB = stops.get(1).srqFcSlot();
    assertNotEquals(slotA, slotB);
    release(stops);

    port.advance(POLL);
    assertEquals(1, counter(Counter.SRQ_POLLS), "the device polls the SRQ every t_poll");
    assertTrue(sentPsns().isEmpty(), "the SRQ is still empty: nobody is asked to resend");
    for (int i = 0; i < 2; i++) {
      srq.postRecv(new RecvWr().wrId(i).sge(m, i * 64L, 64));
    }
    assertTrue(sentPsns().isEmpty(), "posting raises nothing: no interrupt, no event, the device polls");
    port.advance(POLL);
    List<Pkt.Seen> resends = sent();
    assertEquals(2, resends.size());
    for (Pkt.Seen r : resends) {
      assertEquals(Opcode.SRQ_RESEND_REQUEST, r.op());
      if (r.dlid() == PEER_LID) {
        assertEquals(PEER_QPN, r.destQp());
        assertEquals(100, r.psn());
        assertEquals(slotA, r.srqFcSlot());
      } else {
        assertEquals(OTHER_LID, r.dlid());
        assertEquals(OTHER_QPN, r.destQp());
        assertEquals(500, r.psn());
        assertEquals(slotB, r.srqFcSlot());
      }
    }
    release(resends);
    assertEquals(2, counter(Counter.SRQ_RESENDS_SENT));
    long polls = counter(Counter.SRQ_POLLS);
    port.advance(10 * POLL);
    assertTrue(sentPsns().isEmpty(), "the bits were cleared: one resend request per stop");
    assertEquals(polls, counter(Counter.SRQ_POLLS), "no stopped sender left: the poll stops");

    inject(a, send(100));
    inject(b, OTHER_LID, send(500));
    WorkCompletion[] wc = polled();
    assertEquals(2, wc.length);
    assertEquals(WcStatus.SUCCESS, wc[0].status());
    assertEquals(WcOpcode.RECV, wc[0].opcode());
    assertEquals(a.qpNum(), wc[0].qpNum());
    assertEquals(8, wc[0].byteLen());
    assertEquals(b.qpNum(), wc[1].qpNum());
    sentPsns();
    assertEquals(0, idle.query().rqPsn() - 900, "the idle QP saw nothing");
  }

  @Test
  void withFewerReceivesThanStoppedSendersAsManyAreAskedToResendRoundRobinAndTheRestStayStopped() {
    start(SrqFlowParams.Mode.STOP_RESEND);
    SharedReceiveQueue srq = srq();
    MemoryRegion m = mr(1024);
    QueuePair a = rc(srq, PEER_LID, PEER_QPN, 10, 100, 7, 7);
    QueuePair b = rc(srq, OTHER_LID, OTHER_QPN, 10, 500, 7, 7);
    QueuePair c = rc(srq, 4, 0x779, 10, 900, 7, 7);
    inject(a, send(100));
    inject(b, OTHER_LID, send(500));
    inject(c, 4, send(900));
    assertEquals(3, counter(Counter.SRQ_STOPS_SENT));
    sentPsns();
    srq.postRecv(new RecvWr().wrId(1).sge(m, 0, 64));
    port.advance(POLL);
    assertEquals(List.of(100), sentPsns(), "one receive: one sender asked, the first stopped");
    port.advance(3 * POLL);
    assertTrue(sentPsns().isEmpty(), "the receive is promised to that sender: nobody else is asked");
    inject(a, send(100));
    assertEquals(1, polled().length, "a's resent request took it");
    assertEquals(List.of(100), sentPsns(), "its ACK");
    inject(a, send(101)); // a's next message finds the SRQ dry: a is stopped again
    assertEquals(List.of(101), sentPsns());
    srq.postRecv(new RecvWr().wrId(2).sge(m, 64, 64));
    port.advance(POLL);
    assertEquals(List.of(500), sentPsns(), "round robin: b is next, not a again");
    inject(b, OTHER_LID, send(500));
    assertEquals(1, polled().length);
    sentPsns();
    srq.postRecv(new RecvWr().wrId(3).sge(m, 128, 64));
    srq.postRecv(new RecvWr().wrId(4).sge(m, 192, 64));
    port.advance(POLL);
    List<Integer> last = sentPsns();
    assertEquals(2, last.size(), "two receives: the last two stopped senders");
    assertTrue(last.containsAll(List.of(900, 101)), last::toString);
    assertEquals(4, counter(Counter.SRQ_RESENDS_SENT));
    assertEquals(0, counter(Counter.RNR_NAKS_SENT));
  }

  @Test
  void aResumedSenderReopensItsWindowDoublingFromTheStoppedMessage() {
    start(SrqFlowParams.Mode.STOP_RESEND);
    QueuePair qp = rc(null, PEER_LID, PEER_QPN, 10, 100, 0, 0);
    MemoryRegion m = mr(64);
    for (int i = 0; i < 8; i++) {
      qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16)); // PSNs 10..17
    }
    assertEquals(List.of(10, 11, 12, 13, 14, 15, 16, 17), sentPsns());
    inject(qp, stop(10));
    inject(qp, resend(10));
    List<Pkt.Seen> w1 = sent();
    assertEquals(List.of(10), w1.stream().map(Pkt.Seen::psn).toList(), "the stopped message alone");
    assertTrue(w1.get(0).ackReq());
    release(w1);
    inject(qp, ack(10));
    assertEquals(List.of(11, 12), sentPsns(), "then two");
    inject(qp, ack(12));
    List<Pkt.Seen> w3 = sent();
    assertEquals(List.of(13, 14, 15, 16), w3.stream().map(Pkt.Seen::psn).toList(), "then four");
    assertTrue(w3.get(3).ackReq(), "each window asks for its ACK at its end");
    release(w3);
    inject(qp, ack(16));
    assertEquals(List.of(17), sentPsns());
    inject(qp, ack(17));
    assertEquals(8, polled().length);
    assertEquals(0, counter(Counter.RETRANSMITS), "a resend request is no retry");
  }

  @Test
  void withStopResendALocalAckTimeoutProbesWithTheOldestMessageAlone() {
    start(SrqFlowParams.Mode.STOP_RESEND);
    QueuePair qp = rc(null, PEER_LID, PEER_QPN, 10, 100, 7, 0);
    MemoryRegion m = mr(64);
    for (int i = 0; i < 3; i++) {
      qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16)); // PSNs 10..12
    }
    assertEquals(List.of(10, 11, 12), sentPsns());
    port.advance(TIMEOUT_NANOS);
    List<Pkt.Seen> probe = sent();
    assertEquals(List.of(10), probe.stream().map(Pkt.Seen::psn).toList(),
        "the receiver is silent: not the whole window again into its backlog");
    assertTrue(probe.get(0).ackReq());
    release(probe);
    assertEquals(1, counter(Counter.TRANSPORT_RETRIES), "a timeout still spends a retry");
    inject(qp, ack(10));
    assertEquals(List.of(11, 12), sentPsns());
    inject(qp, ack(12));
    assertEquals(3, polled().length);
  }

  @Test
  void aStoppedRequestThatComesBackOnItsOwnClearsItsBitAndTheSenderGetsNoResend() {
    start(SrqFlowParams.Mode.STOP_RESEND);
    SharedReceiveQueue srq = srq();
    MemoryRegion m = mr(256);
    QueuePair a = rc(srq, PEER_LID, PEER_QPN, 10, 100, 7, 7);
    inject(a, send(100));
    sentPsns();
    srq.postRecv(new RecvWr().wrId(1).sge(m, 0, 64));
    inject(a, send(100)); // the sender's stop probe, before the device polled
    assertEquals(1, polled().length);
    sentPsns();
    port.advance(POLL);
    assertTrue(sentPsns().isEmpty(), "the probe was taken: no resend request for it");
    assertEquals(0, counter(Counter.SRQ_RESENDS_SENT));
  }

  // ------------------------------------------------------------------ requester and completer

  @Test
  void aStopHoldsTheStreamWithoutRetryOrTimeoutAndTheResendResumesFromTheStoppedPsn() {
    start(SrqFlowParams.Mode.STOP_RESEND);
    QueuePair qp = rc(null, PEER_LID, PEER_QPN, 10, 100, 0, 0); // any retry spent would fail
    MemoryRegion m = mr(1024);
    SendWr x = new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16);
    SendWr y = new SendWr().wrId(2).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 600); // PSNs 11-13
    SendWr z = new SendWr().wrId(3).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16);
    qp.postSend(x.next(y.next(z)));
    assertEquals(List.of(10, 11, 12, 13, 14), sentPsns());
    inject(qp, stop(11));
    WorkCompletion[] first = polled();
    assertEquals(1, first.length, "the stop acknowledges what precedes the stopped PSN");
    assertEquals(1, first[0].wrId());
    assertEquals(WcStatus.SUCCESS, first[0].status());

    for (int i = 0; i < 3; i++) {
      port.advance(TIMEOUT_NANOS); // three local ACK timeouts: the stop timer (four) has not run
      assertTrue(sentPsns().isEmpty(), "a stopped stream sends nothing");
    }
    assertEquals(QpState.RTS, qp.state());
    assertEquals(0, polled().length, "no timeout while stopped: retry_cnt 0 and rnr_retry 0 are intact");
    assertEquals(0, counter(Counter.TIMEOUTS));

    inject(qp, resend(12)); // not the stopped PSN
    assertTrue(sentPsns().isEmpty());
    assertEquals(1, counter(Counter.SRQ_RESENDS_IGNORED));
    inject(qp, resend(11));
    List<Pkt.Seen> resumed = sent();
    assertEquals(List.of(11, 12, 13), resumed.stream().map(Pkt.Seen::psn).toList(),
        "resumed from the stopped PSN, the stopped message first");
    assertTrue(resumed.get(2).ackReq(), "it asks for its ACK: the window reopens on it");
    release(resumed);
    inject(qp, ack(13));
    assertEquals(List.of(14), sentPsns());
    inject(qp, ack(14));
    WorkCompletion[] wc = polled();
    assertEquals(2, wc.length);
    assertEquals(2, wc[0].wrId());
    assertEquals(3, wc[1].wrId());
    assertEquals(WcStatus.SUCCESS, wc[1].status());
    assertEquals(1, counter(Counter.SRQ_STOPS_RECEIVED));
    assertEquals(1, counter(Counter.SRQ_RESENDS_RECEIVED));
    assertEquals(0, counter(Counter.TRANSPORT_RETRIES));
    assertEquals(0, counter(Counter.RNR_RETRIES));
    assertEquals(0, counter(Counter.RETRANSMITS), "a resend request is no retry");
    assertEquals(0, ctx.queryPortCounters(1).get(PortCounter.COMPLETER_RETRY_ERR));
    inject(qp, resend(11)); // late duplicate
    assertTrue(sentPsns().isEmpty());
    assertEquals(2, counter(Counter.SRQ_RESENDS_IGNORED));
  }

  @Test
  void aStoppedSenderProbesWithTheStoppedMessageAloneAfterItsStopTimerAndAnotherStopCostsNothing() {
    start(SrqFlowParams.Mode.STOP_RESEND);
    QueuePair qp = rc(null, PEER_LID, PEER_QPN, 10, 100, 1, 0);
    MemoryRegion m = mr(1024);
    SendWr y = new SendWr().wrId(2).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 600); // PSNs 10-12
    SendWr z = new SendWr().wrId(3).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16); // 13
    qp.postSend(y.next(z));
    assertEquals(List.of(10, 11, 12, 13), sentPsns());
    inject(qp, stop(10));
    for (int round = 0; round < 3; round++) {
      port.advance(4 * TIMEOUT_NANOS - 1_000);
      assertTrue(sentPsns().isEmpty(), "round " + round + ": the stop timer has not expired");
      port.advance(1_000);
      List<Pkt.Seen> probe = sent();
      assertEquals(List.of(10, 11, 12), probe.stream().map(Pkt.Seen::psn).toList(), "round " + round);
      assertTrue(probe.get(2).ackReq(), "the probe asks for its ACK");
      release(probe);
      inject(qp, stop(10)); // alive, still no receive: stopped again
    }
    assertEquals(3, counter(Counter.SRQ_STOP_PROBES));
    assertEquals(0, counter(Counter.TRANSPORT_RETRIES));
    assertEquals(0, counter(Counter.TIMEOUTS));
    assertEquals(QpState.RTS, qp.state());
    inject(qp, resend(10));
    assertEquals(List.of(10, 11, 12), sentPsns());
    inject(qp, ack(12));
    assertEquals(List.of(13), sentPsns());
    inject(qp, ack(13));
    assertEquals(2, polled().length);
  }

  @Test
  void aStoppedSenderWhoseReceiverDiedEndsInRetryExceededWithinItsStopTimerPlusRetryCntTimeouts() {
    start(SrqFlowParams.Mode.STOP_RESEND);
    int retryCnt = 2;
    QueuePair qp = rc(null, PEER_LID, PEER_QPN, 10, 100, retryCnt, 7);
    MemoryRegion m = mr(64);
    qp.postSend(new SendWr().wrId(7).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16));
    qp.postSend(new SendWr().wrId(8).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16));
    assertEquals(List.of(10, 11), sentPsns());
    inject(qp, stop(10));
    // The receiver is gone from here on: nothing answers.
    port.advance(4 * TIMEOUT_NANOS);
    assertEquals(List.of(10), sentPsns(), "the stop timer's probe: the stopped message alone");
    for (int retry = 1; retry <= retryCnt; retry++) {
      port.advance(TIMEOUT_NANOS);
      assertEquals(List.of(10), sentPsns(), "retry " + retry + " probes again, alone");
    }
    port.advance(TIMEOUT_NANOS);
    WorkCompletion[] wc = polled();
    assertEquals(2, wc.length, "bounded: 4 + retry_cnt + 1 local ACK timeouts after the stop");
    assertEquals(7, wc[0].wrId());
    assertEquals(WcStatus.RETRY_EXC_ERR, wc[0].status());
    assertEquals(WcStatus.WR_FLUSH_ERR, wc[1].status());
    assertEquals(retryCnt, counter(Counter.TRANSPORT_RETRIES));
    assertEquals(1, ctx.queryPortCounters(1).get(PortCounter.RETRY_EXCEEDED_ERR));
  }

  // ------------------------------------------------------------------ DC

  @Test
  void aDcSendIntoAnEmptySrqStopsItsDciAndTheResendGoesToThatDci() {
    start(SrqFlowParams.Mode.STOP_RESEND);
    SharedReceiveQueue srq = srq();
    MemoryRegion m = mr(256);
    long key = 0xbadc0deL;
    QueuePair dct = pd.createQp(QpInitAttr.builder(QpType.DCT).recvCq(cq).srq(srq)
        .cap(QpCap.builder().maxRecvWr(0).maxRecvSge(0).maxSendSge(0).build()).dcKey(key).build());
    hca.track(dct);
    dct.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(TwoNodes.ALL));
    dct.modify(new QpAttr().qpState(QpState.RTR).minRnrTimer(14).ahAttr(AhAttr.lid(1)).pathMtu(Mtu.MTU_256));
    int dci = 0x345;
    Pkt req = Pkt.of(Opcode.DC_SEND_ONLY).psn(40).ackReq().payload(new byte[] {9, 8, 7, 6});
    req.dcKey = key;
    req.gen = 1;
    req.srcQp = dci;
    req.epochPsn = 40;
    inject(dct, req);
    List<Pkt.Seen> stop = sent();
    assertEquals(1, stop.size());
    assertEquals(Opcode.SRQ_STOP_REQUEST, stop.get(0).op());
    assertEquals(dci, stop.get(0).destQp(), "the stop goes to the initiating DCI");
    assertEquals(PEER_LID, stop.get(0).dlid());
    assertEquals(40, stop.get(0).psn());
    release(stop);
    srq.postRecv(new RecvWr().wrId(5).sge(m, 0, 64));
    port.advance(POLL);
    List<Pkt.Seen> resend = sent();
    assertEquals(1, resend.size());
    assertEquals(Opcode.SRQ_RESEND_REQUEST, resend.get(0).op());
    assertEquals(dci, resend.get(0).destQp());
    assertEquals(40, resend.get(0).psn());
    release(resend);
    inject(dct, req);
    WorkCompletion[] wc = polled();
    assertEquals(1, wc.length);
    assertEquals(WcStatus.SUCCESS, wc[0].status());
    assertEquals(4, wc[0].byteLen());
    sentPsns();
  }

  @Test
  void aStoppedDciHoldsWithoutRetryAndResumesOnTheResendRequest() {
    start(SrqFlowParams.Mode.STOP_RESEND);
    MemoryRegion m = mr(64);
    QueuePair dci = pd.createQp(QpInitAttr.builder(QpType.DCI).sendCq(cq)
        .cap(QpCap.builder().maxSendWr(8).maxRecvWr(0).maxSendSge(1).maxRecvSge(0).build()).build());
    hca.track(dci);
    dci.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1));
    dci.modify(new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_256));
    dci.modify(new QpAttr().qpState(QpState.RTS).timeout(TIMEOUT_CODE).retryCnt(0).rnrRetry(0).maxRdAtomic(1)
        .sqPsn(70));
    io.github.verbs4j.verbs.AddressHandle ah = pd.createAh(AhAttr.lid(PEER_LID));
    hca.track(ah);
    dci.postSend(new SendWr().wrId(9).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16).dc(ah, 0x456, 1L));
    assertEquals(List.of(70), sentPsns());
    port.inject(PEER_LID, Pkt.of(Opcode.SRQ_STOP_REQUEST).psn(70).srqFc(1, 9).to(dci.qpNum()).build());
    assertEquals(1, counter(Counter.SRQ_STOPS_RECEIVED), "a DCI takes stop requests");
    port.advance(3 * TIMEOUT_NANOS);
    assertTrue(sentPsns().isEmpty());
    assertEquals(0, polled().length, "retry_cnt 0 is intact");
    port.inject(PEER_LID, Pkt.of(Opcode.SRQ_RESEND_REQUEST).psn(70).srqFc(1, 9).to(dci.qpNum()).build());
    assertEquals(List.of(70), sentPsns());
    port.inject(PEER_LID, Pkt.of(Opcode.DC_ACKNOWLEDGE).psn(70).to(dci.qpNum()).build());
    WorkCompletion[] wc = polled();
    assertEquals(1, wc.length);
    assertEquals(WcStatus.SUCCESS, wc[0].status());
  }
}
