package io.github.verbs4j.tca.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.Mtu;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import io.github.verbs4j.verbs.spi.runtime.AgentLock;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * Several rendezvous messages outstanding per QP ({@link RendezvousTarget#WINDOW}): with the
 * target's proxy held, the requester sends the RTSs of a window and no more; released, the long
 * SENDs and WRITEs complete in order with the right bytes, directly placed (pool memory) or through
 * bounce buffers (registered user memory). Duplicate RTSs after the requester's timer went back, an
 * RNR in the middle of a window, and both QPs to ERR with a window granted end with the right bytes
 * and statuses, in order.
 */
class RendezvousWindowTest {
  private static final int LEN = 200_000;
  private static final int K = 5;
  private final Random random = new Random(44);

  /** Message i goes to the pool (direct DMA) when even, to registered user memory (bounce) when odd. */
  private static MemoryRegion target(TwoTcaNodes n, int i) {
    return i % 2 == 0 ? n.b.pool : n.b.user;
  }

  private static long offset(int i) {
    return (long) (i / 2) * LEN;
  }

  private static void await(LongSupplier value, long atLeast, String what) throws InterruptedException {
    long until = System.nanoTime() + 20_000_000_000L;
    while (value.getAsLong() < atLeast) {
      assertTrue(System.nanoTime() < until, what + ": " + value.getAsLong() + " < " + atLeast);
      Thread.sleep(1);
    }
  }

  private static WorkCompletion pollAny(io.github.verbs4j.verbs.CompletionQueue cq) {
    WorkCompletion[] wc = WorkCompletion.array(1);
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (cq.poll(wc) == 0) {
      assertTrue(System.nanoTime() < deadline, "no completion within 30 s");
      Thread.onSpinWait();
    }
    return new WorkCompletion().copyFrom(wc[0]);
  }

  private static byte[] read(ByteBuffer b, long at, int len) {
    byte[] out = new byte[len];
    b.get((int) at, out);
    return out;
  }

  /**
   * Posts K long messages from a's pool: even i WRITE, odd i SEND (b posts a receive for each SEND
   * when {@code recvs}), each to {@link #target}.
   */
  private byte[][] postWindow(TwoTcaNodes n, boolean recvs) {
    byte[][] data = new byte[K][LEN];
    for (int i = 0; i < K; i++) {
      random.nextBytes(data[i]);
      n.a.pool.buffer().put(i * LEN, data[i]);
      MemoryRegion t = target(n, i);
      SendWr wr = new SendWr().wrId(i).signaled(true).sge(n.a.pool, (long) i * LEN, LEN);
      if (i % 2 == 0) {
        wr.opcode(WrOpcode.RDMA_WRITE).rdma(t.address() + offset(i), t.rkey());
      } else {
        wr.opcode(WrOpcode.SEND);
        if (recvs) {
          n.b.rc.postRecv(new RecvWr().wrId(100 + i).sge(t, offset(i), LEN));
        }
      }
      n.a.rc.postSend(wr);
    }
    return data;
  }

  private static void assertDelivered(TwoTcaNodes n, byte[][] data) {
    for (int i = 0; i < K; i++) {
      WorkCompletion wc = pollAny(n.a.cq);
      assertEquals(WcStatus.SUCCESS, wc.status(), "message " + i + ": " + wc);
      assertEquals(i, wc.wrId(), "completed in order");
    }
    for (int i = 1; i < K; i += 2) {
      WorkCompletion wc = pollAny(n.b.cq);
      assertEquals(WcStatus.SUCCESS, wc.status(), "receive " + i + ": " + wc);
      assertEquals(100 + i, wc.wrId(), "received in order");
      assertEquals(LEN, wc.byteLen());
    }
    for (int i = 0; i < K; i++) {
      ByteBuffer b = i % 2 == 0 ? n.b.pool.buffer() : n.b.userMemory;
      assertArrayEquals(data[i], read(b, offset(i), LEN), "bytes of message " + i);
    }
  }

  private static long rendezvous(TwoTcaNodes.Side s) {
    return s.tca().counters().rendezvous();
  }

  private static double meter(TwoTcaNodes n, String name, TwoTcaNodes.Side s) {
    return n.registry.get("verbs4j.tca.verbs." + name).tag("node", Integer.toString(s.lid())).functionCounter()
        .count();
  }

  @Test
  void aWindowOfLongSendsAndWritesCompletesInOrderWithTheRightBytes() throws Exception {
    try (TwoTcaNodes n = new TwoTcaNodes(20)) {
      AgentLock proxy = n.b.holdProxy();
      byte[][] data;
      try {
        data = postWindow(n, true);
        await(() -> rendezvous(n.a), RendezvousTarget.WINDOW, "RTSs sent while the target is held");
        Thread.sleep(50); // the requester had the time to send more, had it been allowed
        assertEquals(RendezvousTarget.WINDOW, rendezvous(n.a), "a window of RTSs, no more");
      } finally {
        proxy.releaseFully();
      }
      assertDelivered(n, data);
      assertEquals(K, rendezvous(n.a));
    }
  }

  @Test
  void aCtsAnsweringAnEarlierRtsOfItsMessageIsNotUsed() throws Exception {
    // After the requester went back, a CTS of an earlier RTS may arrive after the target took that
    // try's FIN and let its memory go: writing there would touch released memory.
    try (TwoTcaNodes n = new TwoTcaNodes(20)) {
      TcaQueuePair qp = (TcaQueuePair) n.a.rc;
      byte[] data = new byte[LEN];
      random.nextBytes(data);
      n.a.pool.buffer().put(0, data);
      byte[] elsewhere = read(n.b.pool.buffer(), LEN, LEN);
      AgentLock proxy = n.b.holdProxy();
      try {
        n.a.rc.postSend(new SendWr().wrId(7).signaled(true).opcode(WrOpcode.RDMA_WRITE)
            .sge(n.a.pool, 0, LEN).rdma(n.b.pool.address(), n.b.pool.rkey()));
        await(() -> rendezvous(n.a), 1, "the RTS sent while the target is held");
        AgentLock sender = n.a.holdProxy();
        try {
          SendWqe w = qp.slot(qp.head);
          Packet stale = new Packet();
          stale.opcode = Packet.CTS;
          stale.srcQpn = n.b.rc.qpNum();
          stale.dstQpn = qp.qpNum();
          stale.psn = w.psn;
          stale.length = LEN;
          stale.addr = n.b.pool.address() + LEN;
          stale.value = w.rtsSent - 1; // the answer to an RTS sent before the latest
          double drops = meter(n, "drops", n.a);
          Proxy p = n.a.tca().proxy();
          synchronized (qp.lock()) {
            qp.requester.onResponse(p.channel(n.b.lid()), stale, null, 0, p.clockNanos());
          }
          assertEquals(SendWqe.WAIT_CTS, w.state, "the message still waits for the CTS of its latest RTS");
          assertEquals(drops + 1, meter(n, "drops", n.a), "the stale CTS was dropped");
        } finally {
          sender.releaseFully();
        }
      } finally {
        proxy.releaseFully();
      }
      WorkCompletion wc = pollAny(n.a.cq);
      assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
      assertEquals(7, wc.wrId());
      assertArrayEquals(data, read(n.b.pool.buffer(), 0, LEN), "the data went where the real CTS said");
      assertArrayEquals(elsewhere, read(n.b.pool.buffer(), LEN, LEN), "nothing went where the stale CTS said");
    }
  }

  @Test
  void duplicateRtssAfterTheTimerWentBackAreAnsweredWithTheGrantsAlreadyMade() throws Exception {
    // timeout 12 = 16.8 ms: it expires while the target is held, and the requester goes back
    try (TwoTcaNodes n = new TwoTcaNodes(12)) {
      AgentLock proxy = n.b.holdProxy();
      byte[][] data;
      try {
        data = postWindow(n, true);
        await(() -> rendezvous(n.a), 2L * RendezvousTarget.WINDOW, "RTSs sent again after the timer");
      } finally {
        proxy.releaseFully();
      }
      assertDelivered(n, data);
      assertTrue(meter(n, "retransmits", n.a) >= RendezvousTarget.WINDOW, "the window went out again");
      assertTrue(meter(n, "duplicates", n.b) >= 1, "the target met the RTSs again");
    }
  }

  @Test
  void anRnrInTheMiddleOfAWindowComesAfterTheMessagesBeforeIt() throws Exception {
    try (TwoTcaNodes n = new TwoTcaNodes(20)) {
      AgentLock proxy = n.b.holdProxy();
      byte[][] data;
      try {
        data = postWindow(n, false); // no receive for SEND 1: RNR, while WRITE 0 is granted
        await(() -> rendezvous(n.a), RendezvousTarget.WINDOW, "RTSs sent while the target is held");
      } finally {
        proxy.releaseFully();
      }
      await(() -> n.b.tca().counters().rnrNaksSent(), 1, "RNR NAKs sent");
      WorkCompletion first = pollAny(n.a.cq);
      assertEquals(0, first.wrId(), "the WRITE before the RNR-NAKed SEND completed");
      assertEquals(WcStatus.SUCCESS, first.status());
      assertTrue(meter(n, "out.of.sequence", n.b) >= 1, "the RTSs behind the held one were discarded");
      for (int i = 1; i < K; i += 2) {
        MemoryRegion t = target(n, i);
        n.b.rc.postRecv(new RecvWr().wrId(100 + i).sge(t, offset(i), LEN));
      }
      for (int i = 1; i < K; i++) {
        WorkCompletion wc = pollAny(n.a.cq);
        assertEquals(WcStatus.SUCCESS, wc.status(), "message " + i + ": " + wc);
        assertEquals(i, wc.wrId(), "completed in order");
      }
      for (int i = 1; i < K; i += 2) {
        WorkCompletion wc = pollAny(n.b.cq);
        assertEquals(100 + i, wc.wrId(), "received in order");
        assertEquals(LEN, wc.byteLen());
      }
      for (int i = 0; i < K; i++) {
        ByteBuffer b = i % 2 == 0 ? n.b.pool.buffer() : n.b.userMemory;
        assertArrayEquals(data[i], read(b, offset(i), LEN), "bytes of message " + i);
      }
    }
  }

  @Test
  void anRtsHeldForWantOfAReceiveIsGrantedWhenOnePostedBeforeItsTurnWithNoRetry() throws Exception {
    try (TwoTcaNodes n = new TwoTcaNodes(20)) {
      TcaQueuePair target = (TcaQueuePair) n.b.rc;
      AgentLock sender = null;
      AgentLock proxy = n.b.holdProxy();
      byte[][] data;
      try {
        data = postWindow(n, false); // no receive for SEND 1 yet: held behind WRITE 0, 2 and 3 behind it
        await(() -> rendezvous(n.a), RendezvousTarget.WINDOW, "RTSs sent while the target is held");
        sender = n.a.holdProxy(); // WRITE 0's CTS stays unread: no FIN yet
      } finally {
        proxy.releaseFully();
      }
      try {
        await(() -> {
          synchronized (target.lock()) {
            return target.responder.keptRendezvous();
          }
        }, RendezvousTarget.WINDOW, "RTSs granted or held by the target");
        for (int i = 1; i < K; i += 2) {
          MemoryRegion t = target(n, i);
          n.b.rc.postRecv(new RecvWr().wrId(100 + i).sge(t, offset(i), LEN));
        }
      } finally {
        sender.releaseFully();
      }
      assertDelivered(n, data);
      assertEquals(0, n.b.tca().counters().rnrNaksSent(), "the held RTS found its receive when its turn came");
      assertEquals(0.0, meter(n, "retransmits", n.a), "nothing waited for the timer");
    }
  }

  @Test
  void bothQpsToErrWithAWindowGrantedFlushEveryMessageInOrder() throws Exception {
    try (TwoTcaNodes n = new TwoTcaNodes(20)) {
      TcaQueuePair target = (TcaQueuePair) n.b.rc;
      AgentLock sender = null;
      AgentLock proxy = n.b.holdProxy();
      try {
        for (int i = 0; i < RendezvousTarget.WINDOW + 1; i++) {
          n.b.rc.postRecv(new RecvWr().wrId(100 + i).sge(n.b.pool, (long) i * LEN, LEN));
        }
        for (int i = 0; i < RendezvousTarget.WINDOW; i++) {
          n.a.rc.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).signaled(true)
              .sge(n.a.pool, (long) i * LEN, LEN));
        }
        await(() -> rendezvous(n.a), RendezvousTarget.WINDOW, "RTSs sent while the target is held");
        sender = n.a.holdProxy(); // the CTSs stay unread: no data, no FIN
      } finally {
        proxy.releaseFully();
      }
      try {
        await(() -> {
          synchronized (target.lock()) {
            return target.responder.granted();
          }
        }, RendezvousTarget.WINDOW, "messages granted by the target");
        n.b.rc.modify(new QpAttr().qpState(QpState.ERR));
        for (int i = 0; i < RendezvousTarget.WINDOW + 1; i++) {
          WorkCompletion wc = pollAny(n.b.cq);
          assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(), "receive " + i);
          assertEquals(WcOpcode.RECV, wc.opcode());
          assertEquals(100 + i, wc.wrId(), "flushed in order, granted ones first");
        }
        n.a.rc.modify(new QpAttr().qpState(QpState.ERR));
        for (int i = 0; i < RendezvousTarget.WINDOW; i++) {
          WorkCompletion wc = pollAny(n.a.cq);
          assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(), "send " + i);
          assertEquals(i, wc.wrId(), "flushed in order");
        }
      } finally {
        sender.releaseFully();
      }
      synchronized (target.lock()) {
        assertEquals(0, target.responder.granted(), "the grants were released");
      }
    }
  }

  @Test
  void ucKeepsOneRendezvousAtATimeAndDeliversEveryMessage() throws Exception {
    try (TwoTcaNodes n = new TwoTcaNodes(20)) {
      QpCap cap = QpCap.builder().maxSendWr(16).maxRecvWr(16).maxSendSge(1).maxRecvSge(1).build();
      try (QueuePair a = n.a.pd.createQp(QpInitAttr.builder(QpType.UC).sendCq(n.a.cq).recvCq(n.a.cq).cap(cap).build());
          QueuePair b = n.b.pd.createQp(QpInitAttr.builder(QpType.UC).sendCq(n.b.cq).recvCq(n.b.cq).cap(cap).build())) {
        connectUc(a, b, n.b.lid());
        connectUc(b, a, n.a.lid());
        byte[][] data = new byte[K][LEN];
        for (int i = 0; i < K; i++) {
          random.nextBytes(data[i]);
          n.a.pool.buffer().put(i * LEN, data[i]);
          b.postRecv(new RecvWr().wrId(100 + i).sge(n.b.pool, (long) i * LEN, LEN));
        }
        for (int i = 0; i < K; i++) {
          a.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).signaled(true).sge(n.a.pool, (long) i * LEN, LEN));
        }
        for (int i = 0; i < K; i++) {
          WorkCompletion wc = pollAny(n.b.cq);
          assertEquals(WcStatus.SUCCESS, wc.status(), "receive " + i + ": " + wc);
          assertEquals(100 + i, wc.wrId(), "received in order");
          assertArrayEquals(data[i], read(n.b.pool.buffer(), (long) i * LEN, LEN), "bytes of message " + i);
        }
        for (int i = 0; i < K; i++) {
          WorkCompletion wc = pollAny(n.a.cq);
          assertEquals(WcStatus.SUCCESS, wc.status());
          assertEquals(i, wc.wrId(), "completed in order");
        }
      }
    }
  }

  private static void connectUc(QueuePair qp, QueuePair peer, int peerLid) {
    qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(TwoTcaNodes.ALL));
    qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_4096).destQpNum(peer.qpNum()).rqPsn(7)
        .ahAttr(AhAttr.lid(peerLid)));
    qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(7));
  }
}
