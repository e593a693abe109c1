package io.github.verbs4j.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.ib.engine.IbCounters.Counter;
import io.github.verbs4j.ib.engine.IbParams;
import io.github.verbs4j.ib.wire.Opcode;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.Mtu;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A local ACK timeout spends {@code retry_cnt} only when the peer's engine had the request and this
 * side could have heard the answer ({@code AckWait}). The starvation is injected through the port:
 * a peer whose engine has not caught up since the request was sent (its host did not run it), and
 * frames waiting in this side's own fabric queues. Each test fails on an engine that counts every
 * expiry (retry_cnt 0 ends the QP at the first one).
 */
class AckWaitTimeoutTest {
  private static final long TIMEOUT = 4096L << 10; // code 10: 4.194 ms
  private CapturedHca hca;

  @AfterEach
  void close() throws Exception {
    hca.close();
  }

  private QueuePair rc() {
    QueuePair qp = hca.track(hca.pd.createQp(QpInitAttr.builder(QpType.RC).cq(hca.cq)
        .cap(QpCap.builder().maxSendWr(16).maxRecvWr(16).build()).build()));
    qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(TwoNodes.ALL));
    qp.modify(new QpAttr().qpState(QpState.RTR).ahAttr(AhAttr.lid(2)).pathMtu(Mtu.MTU_256).destQpNum(0x777)
        .rqPsn(100).maxDestRdAtomic(1).minRnrTimer(14));
    qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(10).timeout(10).retryCnt(0).rnrRetry(1)
        .maxRdAtomic(1));
    return qp;
  }

  private int sentAndReleased() {
    int n = 0;
    for (ByteBuf b : hca.port.takeAll()) {
      b.release();
      n++;
    }
    return n;
  }

  private long counter(Counter c) {
    return hca.ctx.counters().get(c);
  }

  private QueuePair sendOne() {
    QueuePair qp = rc();
    MemoryRegion m = hca.track(hca.pd.allocateMemory(64, TwoNodes.ALL));
    qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16));
    assertEquals(1, sentAndReleased());
    return qp;
  }

  @Test
  void aPeerWhoseEngineHasNotRunSinceTheRequestSpendsNoRetryWhileItsReaderRuns() {
    hca = new CapturedHca(IbParams.builder());
    hca.port.peerCaughtUp = System.nanoTime() - 1; // caught up before the request was sent
    hca.port.peerRead = 0;
    QueuePair qp = sendOne();
    // 30 timeouts (far beyond the budget of 8 in a row): the peer's reader takes frames (its host
    // runs), its engine has not caught up since the request
    for (int i = 1; i <= 30; i++) {
      hca.port.peerRead += 64;
      hca.port.advance(TIMEOUT);
      assertEquals(0, sentAndReleased(), "nothing resent, timeout " + i);
    }
    assertEquals(30, counter(Counter.QUEUED_TIMEOUTS));
    assertEquals(0, counter(Counter.TIMEOUTS));
    assertEquals(QpState.RTS, qp.state(), "retry_cnt 0 untouched");
    hca.port.peerCaughtUp = System.nanoTime(); // its engine took everything: the timer counts again
    hca.port.advance(TIMEOUT);
    WorkCompletion[] wc = WorkCompletion.array(1);
    assertEquals(1, hca.cq.poll(wc));
    assertEquals(WcStatus.RETRY_EXC_ERR, wc[0].status(), "retry_cnt 0: the first real timeout ends it");
    assertEquals(1, counter(Counter.TIMEOUTS));
  }

  @Test
  void aPeerThatStoppedStillEndsInRetryExceededWithinTheBudget() {
    hca = new CapturedHca(IbParams.builder());
    hca.port.peerCaughtUp = System.nanoTime() - 1;
    hca.port.peerRead = 4096; // its reader takes nothing more: the process is gone or stopped
    QueuePair qp = sendOne();
    WorkCompletion[] wc = WorkCompletion.array(1);
    int timeouts = 0;
    while (hca.cq.poll(wc) == 0) {
      assertTrue(++timeouts <= 20, "bounded: no completion after " + timeouts + " timeouts");
      hca.port.advance(TIMEOUT);
      sentAndReleased();
    }
    assertEquals(WcStatus.RETRY_EXC_ERR, wc[0].status());
    assertEquals(9, timeouts, "8 timeouts re-armed, the 9th spent retry_cnt 0");
    assertEquals(QpState.ERR, qp.state());
  }

  @Test
  void anAckStillInThisSidesFabricQueuesIsHeardBeforeTheTimeoutCounts() {
    hca = new CapturedHca(IbParams.builder());
    QueuePair qp = sendOne();
    hca.port.drained = false; // the ACK arrived but this host has not run its receive path
    hca.port.advance(TIMEOUT);
    assertEquals(1, counter(Counter.UNHEARD_TIMEOUTS));
    assertEquals(0, counter(Counter.TIMEOUTS));
    assertEquals(0, sentAndReleased(), "nothing resent while the answer may be here");
    hca.port.drained = true;
    hca.port.inject(2, Pkt.of(Opcode.RC_ACKNOWLEDGE).to(qp.qpNum()).psn(10).build());
    WorkCompletion[] wc = WorkCompletion.array(1);
    assertEquals(1, hca.cq.poll(wc));
    assertEquals(WcStatus.SUCCESS, wc[0].status());
    assertEquals(0, counter(Counter.TIMEOUTS));
    assertEquals(QpState.RTS, qp.state());
  }

  @Test
  void theEngineTellsThePortWhenItHasTakenEverythingThatArrived() {
    hca = new CapturedHca(IbParams.builder());
    QueuePair qp = sendOne();
    int before = hca.port.caughtUps.get();
    hca.port.inject(2, Pkt.of(Opcode.RC_ACKNOWLEDGE).to(qp.qpNum()).psn(10).build());
    WorkCompletion[] wc = WorkCompletion.array(1);
    assertEquals(1, hca.cq.poll(wc));
    assertTrue(hca.port.caughtUps.get() > before, "caught up after taking the ACK");
  }
}
