package io.github.verbs4j.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.ib.engine.IbCounters.Counter;
import io.github.verbs4j.ib.engine.IbParams;
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
 * The local ACK timer measures time on the wire: a timeout that finds the QP's packets still queued
 * on their way to the peer (the fabric's outbox, socket buffers, the peer's decryption and decoder
 * on a busy host) re-arms without spending {@code retry_cnt}, at most 8 times in a row unless those
 * bytes keep moving, so a peer that stops reading still ends the QP.
 */
class QueuedTimeoutTest {
  private static final long TIMEOUT = 4096L << 10; // code 10: 4.194 ms
  private CapturedHca hca;

  @AfterEach
  void close() throws Exception {
    hca.close();
  }

  private QueuePair rc(int retry) {
    QueuePair qp = hca.track(hca.pd.createQp(QpInitAttr.builder(QpType.RC).cq(hca.cq)
        .cap(QpCap.builder().maxSendWr(16).maxRecvWr(16).build()).build()));
    qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(TwoNodes.ALL));
    qp.modify(new QpAttr().qpState(QpState.RTR).ahAttr(AhAttr.lid(2)).pathMtu(Mtu.MTU_256).destQpNum(0x777)
        .rqPsn(100).maxDestRdAtomic(1).minRnrTimer(14));
    qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(10).timeout(10).retryCnt(retry).rnrRetry(1)
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

  @Test
  void aTimeoutWhileThePacketsAreStillQueuedHereSpendsNoRetry() {
    hca = new CapturedHca(IbParams.builder());
    QueuePair qp = rc(1);
    MemoryRegion m = hca.track(hca.pd.allocateMemory(64, TwoNodes.ALL));
    qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16));
    assertEquals(1, sentAndReleased());
    hca.port.unsent = 1 << 20; // a busy host still holds a MiB for the peer
    for (int i = 1; i <= 3; i++) {
      hca.port.advance(TIMEOUT);
      assertEquals(0, sentAndReleased(), "nothing resent while queued, timeout " + i);
    }
    assertEquals(3, counter(Counter.QUEUED_TIMEOUTS));
    assertEquals(0, counter(Counter.TIMEOUTS));
    hca.port.unsent = 0; // the queue drained: the timer counts again
    hca.port.advance(TIMEOUT);
    assertEquals(1, sentAndReleased(), "resent once the packets had left");
    assertEquals(1, counter(Counter.TIMEOUTS));
    assertEquals(QpState.RTS, qp.state(), "retry_cnt 1 not exhausted by the queued timeouts");
  }

  @Test
  void aSlowPeerThatKeepsDecodingNeverSpendsARetryHoweverLongItTakes() {
    hca = new CapturedHca(IbParams.builder());
    QueuePair qp = rc(0);
    MemoryRegion m = hca.track(hca.pd.allocateMemory(64, TwoNodes.ALL));
    qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16));
    sentAndReleased();
    // 4 MiB on its way to a peer that decodes (decrypts) 64 KiB per timeout: 64 timeouts, far
    // beyond the budget of 8 in a row, but the bytes keep moving
    for (long unsent = 4 << 20; unsent > 0; unsent -= 64 << 10) {
      hca.port.unsent = unsent;
      hca.port.advance(TIMEOUT);
      assertEquals(0, sentAndReleased(), "nothing resent while " + unsent + " bytes are on their way");
    }
    assertEquals(64, counter(Counter.QUEUED_TIMEOUTS));
    assertEquals(0, counter(Counter.TIMEOUTS));
    assertEquals(QpState.RTS, qp.state(), "retry_cnt 0 untouched");
    hca.port.unsent = 0; // all of it decoded at the peer: the timer counts again
    WorkCompletion[] wc = WorkCompletion.array(1);
    hca.port.advance(TIMEOUT);
    assertEquals(1, hca.cq.poll(wc));
    assertEquals(WcStatus.RETRY_EXC_ERR, wc[0].status(), "retry_cnt 0: the first real timeout ends it");
    assertEquals(1, counter(Counter.TIMEOUTS));
  }

  @Test
  void aPeerThatNeverDrainsTheQueueStillEndsInRetryExceeded() {
    hca = new CapturedHca(IbParams.builder());
    QueuePair qp = rc(0);
    MemoryRegion m = hca.track(hca.pd.allocateMemory(64, TwoNodes.ALL));
    qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(m, 0, 16));
    sentAndReleased();
    hca.port.unsent = 1 << 20; // stuck for good
    WorkCompletion[] wc = WorkCompletion.array(1);
    int timeouts = 0;
    while (hca.cq.poll(wc) == 0) {
      assertTrue(++timeouts <= 20, "bounded: no completion after " + timeouts + " timeouts");
      hca.port.advance(TIMEOUT);
      sentAndReleased();
    }
    assertEquals(WcStatus.RETRY_EXC_ERR, wc[0].status());
    assertEquals(9, timeouts, "8 queued timeouts re-armed, the 9th spent retry_cnt 0");
    assertEquals(QpState.ERR, qp.state());
  }
}
