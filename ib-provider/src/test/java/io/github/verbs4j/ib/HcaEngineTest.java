package io.github.verbs4j.ib;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.ib.engine.IbCounters.Counter;
import io.github.verbs4j.ib.engine.IbParams;
import io.github.verbs4j.ib.wire.Aeth;
import io.github.verbs4j.ib.wire.Icrc;
import io.github.verbs4j.ib.wire.Lrh;
import io.github.verbs4j.ib.wire.Opcode;
import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.AsyncEvent;
import io.github.verbs4j.verbs.AsyncEventType;
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
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The HCA's engines driven packet by packet: crafted packets go in through a {@link CapturePort},
 * a fake clock drives the timers, and the tests assert the packets that come out, the completions
 * and the counters.
 */
class HcaEngineTest {
  private static final int PEER_LID = 2;
  private static final int PEER_QPN = 0x777;

  private CapturedHca hca;
  private CapturePort port;
  private SimpleMeterRegistry registry;
  private IbContext ctx;
  private ProtectionDomain pd;
  private CompletionQueue cq;

  private void start(IbParams.Builder params) {
    hca = new CapturedHca(params);
    port = hca.port;
    registry = hca.registry;
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

  private <T extends AutoCloseable> T track(T c) {
    return hca.track(c);
  }

  private void drainEvents() {
    hca.drainEvents();
  }

  private QueuePair rc(int sqPsn, int rqPsn, int timeout, int retry, int rnrRetry, int minRnr, int rd) {
    QueuePair qp = track(pd.createQp(QpInitAttr.builder(QpType.RC).cq(cq)
        .cap(QpCap.builder().maxSendWr(16).maxRecvWr(16).maxInlineData(64).build()).build()));
    qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(TwoNodes.ALL));
    qp.modify(new QpAttr().qpState(QpState.RTR).ahAttr(AhAttr.lid(PEER_LID)).pathMtu(Mtu.MTU_256)
        .destQpNum(PEER_QPN).rqPsn(rqPsn).maxDestRdAtomic(rd).minRnrTimer(minRnr));
    qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(sqPsn).timeout(timeout).retryCnt(retry).rnrRetry(rnrRetry)
        .maxRdAtomic(rd));
    return qp;
  }

  private QueuePair rc() {
    return rc(10, 100, 10, 2, 1, 14, 4);
  }

  private MemoryRegion mr(int len) {
    MemoryRegion m = track(pd.allocateMemory(len, TwoNodes.ALL));
    ByteBuffer b = m.buffer();
    for (int i = 0; i < len; i++) {
      b.put(i, (byte) (i * 13 + 1));
    }
    return m;
  }

  private List<Pkt.Seen> sent() {
    List<Pkt.Seen> l = new ArrayList<>();
    for (ByteBuf b : port.takeAll()) {
      l.add(Pkt.Seen.of(b));
    }
    return l;
  }

  private void releaseSent(List<Pkt.Seen> l) {
    l.forEach(s -> s.buf().release());
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

  private Optional<AsyncEvent> event() {
    return ctx.pollAsyncEvent(Duration.ZERO);
  }

  // ------------------------------------------------------------------ requester and completer

  @Test
  void sendIsSegmentedAtPathMtuWithPsnsAcrossTheWrapAndAckReqOnTheLastPacket() {
    start(IbParams.builder());
    QueuePair qp = rc(0xFFFFFF, 100, 10, 2, 1, 14, 4);
    MemoryRegion m = mr(1024);
    qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 600));
    List<Pkt.Seen> s = sent();
    assertEquals(3, s.size());
    assertEquals(Opcode.RC_SEND_FIRST, s.get(0).op());
    assertEquals(Opcode.RC_SEND_MIDDLE, s.get(1).op());
    assertEquals(Opcode.RC_SEND_LAST, s.get(2).op());
    assertEquals(0xFFFFFF, s.get(0).psn());
    assertEquals(0, s.get(1).psn());
    assertEquals(1, s.get(2).psn());
    assertEquals(List.of(256, 256, 88), List.of(s.get(0).payloadLength(), s.get(1).payloadLength(),
        s.get(2).payloadLength()));
    assertFalse(s.get(0).ackReq());
    assertFalse(s.get(1).ackReq());
    assertTrue(s.get(2).ackReq());
    assertEquals(PEER_LID, s.get(0).dlid());
    assertEquals(PEER_QPN, s.get(0).destQp());
    byte[] all = new byte[600];
    System.arraycopy(s.get(0).payloadBytes(), 0, all, 0, 256);
    System.arraycopy(s.get(1).payloadBytes(), 0, all, 256, 256);
    System.arraycopy(s.get(2).payloadBytes(), 0, all, 512, 88);
    for (int i = 0; i < 600; i++) {
      assertEquals((byte) (i * 13 + 1), all[i]);
    }
    releaseSent(s);
    port.inject(PEER_LID, Pkt.of(Opcode.RC_ACKNOWLEDGE).to(qp.qpNum()).psn(1).build());
    WorkCompletion[] wc = polled();
    assertEquals(1, wc.length);
    assertEquals(WcStatus.SUCCESS, wc[0].status());
    assertEquals(600, wc[0].byteLen());
  }

  @Test
  void anAckForALaterPsnCompletesEarlierSendsInOrder() {
    start(IbParams.builder());
    QueuePair qp = rc();
    MemoryRegion m = mr(64);
    SendWr wr = new SendWr().opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16);
    for (int i = 0; i < 3; i++) {
      qp.postSend(wr.wrId(i));
    }
    releaseSent(sent());
    port.inject(PEER_LID, Pkt.of(Opcode.RC_ACKNOWLEDGE).to(qp.qpNum()).psn(12).build());
    WorkCompletion[] wc = polled();
    assertEquals(3, wc.length);
    for (int i = 0; i < 3; i++) {
      assertEquals(i, wc[i].wrId());
      assertEquals(WcStatus.SUCCESS, wc[i].status());
    }
    // The same ACK again is stale.
    port.inject(PEER_LID, Pkt.of(Opcode.RC_ACKNOWLEDGE).to(qp.qpNum()).psn(12).build());
    assertEquals(0, polled().length);
    assertEquals(1, counter(Counter.DROP_STALE_RESPONSE));
  }

  @Test
  void countersAndMemoryGaugesReachTheMeterRegistryAndGaugesGoWithTheirObjects() {
    start(IbParams.builder());
    QueuePair qp = rc(10, 100, 10, 1, 1, 14, 4);
    MemoryRegion m = mr(4096);
    qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16));
    releaseSent(sent());
    port.advance(4096L << 10); // one local ACK timeout: a retransmit
    releaseSent(sent());
    assertEquals(1.0, registry.get("verbs4j.ib.retransmits").functionCounter().count());
    assertEquals(2.0, registry.get("verbs4j.ib.packets").tag("direction", "sent").functionCounter().count());
    assertEquals(4096.0, registry.get(IbMetrics.MEMORY).tag("object", "mr").gauge().value(), "the MR's bytes");
    assertTrue(registry.get(IbMetrics.MEMORY).tag("object", "qp").gauge().value() > 0, "the QP's queues");
    assertTrue(registry.get(IbMetrics.MEMORY).tag("object", "cq").gauge().value() > 0, "the CQ's entries");
    hca.untrack(m);
    m.close();
    assertTrue(registry.find(IbMetrics.MEMORY).tag("object", "mr").gauges().isEmpty(), "removed with the MR");
  }

  @Test
  void regionsOfOneBufferEachHaveTheirOwnGaugeAndKeepItWhenAnotherCloses() {
    start(IbParams.builder());
    ByteBuffer buf = ByteBuffer.allocateDirect(512);
    MemoryRegion a = pd.registerMemory(buf, TwoNodes.ALL);
    MemoryRegion b = pd.registerMemory(buf, TwoNodes.ALL);
    MemoryRegion c = pd.registerMemory(buf.slice(0, 128), TwoNodes.ALL);
    assertEquals(3, registry.find(IbMetrics.MEMORY).tag("object", "mr").gauges().size(), "one gauge per region");
    a.close();
    var left = registry.find(IbMetrics.MEMORY).tag("object", "mr").gauges();
    assertEquals(2, left.size(), "only the closed region's gauge goes");
    assertEquals(640.0, left.stream().mapToDouble(g -> g.value()).sum(), "512 + 128 bytes still registered");
    b.close();
    c.close();
    assertTrue(registry.find(IbMetrics.MEMORY).tag("object", "mr").gauges().isEmpty());
  }

  @Test
  void retransmitTimerResendsAfterTheLocalAckTimeoutAndGivesUpAfterRetryCount() {
    start(IbParams.builder());
    QueuePair qp = rc(10, 100, 10, 2, 1, 14, 4); // 4.096 us * 2^10 = 4.194 ms, two retries
    long timeout = 4096L << 10;
    MemoryRegion m = mr(64);
    qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16));
    qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).signaled(false).sge(m, 0, 16));
    List<Pkt.Seen> first = sent();
    assertEquals(List.of(10, 11), List.of(first.get(0).psn(), first.get(1).psn()));
    releaseSent(first);
    port.advance(timeout - 1_000);
    assertTrue(sent().isEmpty(), "nothing before the timeout");
    for (int attempt = 1; attempt <= 2; attempt++) {
      port.advance(timeout);
      List<Pkt.Seen> again = sent();
      assertEquals(List.of(10, 11), List.of(again.get(0).psn(), again.get(1).psn()), "retry " + attempt);
      releaseSent(again);
    }
    assertEquals(2, counter(Counter.RETRANSMITS));
    port.advance(timeout);
    WorkCompletion[] wc = polled();
    assertEquals(2, wc.length);
    assertEquals(1, wc[0].wrId());
    assertEquals(WcStatus.RETRY_EXC_ERR, wc[0].status());
    assertEquals(2, wc[1].wrId());
    assertEquals(WcStatus.WR_FLUSH_ERR, wc[1].status(), "an unsignaled WR is flushed too");
    assertEquals(WcOpcode.SEND, wc[1].opcode());
    assertEquals(QpState.ERR, qp.state());
    assertEquals(3, counter(Counter.TIMEOUTS));
    assertTrue(sent().isEmpty());
  }

  @Test
  void rnrNakDelaysTheRetryByTheResponderTimerAndExhaustsRnrRetry() {
    start(IbParams.builder());
    QueuePair qp = rc(10, 100, 6, 7, 1, 14, 4); // local ACK timeout 262 us; rnr_retry 1
    MemoryRegion m = mr(64);
    qp.postSend(new SendWr().wrId(5).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16));
    releaseSent(sent());
    int code = 14; // 1.28 ms
    port.inject(PEER_LID, Pkt.of(Opcode.RC_ACKNOWLEDGE).to(qp.qpNum()).psn(10).aeth(Aeth.rnrNak(code), 0).build());
    assertEquals(1, counter(Counter.RNR_NAKS_RECEIVED));
    port.advance(1_000_000); // four local ACK timeouts, still inside the RNR delay
    assertTrue(sent().isEmpty(), "the retransmit timer does not override the RNR timer");
    port.advance(300_000);
    List<Pkt.Seen> retry = sent();
    assertEquals(1, retry.size());
    assertEquals(10, retry.get(0).psn());
    releaseSent(retry);
    port.inject(PEER_LID, Pkt.of(Opcode.RC_ACKNOWLEDGE).to(qp.qpNum()).psn(10).aeth(Aeth.rnrNak(code), 0).build());
    WorkCompletion[] wc = polled();
    assertEquals(1, wc.length);
    assertEquals(WcStatus.RNR_RETRY_EXC_ERR, wc[0].status());
    assertEquals(5, wc[0].wrId());
    assertEquals(QpState.ERR, qp.state());
  }

  @Test
  void readResponsesAreScatteredInOrderAndAGapWaitsForTheTimer() {
    start(IbParams.builder());
    QueuePair qp = rc();
    MemoryRegion m = mr(1024);
    ByteBuffer local = m.buffer();
    for (int i = 0; i < 600; i++) {
      local.put(i, (byte) 0);
    }
    qp.postSend(new SendWr().wrId(9).opcode(WrOpcode.RDMA_READ).signaled(true).sge(m, 0, 600)
        .rdma(0x5000, 0x1234));
    List<Pkt.Seen> req = sent();
    assertEquals(1, req.size());
    assertEquals(Opcode.RC_RDMA_READ_REQUEST, req.get(0).op());
    assertEquals(600, req.get(0).rethLength());
    releaseSent(req);
    byte[] data = new byte[600];
    for (int i = 0; i < 600; i++) {
      data[i] = (byte) (255 - i);
    }
    // Responses for PSNs 10, 11, 12. Deliver the last one first: a gap, dropped.
    port.inject(PEER_LID, Pkt.of(Opcode.RC_RDMA_READ_RESPONSE_LAST).to(qp.qpNum()).psn(12)
        .payload(java.util.Arrays.copyOfRange(data, 512, 600)).build());
    assertEquals(1, counter(Counter.DROP_STALE_RESPONSE));
    port.inject(PEER_LID, Pkt.of(Opcode.RC_RDMA_READ_RESPONSE_FIRST).to(qp.qpNum()).psn(10)
        .payload(java.util.Arrays.copyOfRange(data, 0, 256)).build());
    port.inject(PEER_LID, Pkt.of(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE).to(qp.qpNum()).psn(11)
        .payload(java.util.Arrays.copyOfRange(data, 256, 512)).build());
    assertEquals(0, polled().length);
    // The timer asks for the rest only: offset 512, 88 bytes, at PSN 12.
    port.advance(4096L << 10);
    List<Pkt.Seen> retry = sent();
    assertEquals(1, retry.size());
    assertEquals(12, retry.get(0).psn());
    assertEquals(0x5000 + 512, retry.get(0).rethVa());
    assertEquals(88, retry.get(0).rethLength());
    releaseSent(retry);
    port.inject(PEER_LID, Pkt.of(Opcode.RC_RDMA_READ_RESPONSE_ONLY).to(qp.qpNum()).psn(12)
        .payload(java.util.Arrays.copyOfRange(data, 512, 600)).build());
    WorkCompletion[] wc = polled();
    assertEquals(1, wc.length);
    assertEquals(WcStatus.SUCCESS, wc[0].status());
    assertEquals(WcOpcode.RDMA_READ, wc[0].opcode());
    assertEquals(600, wc[0].byteLen());
    byte[] got = new byte[600];
    m.buffer().get(0, got);
    assertArrayEquals(data, got);
  }

  @Test
  void nakRemoteAccessCompletesTheNamedWrWithRemAccessErrAndFlushesTheRest() {
    start(IbParams.builder());
    QueuePair qp = rc();
    MemoryRegion m = mr(64);
    SendWr wr = new SendWr().opcode(WrOpcode.RDMA_WRITE).signaled(true).sge(m, 0, 8).rdma(0x1000, 1);
    for (int i = 0; i < 3; i++) {
      qp.postSend(wr.wrId(i));
    }
    releaseSent(sent());
    port.inject(PEER_LID, Pkt.of(Opcode.RC_ACKNOWLEDGE).to(qp.qpNum()).psn(11)
        .aeth(Aeth.nak(Aeth.NAK_REMOTE_ACCESS_ERROR), 0).build());
    WorkCompletion[] wc = polled();
    assertEquals(3, wc.length);
    assertEquals(WcStatus.SUCCESS, wc[0].status(), "PSN 10 was acknowledged by the NAK for 11");
    assertEquals(WcStatus.REM_ACCESS_ERR, wc[1].status());
    assertEquals(1, wc[1].wrId());
    assertEquals(WcStatus.WR_FLUSH_ERR, wc[2].status());
    assertEquals(WcOpcode.RDMA_WRITE, wc[2].opcode());
    assertEquals(QpState.ERR, qp.state());
    assertEquals(1, counter(Counter.FLUSHES));
  }

  @Test
  void aLocalKeyOfAnotherPdCompletesWithLocProtErrWithoutSendingAnything() {
    start(IbParams.builder());
    QueuePair qp = rc();
    ProtectionDomain other = track(ctx.allocPd());
    MemoryRegion foreign = track(other.allocateMemory(64, TwoNodes.ALL));
    qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.SEND).signaled(true).sge(foreign, 0, 16));
    assertTrue(sent().isEmpty());
    WorkCompletion[] wc = polled();
    assertEquals(1, wc.length);
    assertEquals(WcStatus.LOC_PROT_ERR, wc[0].status());
    assertEquals(QpState.ERR, qp.state());
    // A WR posted in ERR completes with WR_FLUSH_ERR.
    MemoryRegion m = mr(16);
    qp.postSend(new SendWr().wrId(4).opcode(WrOpcode.SEND).sge(m, 0, 16));
    wc = polled();
    assertEquals(1, wc.length);
    assertEquals(WcStatus.WR_FLUSH_ERR, wc[0].status());
    assertEquals(4, wc[0].wrId());
  }

  @Test
  void inlineDataIsCopiedAtPostWithoutCheckingTheLkey() {
    start(IbParams.builder());
    QueuePair qp = rc();
    MemoryRegion m = mr(64);
    qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).inline(true).signaled(true)
        .sgList(new io.github.verbs4j.verbs.Sge(m.address() + 4, 32, m.lkey() + 1)));
    m.buffer().put(4, (byte) 99); // changing the buffer after the post changes nothing
    List<Pkt.Seen> s = sent();
    assertEquals(1, s.size());
    byte[] p = s.get(0).payloadBytes();
    assertEquals((byte) (4 * 13 + 1), p[0]);
    releaseSent(s);
  }

  // ------------------------------------------------------------------ responder

  private QueuePair responderWithReceives(int n, MemoryRegion into) {
    QueuePair qp = rc();
    for (int i = 0; i < n; i++) {
      qp.postRecv(new RecvWr().wrId(100 + i).sge(into, i * 128L, 128));
    }
    return qp;
  }

  @Test
  void aDuplicateSendIsAcknowledgedAgainButDeliveredOnce() {
    start(IbParams.builder());
    MemoryRegion into = mr(1024);
    QueuePair qp = responderWithReceives(2, into);
    byte[] hello = "hello".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    port.inject(PEER_LID, Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(100).ackReq().payload(hello).build());
    List<Pkt.Seen> acks = sent();
    assertEquals(1, acks.size());
    assertEquals(Opcode.RC_ACKNOWLEDGE, acks.get(0).op());
    assertEquals(100, acks.get(0).psn());
    assertEquals(Aeth.SYNDROME_ACK, acks.get(0).syndrome());
    releaseSent(acks);
    port.inject(PEER_LID, Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(100).ackReq().payload(hello).build());
    acks = sent();
    assertEquals(1, acks.size(), "the duplicate is acknowledged again");
    assertEquals(100, acks.get(0).psn(), "with the last PSN accepted (C9-105)");
    releaseSent(acks);
    WorkCompletion[] wc = polled();
    assertEquals(1, wc.length, "delivered once");
    assertEquals(100, wc[0].wrId());
    assertEquals(5, wc[0].byteLen());
    assertEquals(1, counter(Counter.DUPLICATE_REQUESTS));
    // COMM_EST was raised by the first packet in RTS? No: the QP was already RTS.
    assertTrue(event().isEmpty());
  }

  @Test
  void aPsnGapSendsOneSequenceNakAndDropsTheRestQuietly() {
    start(IbParams.builder());
    MemoryRegion into = mr(1024);
    QueuePair qp = responderWithReceives(4, into);
    port.inject(PEER_LID, Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(102).ackReq().build());
    port.inject(PEER_LID, Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(103).ackReq().build());
    List<Pkt.Seen> naks = sent();
    assertEquals(1, naks.size(), "one NAK per gap");
    assertEquals(Aeth.nak(Aeth.NAK_PSN_SEQUENCE_ERROR), naks.get(0).syndrome());
    assertEquals(100, naks.get(0).psn(), "naming the expected PSN");
    releaseSent(naks);
    assertEquals(1, counter(Counter.DROP_OUT_OF_SEQUENCE));
    assertEquals(0, polled().length);
    port.inject(PEER_LID, Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(100).ackReq().build());
    assertEquals(1, polled().length);
    releaseSent(sent());
  }

  @Test
  void aSendWithNoReceivePostedGetsAnRnrNakWithMinRnrTimerAndTheQpStays() {
    start(IbParams.builder());
    QueuePair qp = rc(10, 100, 10, 2, 1, 14, 4);
    port.inject(PEER_LID, Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(100).ackReq().build());
    List<Pkt.Seen> s = sent();
    assertEquals(1, s.size());
    assertEquals(Aeth.rnrNak(14), s.get(0).syndrome());
    assertEquals(100, s.get(0).psn());
    releaseSent(s);
    assertEquals(QpState.RTS, qp.state());
    assertEquals(1, counter(Counter.RNR_NAKS_SENT));
  }

  @Test
  void aDuplicateReadIsAnsweredAgainFromTheReplayCache() {
    start(IbParams.builder());
    QueuePair qp = rc();
    MemoryRegion m = mr(1024);
    port.inject(PEER_LID, Pkt.of(Opcode.RC_RDMA_READ_REQUEST).to(qp.qpNum()).psn(100)
        .reth(m.address() + 10, m.rkey(), 600).build());
    List<Pkt.Seen> r = sent();
    assertEquals(List.of(Opcode.RC_RDMA_READ_RESPONSE_FIRST, Opcode.RC_RDMA_READ_RESPONSE_MIDDLE,
        Opcode.RC_RDMA_READ_RESPONSE_LAST), r.stream().map(Pkt.Seen::op).toList());
    assertEquals(List.of(100, 101, 102), r.stream().map(Pkt.Seen::psn).toList());
    byte[] first = r.get(1).payloadBytes();
    releaseSent(r);
    // The requester lost everything from 101 on and asks again for the rest.
    port.inject(PEER_LID, Pkt.of(Opcode.RC_RDMA_READ_REQUEST).to(qp.qpNum()).psn(101)
        .reth(m.address() + 10 + 256, m.rkey(), 344).build());
    r = sent();
    assertEquals(List.of(Opcode.RC_RDMA_READ_RESPONSE_FIRST, Opcode.RC_RDMA_READ_RESPONSE_LAST),
        r.stream().map(Pkt.Seen::op).toList());
    assertEquals(List.of(101, 102), r.stream().map(Pkt.Seen::psn).toList());
    assertArrayEquals(first, r.get(0).payloadBytes(), "the same bytes again");
    releaseSent(r);
    assertEquals(1, counter(Counter.REPLAYS));
    // A SEND with the next PSN (103) is in sequence: the READ consumed three PSNs.
    MemoryRegion into = mr(128);
    qp.postRecv(new RecvWr().wrId(1).sge(into, 0, 128));
    port.inject(PEER_LID, Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(103).ackReq().build());
    assertEquals(1, polled().length);
    releaseSent(sent());
  }

  @Test
  void aDuplicateFetchAddReturnsTheSavedValueAndAddsOnce() {
    start(IbParams.builder());
    QueuePair qp = rc();
    MemoryRegion m = mr(64);
    ByteBuffer word = m.buffer().order(ByteOrder.LITTLE_ENDIAN);
    word.putLong(8, 10);
    ByteBuf atomic = Pkt.of(Opcode.RC_FETCH_ADD).to(qp.qpNum()).psn(100).atomic(m.address() + 8, m.rkey(), 5, 0)
        .build();
    port.inject(PEER_LID, atomic.retainedDuplicate());
    port.inject(PEER_LID, atomic);
    List<Pkt.Seen> s = sent();
    assertEquals(2, s.size());
    for (Pkt.Seen ack : s) {
      assertEquals(Opcode.RC_ATOMIC_ACKNOWLEDGE, ack.op());
      assertEquals(100, ack.psn());
      assertEquals(10, ack.atomicOrig());
    }
    releaseSent(s);
    assertEquals(15, word.getLong(8));
    assertEquals(1, counter(Counter.REPLAYS));
  }

  @Test
  void aWriteWithABadRkeyIsNakedAsRemoteAccessErrorAndTheResponderGoesToErr() {
    start(IbParams.builder());
    QueuePair qp = rc();
    MemoryRegion m = mr(64);
    port.inject(PEER_LID, Pkt.of(Opcode.RC_RDMA_WRITE_ONLY).to(qp.qpNum()).psn(100).ackReq()
        .reth(m.address(), m.rkey() ^ 0x10000, 8).payload(new byte[8]).build());
    List<Pkt.Seen> s = sent();
    assertEquals(1, s.size());
    assertEquals(Aeth.nak(Aeth.NAK_REMOTE_ACCESS_ERROR), s.get(0).syndrome());
    releaseSent(s);
    assertEquals(QpState.ERR, qp.state());
    assertEquals(AsyncEventType.QP_ACCESS_ERR, event().orElseThrow().type());
    assertEquals((byte) 1, m.buffer().get(0), "memory untouched");
  }

  @Test
  void aZeroLengthWriteNeedsNoValidRkey() {
    start(IbParams.builder());
    QueuePair qp = rc();
    port.inject(PEER_LID, Pkt.of(Opcode.RC_RDMA_WRITE_ONLY).to(qp.qpNum()).psn(100).ackReq()
        .reth(0xdead, 0x42, 0).build());
    List<Pkt.Seen> s = sent();
    assertEquals(Aeth.SYNDROME_ACK, s.get(0).syndrome());
    releaseSent(s);
    assertEquals(QpState.RTS, qp.state());
  }

  @Test
  void aCorruptedPacketIsDroppedAndCounted() {
    start(IbParams.builder());
    MemoryRegion into = mr(1024);
    QueuePair qp = responderWithReceives(1, into);
    ByteBuf b = Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(100).ackReq().payload(new byte[40]).build();
    b.setByte(40, b.getByte(40) ^ 0x04);
    port.inject(PEER_LID, b);
    assertEquals(1, counter(Counter.CRC_DROPS));
    assertTrue(sent().isEmpty());
    assertEquals(0, polled().length);
  }

  /** Whether a captured packet was sent without an ICRC, asserting what that must look like. */
  private static boolean sentWithoutIcrc(Pkt.Seen p) {
    ByteBuf b = p.buf();
    int trailer = b.writerIndex() - Icrc.LENGTH;
    if (Lrh.noIcrc(b, 0)) {
      assertEquals(0, b.getInt(trailer), "the trailer of a packet without ICRC is zero");
      return true;
    }
    assertTrue(new Icrc().check(b, 0, trailer), "the ICRC matches");
    return false;
  }

  @Test
  void autoIcrcIsComputedOnlyWhileTheFabricMayCorrupt() {
    start(IbParams.builder()); // verbs.ib.icrc=auto
    port.mayCorrupt = false;
    QueuePair qp = rc();
    MemoryRegion m = mr(1024);
    qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 600));
    List<Pkt.Seen> s = sent();
    assertEquals(3, s.size());
    s.forEach(p -> assertTrue(sentWithoutIcrc(p), "no ICRC while nothing can corrupt"));
    releaseSent(s);
    port.mayCorrupt = true; // a corruption rate was configured
    qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16));
    s = sent();
    assertEquals(1, s.size());
    assertFalse(sentWithoutIcrc(s.get(0)), "with an ICRC once the fabric may corrupt");
    releaseSent(s);
  }

  @Test
  void icrcOnAlwaysAndOffNeverComputesIt() throws Exception {
    start(IbParams.builder().icrc(IbParams.IcrcMode.ON));
    port.mayCorrupt = false;
    QueuePair qp = rc();
    MemoryRegion m = mr(64);
    qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16));
    List<Pkt.Seen> s = sent();
    assertFalse(sentWithoutIcrc(s.get(0)), "on: an ICRC although nothing can corrupt");
    releaseSent(s);
    close();
    start(IbParams.builder().icrc(IbParams.IcrcMode.OFF));
    qp = rc();
    m = mr(64);
    qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16));
    s = sent();
    assertTrue(sentWithoutIcrc(s.get(0)), "off: no ICRC although the fabric may corrupt");
    releaseSent(s);
  }

  @Test
  void aPacketMarkedWithoutIcrcIsAcceptedButTheMarkAloneDoesNotSkipTheCheck() {
    start(IbParams.builder().icrc(IbParams.IcrcMode.ON)); // the receiver's own mode does not matter
    MemoryRegion into = mr(1024);
    QueuePair qp = responderWithReceives(2, into);
    port.inject(PEER_LID, Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(100).ackReq().payload(new byte[40])
        .noIcrc().build());
    assertEquals(0, counter(Counter.CRC_DROPS));
    assertEquals(1, polled().length, "delivered");
    releaseSent(sent());
    // A checked packet whose NO_ICRC bit flipped: its trailer is not zero, so it is checked, and fails.
    ByteBuf flipped = Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(101).ackReq().payload(new byte[40]).build();
    flipped.setByte(Lrh.SL_LNH_OFFSET, flipped.getByte(Lrh.SL_LNH_OFFSET) | Lrh.NO_ICRC);
    port.inject(PEER_LID, flipped);
    assertEquals(1, counter(Counter.CRC_DROPS));
    // Marked, with a trailer that is not zero: checked, and fails.
    ByteBuf marked = Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(101).ackReq().payload(new byte[40]).noIcrc()
        .build();
    marked.setInt(marked.writerIndex() - Icrc.LENGTH, 0x12345678);
    port.inject(PEER_LID, marked);
    assertEquals(2, counter(Counter.CRC_DROPS));
    assertTrue(sent().isEmpty());
    assertEquals(0, polled().length);
  }

  /** The packets back to back in one buffer, as a port delivers a train (the parts are released). */
  private static ByteBuf train(ByteBuf... packets) {
    ByteBuf t = io.netty.buffer.Unpooled.directBuffer();
    for (ByteBuf p : packets) {
      t.writeBytes(p);
      p.release();
    }
    return t;
  }

  private static byte[] bytes(int n, int seed) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (seed + i * 7);
    }
    return b;
  }

  @Test
  void aTrainIsSplitByItsLrhLengthsAndEachPacketIsCheckedAndDeliveredInOrder() {
    start(IbParams.builder().ackDelayNanos(0));
    MemoryRegion into = mr(1024);
    QueuePair qp = responderWithReceives(3, into);
    byte[] a = bytes(40, 1);
    byte[] b = bytes(100, 2);
    byte[] c = bytes(7, 3);
    ByteBuf bad = Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(102).payload(c).build();
    bad.setByte(30, bad.getByte(30) ^ 0x10); // the third packet's ICRC fails; the first two stand
    port.inject(PEER_LID, train(
        Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(100).payload(a).build(),
        Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(101).ackReq().payload(b).build(),
        bad));
    assertEquals(3, counter(Counter.PACKETS_RECEIVED) + counter(Counter.CRC_DROPS));
    assertEquals(1, counter(Counter.CRC_DROPS));
    WorkCompletion[] wc = polled();
    assertEquals(2, wc.length);
    assertEquals(100, wc[0].wrId());
    assertEquals(40, wc[0].byteLen());
    assertEquals(101, wc[1].wrId());
    assertEquals(100, wc[1].byteLen());
    byte[] got = new byte[100];
    into.buffer().get(0, got, 0, 40);
    assertArrayEquals(a, java.util.Arrays.copyOf(got, 40));
    into.buffer().get(128, got, 0, 100);
    assertArrayEquals(b, got);
    List<Pkt.Seen> acks = sent();
    assertEquals(1, acks.size());
    assertEquals(101, acks.get(0).psn());
    releaseSent(acks);
  }

  /**
   * A frame that spanned socket reads reaches the device as a slice of several buffers: packets
   * that lie in one buffer are read through its view, one cut by a boundary through the frame;
   * either way every packet is checked and delivered byte-exact, in order.
   */
  @org.junit.jupiter.params.ParameterizedTest(name = "cuts at {0} and {1}")
  @org.junit.jupiter.params.provider.CsvSource({"1, 2", "20, 80", "68, 208", "69, 300", "100, 101", "207, 400",
      "300, 470", "455, 456"})
  void aTrainThatSpansReadBuffersIsReadInPlaceAndCutPacketsAreStillChecked(int cut1, int cut2) {
    start(IbParams.builder().ackDelayNanos(0));
    MemoryRegion into = mr(4096);
    QueuePair qp = rc();
    for (int i = 0; i < 4; i++) {
      qp.postRecv(new RecvWr().wrId(100 + i).sge(into, i * 1024L, 1024));
    }
    byte[][] payloads = {bytes(40, 1), bytes(100, 2), bytes(200, 3), bytes(4, 4)};
    ByteBuf bad = Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(104).payload(bytes(12, 5)).build();
    bad.setByte(30, bad.getByte(30) ^ 0x10); // the last packet's ICRC fails
    ByteBuf whole = train(
        Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(100).payload(payloads[0]).build(),
        Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(101).payload(payloads[1]).build(),
        Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(102).payload(payloads[2]).build(),
        Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(103).ackReq().payload(payloads[3]).build(),
        bad);
    int len = whole.readableBytes();
    assertTrue(cut2 < len, "cut inside the train");
    // As a frame decoder hands it on: a slice of a composite of read buffers, with bytes of other
    // frames before and after it.
    io.netty.buffer.CompositeByteBuf reads = io.netty.buffer.Unpooled.compositeBuffer();
    ByteBuf before = io.netty.buffer.Unpooled.directBuffer().writeBytes(new byte[] {9, 9, 9});
    before.writeBytes(whole, 0, cut1);
    reads.addComponent(true, before);
    reads.addComponent(true, io.netty.buffer.Unpooled.directBuffer().writeBytes(whole, cut1, cut2 - cut1));
    ByteBuf after = io.netty.buffer.Unpooled.directBuffer().writeBytes(whole, cut2, len - cut2);
    after.writeBytes(new byte[] {7, 7});
    reads.addComponent(true, after);
    whole.release();
    ByteBuf frame = reads.retainedSlice(3, len);
    reads.release();
    port.inject(PEER_LID, frame);
    assertEquals(4, counter(Counter.PACKETS_RECEIVED));
    assertEquals(1, counter(Counter.CRC_DROPS));
    WorkCompletion[] wc = polled();
    assertEquals(4, wc.length);
    for (int i = 0; i < 4; i++) {
      assertEquals(100 + i, wc[i].wrId());
      assertEquals(WcStatus.SUCCESS, wc[i].status(), java.util.Arrays.toString(wc));
      assertEquals(payloads[i].length, wc[i].byteLen());
      byte[] got = new byte[payloads[i].length];
      into.buffer().get(i * 1024, got);
      assertArrayEquals(payloads[i], got, "message " + i);
    }
    List<Pkt.Seen> acks = sent();
    assertEquals(1, acks.size());
    assertEquals(103, acks.get(0).psn());
    releaseSent(acks);
  }

  @Test
  void aTrainPacketWhoseLengthRunsPastTheFrameEndsTheTrainAsMalformed() {
    start(IbParams.builder().ackDelayNanos(0));
    MemoryRegion into = mr(1024);
    QueuePair qp = responderWithReceives(3, into);
    ByteBuf second = Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(101).payload(bytes(8, 2)).build();
    second.setShort(io.github.verbs4j.ib.wire.Lrh.PKTLEN_OFFSET, io.github.verbs4j.ib.wire.Lrh.MAX_PKTLEN_WORDS);
    port.inject(PEER_LID, train(
        Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(100).ackReq().payload(bytes(8, 1)).build(),
        second,
        Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(102).payload(bytes(8, 3)).build()));
    assertEquals(1, counter(Counter.PACKETS_RECEIVED));
    assertEquals(1, counter(Counter.DROP_MALFORMED), "the rest of the train, once");
    WorkCompletion[] wc = polled();
    assertEquals(1, wc.length);
    assertEquals(100, wc[0].wrId());
    releaseSent(sent());
  }

  @Test
  void ackRequestsProcessedInOneDutyCycleAreCoalescedIntoOneAck() {
    start(IbParams.builder().ackDelayNanos(0));
    MemoryRegion into = mr(1024);
    QueuePair qp = responderWithReceives(4, into);
    for (int i = 0; i < 4; i++) {
      ctx.engine().enqueue(Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(100 + i).ackReq().build());
    }
    ctx.engine().runInline();
    List<Pkt.Seen> s = sent();
    assertEquals(1, s.size());
    assertEquals(103, s.get(0).psn());
    releaseSent(s);
    assertEquals(3, counter(Counter.ACKS_COALESCED));
    assertEquals(4, polled().length);
  }

  // ------------------------------------------------------------------ ACK hold

  private static final long HOLD = 50_000;

  private List<List<Pkt.Seen>> batches() {
    List<List<Pkt.Seen>> l = new ArrayList<>();
    for (List<ByteBuf> batch : port.takeBatches()) {
      List<Pkt.Seen> seen = new ArrayList<>();
      batch.forEach(b -> seen.add(Pkt.Seen.of(b)));
      l.add(seen);
    }
    return l;
  }

  private static void release(List<List<Pkt.Seen>> batches) {
    batches.forEach(b -> b.forEach(s -> s.buf().release()));
  }

  /**
   * Posts a receive, queues a SEND with AckReq for it and polls the CQ (an application's verbs
   * call runs the engine, as in a ping-pong), expecting the receive's completion.
   */
  private void sendInto(QueuePair qp, MemoryRegion into, int psn) {
    qp.postRecv(new RecvWr().wrId(psn).sge(into, 0, 64));
    ctx.engine().enqueue(Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(psn).ackReq().payload(new byte[8]).build());
    assertEquals(1, polled().length);
  }

  @Test
  void aHeldAckLeavesInTheSameDutyCycleAsTheReplyToTheSameNode() {
    start(IbParams.builder().ackDelayNanos(HOLD));
    MemoryRegion into = mr(1024);
    QueuePair qp = rc();
    sendInto(qp, into, 100);
    assertTrue(sent().isEmpty(), "the ACK waits");
    port.advance(HOLD / 2);
    assertEquals(0, polled().length);
    assertTrue(sent().isEmpty(), "still within the hold");
    qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(into, 0, 8));
    List<List<Pkt.Seen>> b = batches();
    assertEquals(1, b.size(), "reply and ACK in one duty cycle (one frame)");
    assertEquals(List.of(Opcode.RC_SEND_ONLY, Opcode.RC_ACKNOWLEDGE), b.get(0).stream().map(Pkt.Seen::op).toList());
    assertEquals(100, b.get(0).get(1).psn());
    release(b);
    assertEquals(1, counter(Counter.ACKS_BUNDLED));
    assertEquals(1, counter(Counter.ACKS_SENT));
    assertEquals(0, counter(Counter.ACK_HOLDS_EXPIRED));
    port.advance(HOLD + 1_000_000);
    assertEquals(0, polled().length);
    assertTrue(sent().isEmpty(), "nothing left to send when the hold would have run out");
  }

  @Test
  void aHeldAckWithNothingToShareAFrameWithLeavesAtTheDeadlineAndTheNextAcksAreImmediate() {
    start(IbParams.builder().ackDelayNanos(HOLD));
    MemoryRegion into = mr(1024);
    QueuePair qp = rc();
    sendInto(qp, into, 100);
    port.advance(HOLD - 1);
    assertEquals(0, polled().length);
    assertTrue(sent().isEmpty());
    port.advance(1);
    assertEquals(0, polled().length);
    List<Pkt.Seen> s = sent();
    assertEquals(1, s.size(), "the hold ran out: the next verbs call sends the ACK");
    assertEquals(Opcode.RC_ACKNOWLEDGE, s.get(0).op());
    assertEquals(100, s.get(0).psn());
    releaseSent(s);
    assertEquals(1, counter(Counter.ACK_HOLDS_EXPIRED));
    for (int i = 1; i <= 16; i++) {
      sendInto(qp, into, 100 + i);
      s = sent();
      assertEquals(1, s.size(), "quick ACK " + i);
      assertEquals(100 + i, s.get(0).psn());
      releaseSent(s);
    }
    sendInto(qp, into, 117);
    assertTrue(sent().isEmpty(), "holding again after 16 quick ACKs");
    port.advance(HOLD);
    assertEquals(0, polled().length);
    releaseSent(sent());
    assertEquals(2, counter(Counter.ACK_HOLDS_EXPIRED));
    for (int i = 0; i < 32; i++) {
      sendInto(qp, into, 118 + i);
      s = sent();
      assertEquals(1, s.size(), "a second expiry in a row doubles the quick ACKs: " + i);
      releaseSent(s);
    }
    sendInto(qp, into, 150);
    assertTrue(sent().isEmpty(), "holding again after 32");
    assertEquals(0, counter(Counter.ACKS_BUNDLED));
  }

  @Test
  void whenTheApplicationStopsCallingTheWiresThreadSendsTheHeldAck() {
    start(IbParams.builder().ackDelayNanos(HOLD));
    MemoryRegion into = mr(1024);
    QueuePair qp = rc();
    sendInto(qp, into, 100);
    port.advance(10 * HOLD);
    assertTrue(sent().isEmpty(), "nobody ran the engine yet");
    port.callersIdle();
    List<Pkt.Seen> s = sent();
    assertEquals(1, s.size(), "the takeover ran the engine");
    assertEquals(Opcode.RC_ACKNOWLEDGE, s.get(0).op());
    releaseSent(s);
    assertEquals(1, counter(Counter.ACK_HOLDS_EXPIRED));
  }

  @Test
  void packetsTheFabricDeliversWhileNobodyPollsAreAcknowledgedAtOnce() {
    start(IbParams.builder().ackDelayNanos(HOLD));
    MemoryRegion into = mr(1024);
    QueuePair qp = responderWithReceives(1, into);
    port.inject(PEER_LID, Pkt.of(Opcode.RC_SEND_ONLY).to(qp.qpNum()).psn(100).ackReq().build());
    List<Pkt.Seen> s = sent();
    assertEquals(1, s.size(), "no application thread to answer: no hold");
    assertEquals(Opcode.RC_ACKNOWLEDGE, s.get(0).op());
    releaseSent(s);
  }

  @Test
  void anApplicationAboutToBlockSendsItsHeldAcks() {
    start(IbParams.builder().ackDelayNanos(HOLD));
    MemoryRegion into = mr(1024);
    QueuePair qp = rc();
    sendInto(qp, into, 100);
    assertTrue(sent().isEmpty());
    ctx.engine().flushHeldAcks();
    List<Pkt.Seen> s = sent();
    assertEquals(1, s.size());
    assertEquals(100, s.get(0).psn());
    releaseSent(s);
    assertEquals(0, counter(Counter.ACKS_BUNDLED));
    assertEquals(1, counter(Counter.ACK_HOLDS_EXPIRED), "a hold nobody answered");
  }

  @Test
  void aHeldAckGoesOutBeforeAReadResponseSoResponsesStayInPsnOrder() {
    start(IbParams.builder().ackDelayNanos(HOLD));
    MemoryRegion into = mr(1024);
    QueuePair qp = rc();
    sendInto(qp, into, 100);
    assertTrue(sent().isEmpty());
    ctx.engine().enqueue(Pkt.of(Opcode.RC_RDMA_READ_REQUEST).to(qp.qpNum()).psn(101)
        .reth(into.address(), into.rkey(), 16).build());
    ctx.engine().runInline();
    List<Pkt.Seen> s = sent();
    assertEquals(List.of(Opcode.RC_ACKNOWLEDGE, Opcode.RC_RDMA_READ_RESPONSE_ONLY), s.stream().map(Pkt.Seen::op)
        .toList());
    assertEquals(100, s.get(0).psn());
    assertEquals(101, s.get(1).psn());
    releaseSent(s);
  }

  @Test
  void withoutAHoldTheAckLeavesInTheDutyCycleThatReceived() {
    start(IbParams.builder().ackDelayNanos(0));
    MemoryRegion into = mr(1024);
    QueuePair qp = rc();
    sendInto(qp, into, 100);
    List<Pkt.Seen> s = sent();
    assertEquals(1, s.size());
    assertEquals(Opcode.RC_ACKNOWLEDGE, s.get(0).op());
    releaseSent(s);
    assertEquals(0, counter(Counter.ACKS_BUNDLED));
  }

  @Test
  void aQpWithoutRemoteWriteAnswersAWriteWithRemoteAccessError() {
    start(IbParams.builder());
    QueuePair qp = track(pd.createQp(QpInitAttr.builder(QpType.RC).cq(cq)
        .cap(QpCap.builder().maxSendWr(4).maxRecvWr(4).build()).build()));
    qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1)
        .qpAccessFlags(java.util.EnumSet.of(Access.LOCAL_WRITE)));
    qp.modify(new QpAttr().qpState(QpState.RTR).ahAttr(AhAttr.lid(PEER_LID)).pathMtu(Mtu.MTU_256)
        .destQpNum(PEER_QPN).rqPsn(100).maxDestRdAtomic(1).minRnrTimer(1));
    MemoryRegion m = mr(64);
    port.inject(PEER_LID, Pkt.of(Opcode.RC_RDMA_WRITE_ONLY).to(qp.qpNum()).psn(100).ackReq()
        .reth(m.address(), m.rkey(), 8).payload(new byte[8]).build());
    assertEquals(AsyncEventType.COMM_EST, event().orElseThrow().type(), "first packet in RTR");
    List<Pkt.Seen> s = sent();
    assertEquals(Aeth.nak(Aeth.NAK_REMOTE_ACCESS_ERROR), s.get(0).syndrome());
    releaseSent(s);
  }
}
