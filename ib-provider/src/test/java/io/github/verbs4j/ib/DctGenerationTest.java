package io.github.verbs4j.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SharedReceiveQueue;
import io.github.verbs4j.verbs.SrqAttr;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A DCT tells a DCI's connections apart by the DCI's 8-bit generation and its epoch PSN. The
 * generation wraps after 256 moves of the DCI to other targets (an all-to-all over 256 ranks and
 * two DCIs does that), so which connection is newer is the epoch PSN's to say: a DCI back after
 * more than 127 moves, or exactly 256, reaches the DCT, and a late packet of an older connection
 * does not.
 */
class DctGenerationTest {
  private static final int PEER_LID = 2;
  private static final int DCI = 0x345;
  private static final long KEY = 0xbadc0deL;

  private CapturedHca hca;

  @AfterEach
  void close() throws Exception {
    if (hca != null) {
      hca.close();
    }
  }

  private Pkt send(int gen, int epochPsn, int psn, byte b) {
    Pkt p = Pkt.of(Opcode.DC_SEND_ONLY).psn(psn).ackReq().payload(new byte[] {b, b, b, b});
    p.dcKey = KEY;
    p.gen = gen;
    p.srcQp = DCI;
    p.epochPsn = epochPsn;
    return p;
  }

  private WorkCompletion[] inject(QueuePair dct, Pkt p) {
    hca.port.inject(PEER_LID, p.from(PEER_LID).to(dct.qpNum()).build());
    for (ByteBuf b : hca.port.takeAll()) {
      b.release(); // the DCT's ACKs
    }
    WorkCompletion[] wcs = WorkCompletion.array(8);
    int n = hca.cq.poll(wcs);
    WorkCompletion[] out = new WorkCompletion[n];
    System.arraycopy(wcs, 0, out, 0, n);
    return out;
  }

  private QueuePair dctWithReceives(MemoryRegion m) {
    SharedReceiveQueue srq = hca.pd.createSrq(SrqAttr.of(16, 1));
    hca.track(srq);
    for (int i = 0; i < 4; i++) {
      srq.postRecv(new RecvWr().wrId(i).sge(m, 64 * i, 64));
    }
    QueuePair dct = hca.pd.createQp(QpInitAttr.builder(QpType.DCT).recvCq(hca.cq).srq(srq)
        .cap(QpCap.builder().maxRecvWr(0).maxRecvSge(0).maxSendSge(0).build()).dcKey(KEY).build());
    hca.track(dct);
    dct.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(TwoNodes.ALL));
    dct.modify(new QpAttr().qpState(QpState.RTR).minRnrTimer(14).ahAttr(AhAttr.lid(1)).pathMtu(Mtu.MTU_256));
    return dct;
  }

  /**
   * A DCI back after exactly 256 moves carries the generation of its last connection to this DCT:
   * an all-to-all over 512 ranks and two DCIs, then a barrier, does that. Only the epoch PSN says
   * it is another connection; taken as the old one, its PSN was out of sequence and every retry
   * was dropped until the retry count ran out.
   */
  @Test
  void aDciBackWithTheSameGenerationAfterAWholeWrapStartsANewConnection() {
    hca = new CapturedHca(IbParams.builder());
    MemoryRegion m = hca.pd.allocateMemory(256, TwoNodes.ALL);
    hca.track(m);
    QueuePair dct = dctWithReceives(m);

    assertEquals(WcStatus.SUCCESS, inject(dct, send(7, 40, 40, (byte) 1))[0].status());
    // 256 other targets later: generation 7 again, the epoch 1,000 PSNs on
    WorkCompletion[] back = inject(dct, send(7, 1040, 1040, (byte) 2));
    assertEquals(1, back.length, "the DCI's new connection is taken");
    assertEquals(WcStatus.SUCCESS, back[0].status());
    assertEquals(2, m.buffer().get(64), "its bytes landed");
    assertEquals(0, hca.ctx.counters().get(Counter.SEQ_NAKS_SENT), "no PSN sequence error");
    // its next message goes on in the new connection
    assertEquals(WcStatus.SUCCESS, inject(dct, send(7, 1040, 1041, (byte) 3))[0].status());
    assertEquals(3, m.buffer().get(128));
    // a late packet of the connection before, same generation, older epoch: not taken
    long dropped = hca.ctx.counters().get(Counter.DROP_DC_NO_CONTEXT);
    assertEquals(0, inject(dct, send(7, 40, 41, (byte) 4)).length);
    assertEquals(dropped + 1, hca.ctx.counters().get(Counter.DROP_DC_NO_CONTEXT));
    assertEquals(0, m.buffer().get(192), "nothing landed for it");
  }

  @Test
  void aDciBackAfterTheGenerationWrappedPastHalfReachesTheDctAndAnOlderConnectionDoesNot() {
    hca = new CapturedHca(IbParams.builder());
    SharedReceiveQueue srq = hca.pd.createSrq(SrqAttr.of(16, 1));
    hca.track(srq);
    MemoryRegion m = hca.pd.allocateMemory(256, TwoNodes.ALL);
    hca.track(m);
    for (int i = 0; i < 4; i++) {
      srq.postRecv(new RecvWr().wrId(i).sge(m, 64 * i, 64));
    }
    QueuePair dct = hca.pd.createQp(QpInitAttr.builder(QpType.DCT).recvCq(hca.cq).srq(srq)
        .cap(QpCap.builder().maxRecvWr(0).maxRecvSge(0).maxSendSge(0).build()).dcKey(KEY).build());
    hca.track(dct);
    dct.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(TwoNodes.ALL));
    dct.modify(new QpAttr().qpState(QpState.RTR).minRnrTimer(14).ahAttr(AhAttr.lid(1)).pathMtu(Mtu.MTU_256));

    WorkCompletion[] first = inject(dct, send(1, 40, 40, (byte) 1));
    assertEquals(1, first.length);
    assertEquals(WcStatus.SUCCESS, first[0].status());
    // the DCI then served 199 other targets: generation 1 + 200 = 201, 8 bits, "behind" 1 as a signed byte
    WorkCompletion[] back = inject(dct, send(201, 500, 500, (byte) 2));
    assertEquals(1, back.length, "the DCI's new connection is taken");
    assertEquals(WcStatus.SUCCESS, back[0].status());
    assertEquals(2, m.buffer().get(64), "its bytes landed");
    long dropped = hca.ctx.counters().get(Counter.DROP_DC_NO_CONTEXT);
    // a late packet of the first connection (its epoch PSN is older) is not taken again
    assertEquals(0, inject(dct, send(1, 40, 41, (byte) 3)).length);
    assertEquals(dropped + 1, hca.ctx.counters().get(Counter.DROP_DC_NO_CONTEXT));
    assertEquals(0, m.buffer().get(128), "nothing landed for it");
  }
}
