package io.github.verbs4j.tca.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.CompletionQueue;
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
import io.github.verbs4j.verbs.spi.runtime.AgentLock;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A UC requester that gives up waiting for a CTS completes the message with SUCCESS: UC loses it.
 * The target may have granted that RTS all the same (its proxy answered after the requester gave
 * up, so the CTS came too late and was dropped). The next message's RTS or packet ends that grant
 * as a UC responder ends a partial message when a new one starts: its memory goes back, the
 * receive WQE it took serves the next message, and a late FIN of the lost message is dropped.
 */
class UcLostRendezvousTest {
  private static final int LEN = 200_000;
  private static final int SHORT = 100;
  /** The UC QPs' first PSN: the lost message's. */
  private static final int PSN = 7;
  private final Random random = new Random(45);

  /** Runs the deterministic fabric until {@code cq} has a completion (polling runs its node's proxy). */
  private static WorkCompletion poll(TwoTcaNodes n, CompletionQueue cq, String what) {
    WorkCompletion[] wc = WorkCompletion.array(1);
    for (int spins = 0; spins < 100_000; spins++) {
      n.fabric().runUntilIdle();
      if (cq.poll(wc) == 1) {
        return new WorkCompletion().copyFrom(wc[0]);
      }
    }
    throw new AssertionError("no completion: " + what);
  }

  /** Runs the deterministic fabric until nothing is left to do, polling {@code cq} (none expected). */
  private static void assertNoCompletion(TwoTcaNodes n, CompletionQueue cq, String what) {
    WorkCompletion[] wc = WorkCompletion.array(1);
    for (int i = 0; i < 100; i++) {
      n.fabric().runUntilIdle();
      assertEquals(0, cq.poll(wc), what);
    }
  }

  private static byte[] read(ByteBuffer b, long at, int len) {
    byte[] out = new byte[len];
    b.get((int) at, out);
    return out;
  }

  private static double drops(TwoTcaNodes n) {
    return n.registry.get("verbs4j.tca.verbs.drops").tag("node", Integer.toString(n.b.lid())).functionCounter().count();
  }

