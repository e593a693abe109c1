package io.github.verbs4j.tca.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.Mtu;
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
import org.junit.jupiter.api.Test;

/**
 * RC messages are acknowledged by the receiver's ring write-back (seed 000's PSN pair), not by ACK
 * packets; a message the receiver took but did not accept is not acknowledged by it.
 */
class AckByWriteBackTest {
  private static final int MSGS = 20;

  @Test
  void sendsAndWritesCompleteWithoutAnyPacketComingBack() {
    try (TwoTcaNodes n = new TwoTcaNodes(14)) {
      for (int i = 0; i < MSGS; i++) {
        n.b.rc.postRecv(new RecvWr().wrId(i).sge(n.b.pool, 64L * i, 64));
      }
      for (int i = 0; i < MSGS; i++) {
        n.a.pool.buffer().put(64 * i, (byte) (i + 1));
        n.a.rc.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).signaled(true).sge(n.a.pool, 64L * i, 64));
        n.a.rc.postSend(new SendWr().wrId(MSGS + i).opcode(WrOpcode.RDMA_WRITE).signaled(true)
            .sge(n.a.pool, 64L * i, 16).rdma(n.b.pool.address() + 8192 + 16L * i, n.b.pool.rkey()));
      }
      for (int k = 0; k < 2 * MSGS; k++) {
        WorkCompletion wc = TwoTcaNodes.poll(n.a.cq);
        assertEquals(k % 2 == 0 ? k / 2 : MSGS + k / 2, wc.wrId(), "in posting order: " + wc);
      }
      for (int i = 0; i < MSGS; i++) {
        WorkCompletion wc = TwoTcaNodes.poll(n.b.cq);
        assertEquals(WcOpcode.RECV, wc.opcode());
        assertEquals(i + 1, n.b.pool.buffer().get(64 * (int) wc.wrId()), "SEND " + wc.wrId() + " landed");
        assertEquals(i + 1, n.b.pool.buffer().get(8192 + 16 * i), "WRITE " + i + " landed");
      }
      assertEquals(0.0, counter(n, "packets.received", n.a.lid()), "b sent a no packet: no ACKs");
      assertEquals(0.0, counter(n, "timeouts", n.a.lid()), "no timer fired");
    }
  }

  @Test
  void aSendTheTargetDiscardsIsSentAgainAndArrivesOnceItIsReady() throws Exception {
    // timeout 16 = 268 ms, retry_cnt 7: the target is made ready long before the requester gives up
    try (TwoTcaNodes n = new TwoTcaNodes(14)) {
      QpCap cap = QpCap.builder().maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1).build();
      try (QueuePair qa = n.a.pd.createQp(QpInitAttr.builder(QpType.RC).sendCq(n.a.cq).recvCq(n.a.cq).cap(cap).build());
          QueuePair qb = n.b.pd.createQp(QpInitAttr.builder(QpType.RC).sendCq(n.b.cq).recvCq(n.b.cq).cap(cap)
              .build())) {
        qb.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(TwoTcaNodes.ALL));
        qb.postRecv(new RecvWr().wrId(7).sge(n.b.pool, 0, 64));
        qa.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(TwoTcaNodes.ALL));
        qa.modify(new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_4096).destQpNum(qb.qpNum()).rqPsn(0)
            .maxDestRdAtomic(1).minRnrTimer(1).ahAttr(AhAttr.lid(n.b.lid())));
        qa.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0).timeout(16).retryCnt(7).rnrRetry(7).maxRdAtomic(1));
        n.a.pool.buffer().put(4096, (byte) 0x5A);
        qa.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(n.a.pool, 4096, 64));

        // b takes the SEND from its ring and drops it (its QP is in INIT); a learns it by DISCARDED
        long deadline = System.nanoTime() + 30_000_000_000L;
        while ((counter(n, "drops", n.b.lid()) == 0 || counter(n, "packets.received", n.a.lid()) == 0)
            && System.nanoTime() < deadline) {
          Thread.sleep(1);
        }
        assertTrue(counter(n, "drops", n.b.lid()) > 0, "b dropped the SEND");
        Thread.sleep(20); // b's write-back, which counts the dropped packet as taken, has landed
        WorkCompletion[] wc = WorkCompletion.array(1);
        assertEquals(0, n.a.cq.poll(wc), "not acknowledged: " + wc[0]);

        qb.modify(new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_4096).destQpNum(qa.qpNum()).rqPsn(0)
            .maxDestRdAtomic(1).minRnrTimer(1).ahAttr(AhAttr.lid(n.a.lid())));
        WorkCompletion sent = TwoTcaNodes.poll(n.a.cq);
        assertEquals(1, sent.wrId());
        assertEquals(WcStatus.SUCCESS, sent.status());
        WorkCompletion recv = TwoTcaNodes.poll(n.b.cq);
        assertEquals(7, recv.wrId());
        assertEquals(64, recv.byteLen());
        assertEquals((byte) 0x5A, n.b.pool.buffer().get(0));
        assertTrue(counter(n, "retransmits", n.a.lid()) > 0, "a sent it again");
      }
    }
  }

  private static double counter(TwoTcaNodes n, String name, int lid) {
    return n.registry.get("verbs4j.tca.verbs." + name).tag("node", Integer.toString(lid)).functionCounter().count();
  }
}
