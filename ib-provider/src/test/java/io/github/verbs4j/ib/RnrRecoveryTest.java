package io.github.verbs4j.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.ib.engine.IbCounters.Counter;
import io.github.verbs4j.ib.engine.IbParams;
import io.github.verbs4j.ib.wire.Aeth;
import io.github.verbs4j.ib.wire.Opcode;
import io.github.verbs4j.verbs.AhAttr;
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
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * RNR NAKs as flow control, packet by packet (IBA 9.7.5.2.8): the responder drops what follows an
 * RNR-NAKed request without a sequence NAK, the requester spends rnr_retry and never retry_cnt
 * on it, probes with the NAKed message alone after the RNR timer, and query() reports the live
 * PSNs. Crafted packets go in through a {@link CapturePort}; a fake clock drives the timers.
 */
class RnrRecoveryTest {
  private static final int PEER_LID = 2;
  private static final int PEER_QPN = 0x777;
  /** min_rnr_timer code 14: 1.28 ms. */
  private static final int RNR_CODE = 14;
  private static final long RNR_NANOS = 1_280_000;

  private CapturedHca hca;
  private CapturePort port;
  private IbContext ctx;
  private ProtectionDomain pd;
  private CompletionQueue cq;

  private void start() {
    hca = new CapturedHca(IbParams.builder());
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

  /** An RC QP with path MTU 256 and a 1 s local ACK timeout (code 18), so only RNR moves time. */
  private QueuePair rc(int sqPsn, int rqPsn, int retryCnt, int rnrRetry) {
    QueuePair qp = pd.createQp(QpInitAttr.builder(QpType.RC).cq(cq)
        .cap(QpCap.builder().maxSendWr(16).maxRecvWr(16).build()).build());
    hca.track(qp);
    qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(TwoNodes.ALL));
    qp.modify(new QpAttr().qpState(QpState.RTR).ahAttr(AhAttr.lid(PEER_LID)).pathMtu(Mtu.MTU_256)
        .destQpNum(PEER_QPN).rqPsn(rqPsn).maxDestRdAtomic(1).minRnrTimer(RNR_CODE));
    qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(sqPsn).timeout(18).retryCnt(retryCnt).rnrRetry(rnrRetry)
        .maxRdAtomic(1));
    return qp;
  }

  private MemoryRegion mr(int len) {
    MemoryRegion m = pd.allocateMemory(len, TwoNodes.ALL);
    hca.track(m);
    return m;
  }

  private List<Pkt.Seen> sent() {
    List<Pkt.Seen> l = new ArrayList<>();
    for (ByteBuf b : port.takeAll()) {
      l.add(Pkt.Seen.of(b));
    }
    return l;
  }

  /** @return the PSNs of the packets sent since the last call (the packets are released) */
  private List<Integer> sentPsns() {
    List<Pkt.Seen> l = sent();
    List<Integer> psns = l.stream().map(Pkt.Seen::psn).toList();
    l.forEach(s -> s.buf().release());
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

  private void inject(QueuePair qp, Pkt p) {
    port.inject(PEER_LID, p.to(qp.qpNum()).build());
  }

  private static Pkt rnrNak(int psn) {
    return Pkt.of(Opcode.RC_ACKNOWLEDGE).psn(psn).aeth(Aeth.rnrNak(RNR_CODE), 0);
  }

  private static Pkt seqNak(int psn) {
    return Pkt.of(Opcode.RC_ACKNOWLEDGE).psn(psn).aeth(Aeth.nak(Aeth.NAK_PSN_SEQUENCE_ERROR), 0);
  }

  private static Pkt ack(int psn) {
    return Pkt.of(Opcode.RC_ACKNOWLEDGE).psn(psn);
  }

  // ------------------------------------------------------------------ responder

  @Test
  void requestsBehindAnRnrNakedOneAreDroppedWithoutASequenceNakUntilItComesAgain() {
    start();
    QueuePair qp = rc(10, 100, 7, 7);
    MemoryRegion m = mr(256);
    inject(qp, Pkt.of(Opcode.RC_SEND_ONLY).psn(100).ackReq());
    List<Pkt.Seen> nak = sent();
    assertEquals(1, nak.size());
    assertEquals(Aeth.rnrNak(RNR_CODE), nak.get(0).syndrome());
    assertEquals(100, nak.get(0).psn());
    nak.forEach(s -> s.buf().release());
    inject(qp, Pkt.of(Opcode.RC_SEND_ONLY).psn(101).ackReq());
    inject(qp, Pkt.of(Opcode.RC_SEND_ONLY).psn(102).ackReq());
    assertTrue(sentPsns().isEmpty(), "no sequence NAK behind an RNR NAK: the requester resends from 100 anyway");
    assertEquals(2, counter(Counter.DROP_BEHIND_RNR));
    assertEquals(0, counter(Counter.SEQ_NAKS_SENT));
    assertEquals(2, ctx.queryPortCounters(1).get(PortCounter.OUT_OF_SEQ_REQUEST));

    inject(qp, Pkt.of(Opcode.RC_SEND_ONLY).psn(100).ackReq()); // resent, still no receive
    assertEquals(List.of(100), sentPsns());
    assertEquals(2, counter(Counter.RNR_NAKS_SENT));
    for (int i = 0; i < 2; i++) {
      qp.postRecv(new RecvWr().wrId(i).sge(m, i * 64L, 64));
    }
    inject(qp, Pkt.of(Opcode.RC_SEND_ONLY).psn(100).ackReq());
    inject(qp, Pkt.of(Opcode.RC_SEND_ONLY).psn(101).ackReq());
    WorkCompletion[] wc = polled();
    assertEquals(2, wc.length);
    assertEquals(0, wc[0].wrId());
    assertEquals(1, wc[1].wrId());
    sentPsns();
    // Past the RNR NAK a gap is a gap again: one sequence NAK naming the expected PSN.
    inject(qp, Pkt.of(Opcode.RC_SEND_ONLY).psn(104).ackReq());
    List<Pkt.Seen> seq = sent();
    assertEquals(1, seq.size());
    assertEquals(Aeth.nak(Aeth.NAK_PSN_SEQUENCE_ERROR), seq.get(0).syndrome());
    assertEquals(102, seq.get(0).psn());
    seq.forEach(s -> s.buf().release());
    assertEquals(102, qp.query().rqPsn(), "rq_psn is the PSN the responder expects");
  }

  // ------------------------------------------------------------------ requester and completer

  @Test
  void aSequenceNakDuringAnRnrWaitSpendsNoRetryEvenWithRetryCnt0() {
    start();
    QueuePair qp = rc(10, 100, 0, 7);
    MemoryRegion m = mr(64);
    for (int i = 0; i < 3; i++) {
      qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16));
    }
    assertEquals(List.of(10, 11, 12), sentPsns());
    inject(qp, rnrNak(10));
    inject(qp, seqNak(10)); // an older responder NAKs the SEND behind the RNR-NAKed one
    assertEquals(0, polled().length, "retry_cnt 0 is not spent on a sequence NAK during an RNR wait");
    assertEquals(QpState.RTS, qp.state());
    assertEquals(1, counter(Counter.SEQ_NAKS_IGNORED));
    assertEquals(0, counter(Counter.TRANSPORT_RETRIES));
    assertTrue(sentPsns().isEmpty(), "nothing is sent during the RNR wait");
    port.advance(RNR_NANOS);
    assertEquals(List.of(10), sentPsns(), "the probe: the RNR-NAKed message alone");
    inject(qp, ack(10));
    assertEquals(List.of(11, 12), sentPsns());
    inject(qp, ack(12));
    WorkCompletion[] wc = polled();
    assertEquals(3, wc.length);
    for (int i = 0; i < 3; i++) {
      assertEquals(i, wc[i].wrId());
      assertEquals(WcStatus.SUCCESS, wc[i].status());
    }
    assertEquals(0, ctx.queryPortCounters(1).get(PortCounter.COMPLETER_RETRY_ERR));
    assertEquals(1, ctx.queryPortCounters(1).get(PortCounter.RCVD_RNR_ERR));
  }

  @Test
  void afterTheRnrTimerTheNakedMessageIsResentAloneAskingForAnAckAndTheRestFollowsIt() {
    start();
    QueuePair qp = rc(10, 100, 7, 7);
    MemoryRegion m = mr(1024);
    // 600 B at MTU 256 (PSNs 10-12), then two 16 B SENDs (13, 14); only the last is signaled.
    SendWr a = new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(false).sge(m, 0, 600);
    SendWr b = new SendWr().wrId(2).opcode(WrOpcode.SEND).signaled(false).sge(m, 0, 16);
    SendWr c = new SendWr().wrId(3).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16);
    qp.postSend(a.next(b.next(c)));
    List<Pkt.Seen> first = sent();
    assertEquals(List.of(10, 11, 12, 13, 14), first.stream().map(Pkt.Seen::psn).toList());
    assertFalse(first.get(2).ackReq(), "an unsignaled message in the middle of the chain asks for no ACK");
    first.forEach(s -> s.buf().release());
    assertEquals(15, qp.query().sqPsn());

    inject(qp, rnrNak(10));
    for (int round = 0; round < 3; round++) {
      port.advance(RNR_NANOS - 1_000);
      assertTrue(sentPsns().isEmpty(), "the RNR timer has not expired");
      port.advance(1_000);
      List<Pkt.Seen> probe = sent();
      assertEquals(List.of(10, 11, 12), probe.stream().map(Pkt.Seen::psn).toList(), "round " + round);
      assertTrue(probe.get(2).ackReq(), "the probe asks for its ACK");
      probe.forEach(s -> s.buf().release());
      assertEquals(15, qp.query().sqPsn(), "sq_psn does not move back on a resend");
      inject(qp, rnrNak(10)); // still no receive
    }
    port.advance(RNR_NANOS);
    sentPsns();
    inject(qp, ack(12)); // the probe got through: the window reopens
    assertEquals(List.of(13, 14), sentPsns());
    inject(qp, ack(14));
    WorkCompletion[] wc = polled();
    assertEquals(1, wc.length);
    assertEquals(3, wc[0].wrId());
    assertEquals(WcStatus.SUCCESS, wc[0].status());
    assertEquals(4, counter(Counter.RNR_RETRIES));
    assertEquals(0, counter(Counter.TRANSPORT_RETRIES));
    assertEquals(0, counter(Counter.TIMEOUTS));
  }

  @Test
  void aSecondRnrNakForTheSamePsnDuringTheWaitStartsNoSecondWait() {
    start();
    QueuePair qp = rc(10, 100, 7, 1);
    MemoryRegion m = mr(64);
    qp.postSend(new SendWr().wrId(5).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16));
    sentPsns();
    inject(qp, rnrNak(10));
    inject(qp, rnrNak(10)); // the NAK of a second copy of PSN 10
    assertEquals(0, polled().length, "rnr_retry 1 is spent once per wait, not once per NAK");
    assertEquals(2, counter(Counter.RNR_NAKS_RECEIVED));
    assertEquals(1, counter(Counter.RNR_RETRIES));
    port.advance(RNR_NANOS);
    assertEquals(List.of(10), sentPsns());
    inject(qp, rnrNak(10));
    WorkCompletion[] wc = polled();
    assertEquals(1, wc.length);
    assertEquals(WcStatus.RNR_RETRY_EXC_ERR, wc[0].status());
    assertEquals(1, ctx.queryPortCounters(1).get(PortCounter.RETRY_RNR_EXCEEDED_ERR));
  }

  @Test
  void anAckPastTheRnrNakedPsnEndsTheWaitAndWhatFollowsIsResentAtOnce() {
    start();
    QueuePair qp = rc(10, 100, 7, 7);
    MemoryRegion m = mr(64);
    for (int i = 0; i < 3; i++) {
      qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16));
    }
    sentPsns();
    inject(qp, rnrNak(10));
    inject(qp, ack(10)); // an earlier copy of PSN 10 was accepted after all
    assertEquals(List.of(11, 12), sentPsns(), "no RNR timer to wait for: the responder took PSN 10");
    inject(qp, ack(12));
    assertEquals(3, polled().length);
    assertEquals(0, counter(Counter.TRANSPORT_RETRIES));
  }

  @Test
  void queryReportsTheNextNewSqPsnAndTheExpectedRqPsnAcrossTheWrap() {
    start();
    QueuePair qp = rc(0xFFFFFE, 0xFFFFFF, 7, 7);
    MemoryRegion m = mr(1024);
    assertEquals(0xFFFFFE, qp.query().sqPsn());
    assertEquals(0xFFFFFF, qp.query().rqPsn());
    qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 600)); // 3 packets
    sentPsns();
    assertEquals(1, qp.query().sqPsn());
    qp.postRecv(new RecvWr().wrId(7).sge(m, 0, 1024));
    inject(qp, Pkt.of(Opcode.RC_SEND_ONLY).psn(0xFFFFFF).ackReq());
    assertEquals(0, qp.query().rqPsn());
    sentPsns();
  }

  // ------------------------------------------------------------------ local ACK timeouts

  /** timeout code 18 of {@link #rc}: 4.096 us * 2^18. */
  private static final long TIMEOUT_NANOS = 4096L << 18;

  @Test
  void onTimeTimeoutsSpendRetryCntAndEndInRetryExceeded() {
    start();
    QueuePair qp = rc(10, 100, 2, 7);
    MemoryRegion m = mr(64);
    qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16));
    assertEquals(List.of(10), sentPsns());
    for (int retry = 1; retry <= 2; retry++) {
      port.advance(TIMEOUT_NANOS);
      assertEquals(List.of(10), sentPsns(), "retry " + retry + " resends the SEND");
      assertEquals(retry, counter(Counter.TRANSPORT_RETRIES));
    }
    port.advance(TIMEOUT_NANOS);
    WorkCompletion[] wc = polled();
    assertEquals(1, wc.length);
    assertEquals(WcStatus.RETRY_EXC_ERR, wc[0].status());
    assertEquals(0, counter(Counter.LATE_TIMEOUTS));
  }

  @Test
  void timeoutsTheEngineRanAWholeTimeoutLateSpendNoRetryUntilTheirBudgetIsGone() {
    start();
    QueuePair qp = rc(10, 100, 1, 7);
    MemoryRegion m = mr(64);
    qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16));
    qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16));
    assertEquals(List.of(10, 11), sentPsns());
    for (int i = 1; i <= 8; i++) {
      port.advance(3 * TIMEOUT_NANOS); // the host ran nothing for three timeouts
      assertEquals(List.of(10, 11), sentPsns(), "late timeout " + i + " resends");
    }
    assertEquals(8, counter(Counter.LATE_TIMEOUTS));
    assertEquals(0, counter(Counter.TRANSPORT_RETRIES), "a busy host is not a lost packet");
    assertEquals(QpState.RTS, qp.state());
    inject(qp, ack(10)); // progress restores the budget
    assertEquals(1, polled().length);
    port.advance(3 * TIMEOUT_NANOS);
    assertEquals(List.of(11), sentPsns());
    assertEquals(9, counter(Counter.LATE_TIMEOUTS));
    assertEquals(0, counter(Counter.TRANSPORT_RETRIES));
    for (int i = 0; i < 7; i++) {
      port.advance(3 * TIMEOUT_NANOS);
      sentPsns();
    }
    assertEquals(16, counter(Counter.LATE_TIMEOUTS));
    port.advance(3 * TIMEOUT_NANOS); // budget gone: a retry
    assertEquals(List.of(11), sentPsns());
    assertEquals(1, counter(Counter.TRANSPORT_RETRIES));
    port.advance(3 * TIMEOUT_NANOS);
    WorkCompletion[] wc = polled();
    assertEquals(1, wc.length);
    assertEquals(WcStatus.RETRY_EXC_ERR, wc[0].status());
    assertEquals(2, wc[0].wrId());
  }
}