  private static void connectUc(QueuePair qp, QueuePair peer, int peerLid) {
    qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(TwoTcaNodes.ALL));
    qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_4096).destQpNum(peer.qpNum()).rqPsn(PSN)
        .ahAttr(AhAttr.lid(peerLid)));
    qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(PSN));
  }

  /**
   * Deterministic fabric, modelled time: UC's wait for a CTS (4.096 µs × 2^14) expires only where
   * the test makes the target late, never because the host was slow.
   */
  private static TwoTcaNodes nodes() {
    return new TwoTcaNodes(20, Map.of("verbs.fabric.mode", "deterministic", "verbs.threading", "invoker"));
  }

  private static QueuePair ucQp(TwoTcaNodes.Side s) {
    QpCap cap = QpCap.builder().maxSendWr(16).maxRecvWr(16).maxSendSge(1).maxRecvSge(1).build();
    return s.pd.createQp(QpInitAttr.builder(QpType.UC).sendCq(s.cq).recvCq(s.cq).cap(cap).build());
  }

  /**
   * Message 1, a long SEND from a's pool at 0, is lost: the target's proxy takes its RTS up only
   * after the requester gave up (its host busy meanwhile), grants it (with the first receive WQE)
   * and answers with a CTS that comes too late.
   */
  private static void loseFirstMessage(TwoTcaNodes n, QueuePair a, TcaQueuePair target) {
    AgentLock proxy = n.b.holdProxy();
    try {
      a.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(n.a.pool, 0, LEN));
      WorkCompletion lost = poll(n, n.a.cq, "the requester giving up on message 1");
      assertEquals(1, lost.wrId());
      assertEquals(WcStatus.SUCCESS, lost.status(), "UC: a lost message completes without error");
      n.b.tca().board().clock().advanceTo(n.a.ctx.nowNanos());
    } finally {
      proxy.releaseFully();
    }
    assertNoCompletion(n, n.b.cq, "the target's proxy grants message 1; its CTS comes too late");
    synchronized (target.lock()) {
      assertEquals(1, target.responder.granted(), "message 1 granted");
    }
  }

  @Test
  void aUcMessageWhoseCtsCameTooLateIsLostAndTheMessagesAfterItArrive() throws Exception {
    try (TwoTcaNodes n = nodes()) {
      try (QueuePair a = ucQp(n.a); QueuePair b = ucQp(n.b)) {
        connectUc(a, b, n.b.lid());
        connectUc(b, a, n.a.lid());
        TcaQueuePair target = (TcaQueuePair) b;
        // messages 2..5 after the lost one: a long SEND, a short SEND, a long WRITE with immediate, a long SEND
        WrOpcode[] ops = {WrOpcode.SEND, WrOpcode.SEND, WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.SEND};
        int[] lens = {LEN, SHORT, LEN, LEN};
        byte[][] data = new byte[5][];
        for (int i = 0; i < 5; i++) {
          data[i] = new byte[i == 0 ? LEN : lens[i - 1]];
          random.nextBytes(data[i]);
          n.a.pool.buffer().put(i * LEN, data[i]);
        }
        // one receive per message that takes one, the lost message's first: it takes receive 100
        for (int i = 0; i < ops.length; i++) {
          b.postRecv(new RecvWr().wrId(100 + i).sge(n.b.pool, (long) i * LEN, LEN));
        }

        loseFirstMessage(n, a, target);

        for (int i = 0; i < ops.length; i++) {
          SendWr wr = new SendWr().wrId(2 + i).opcode(ops[i]).signaled(true).sge(n.a.pool, (long) (i + 1) * LEN, lens[i]);
          if (ops[i] == WrOpcode.RDMA_WRITE_WITH_IMM) {
            wr.rdma(n.b.user.address(), n.b.user.rkey()).immData(0x5EED);
          }
          a.postSend(wr);
        }
        for (int i = 0; i < ops.length; i++) {
          WorkCompletion wc = poll(n, n.a.cq, "send " + (2 + i));
          assertEquals(2 + i, wc.wrId(), "completed in order");
          assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        }
        for (int i = 0; i < ops.length; i++) {
          WorkCompletion wc = poll(n, n.b.cq, "receive for message " + (2 + i));
          assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
          assertEquals(100 + i, wc.wrId(), "receives in posting order, the lost message's first");
          boolean imm = ops[i] == WrOpcode.RDMA_WRITE_WITH_IMM;
          assertEquals(imm ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV, wc.opcode());
          assertEquals(lens[i], wc.byteLen(), "byte_len of message " + (2 + i) + ": " + wc);
          ByteBuffer at = imm ? n.b.userMemory : n.b.pool.buffer();
          assertArrayEquals(data[i + 1], read(at, imm ? 0 : (long) i * LEN, lens[i]), "bytes of message " + (2 + i));
        }
        assertNoCompletion(n, n.b.cq, "no completion for the lost message");
        synchronized (target.lock()) {
          assertEquals(0, target.responder.keptRendezvous(), "no grant left behind");
        }

        // a FIN of the lost message that comes this late is dropped: the memory it was granted is not written
        byte[] before = read(n.b.pool.buffer(), 0, LEN);
        Packet fin = new Packet();
        fin.opcode = Packet.FIN;
        fin.srcQpn = a.qpNum();
        fin.dstQpn = b.qpNum();
        fin.psn = PSN;
        fin.length = LEN;
        fin.payloadLength = RendezvousSender.FIN_TAIL;
        ByteBuffer tail = ByteBuffer.allocate(RendezvousSender.FIN_TAIL);
        double drops = drops(n);
        Proxy p = n.b.tca().proxy();
        AgentLock held = n.b.holdProxy();
        try {
          synchronized (target.lock()) {
            target.responder.onRequest(p.channel(n.a.lid()), fin, tail, 0);
          }
        } finally {
          held.releaseFully();
        }
        assertEquals(drops + 1, drops(n), "the late FIN was dropped");
        assertArrayEquals(before, read(n.b.pool.buffer(), 0, LEN), "nothing written where message 1 was granted");
        assertEquals(0, n.b.cq.poll(WorkCompletion.array(1)), "no completion for the late FIN");
      }
    }
  }

  @Test
  void theReceiveWqeALostMessageTookIsFlushedFirstWhenTheQpFails() throws Exception {
    try (TwoTcaNodes n = nodes()) {
      try (QueuePair a = ucQp(n.a); QueuePair b = ucQp(n.b)) {
        connectUc(a, b, n.b.lid());
        connectUc(b, a, n.a.lid());
        TcaQueuePair target = (TcaQueuePair) b;
        for (int i = 0; i < 3; i++) {
          b.postRecv(new RecvWr().wrId(100 + i).sge(n.b.pool, (long) i * LEN, LEN));
        }
        loseFirstMessage(n, a, target);
        // a long WRITE takes no receive WQE: message 1's stays aside for the next message
        byte[] data = new byte[LEN];
        random.nextBytes(data);
        n.a.pool.buffer().put(LEN, data);
        a.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).signaled(true).sge(n.a.pool, LEN, LEN)
            .rdma(n.b.user.address(), n.b.user.rkey()));
        WorkCompletion sent = poll(n, n.a.cq, "the WRITE");
        assertEquals(2, sent.wrId());
        assertEquals(WcStatus.SUCCESS, sent.status(), sent.toString());
        assertNoCompletion(n, n.b.cq, "a WRITE completes no receive");
        assertArrayEquals(data, read(n.b.userMemory, 0, LEN), "the WRITE's bytes");

        b.modify(new QpAttr().qpState(QpState.ERR));
        for (int i = 0; i < 3; i++) {
          WorkCompletion wc = poll(n, n.b.cq, "flush " + i);
          assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(), wc.toString());
          assertEquals(WcOpcode.RECV, wc.opcode());
          assertEquals(100 + i, wc.wrId(), "flushed in posting order, the lost message's first");
        }
        assertNoCompletion(n, n.b.cq, "each receive WQE completes once");
      }
    }
  }
}
