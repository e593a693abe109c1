package io.github.verbs4j.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.Mtu;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An HCA sends and receives at once: its send and receive pipelines are separate and the link is
 * full duplex, so two nodes that write to each other at the same time each see the other's message
 * arrive about one one-way time after the posts, not two (the engine once charged sent and received
 * packets to one timeline, and an exchange took twice a one-way message).
 */
class ModelledDuplexTest {
  private static final int BYTES = 64 * 1024;

  @Test
  void anExchangeTakesAboutOneOneWayTimeNotTwo() throws Exception {
    try (TwoNodes n = TwoNodes.deterministic(Map.of("verbs.time", "modelled", "verbs.ib.profile", "connectx3-qdr"))) {
      CompletionQueue cqA = n.a.createCq(16, null, 0);
      CompletionQueue cqB = n.b.createCq(16, null, 0);
      QueuePair qa = n.qp(n.pdA, QpType.RC, cqA, new QpCap(8, 8, 1, 1, 0));
      QueuePair qb = n.qp(n.pdB, QpType.RC, cqB, new QpCap(8, 8, 1, 1, 0));
      n.connect(qa, n.a, qb, n.b, 0x10, 0x20, Mtu.MTU_4096, 14, 7, 7, 12, 4);
      MemoryRegion ma = n.pdA.allocateMemory(2 * BYTES, TwoNodes.ALL);
      MemoryRegion mb = n.pdB.allocateMemory(2 * BYTES, TwoNodes.ALL);
      for (int i = 0; i < BYTES; i++) {
        ma.buffer().put(i, (byte) (i * 7));
        mb.buffer().put(i, (byte) (i * 11));
      }

      // one way alone: A writes, B sees it
      qb.postRecv(new RecvWr().wrId(1));
      long posted = n.a.nowNanos();
      qa.postSend(write(2, ma, mb));
      WorkCompletion alone = n.pollOne(cqB);
      TwoNodes.assertOk(alone);
      long oneWay = alone.timestampNanos() - posted;
      TwoNodes.assertOk(n.pollOne(cqA));

      // both at once, after both clocks have reached the later of the two
      long start = Math.max(n.a.nowNanos(), n.b.nowNanos()) + 10_000;
      n.a.advanceClockTo(start);
      n.b.advanceClockTo(start);
      qa.postRecv(new RecvWr().wrId(3));
      qb.postRecv(new RecvWr().wrId(4));
      qa.postSend(write(5, ma, mb));
      qb.postSend(write(6, mb, ma));
      WorkCompletion atB = recv(n, cqB);
      WorkCompletion atA = recv(n, cqA);
      long slower = Math.max(atA.timestampNanos(), atB.timestampNanos()) - start;
      for (int i = 0; i < BYTES; i += 1021) {
        assertEquals((byte) (i * 7), mb.buffer().get(BYTES + i), "B's byte " + i);
        assertEquals((byte) (i * 11), ma.buffer().get(BYTES + i), "A's byte " + i);
      }
      System.out.println("ModelledDuplexTest: 64 KiB one way " + oneWay + " ns, exchange " + slower + " ns");
      assertTrue(slower < 1.15 * oneWay, "an exchange took " + slower + " ns against " + oneWay
          + " ns one way: sending and receiving took turns on one timeline");
      assertTrue(slower >= oneWay, "an exchange took " + slower + " ns, less than one way (" + oneWay + " ns)");
      TwoNodes.closeAll(qa, qb, ma, mb, cqA, cqB);
    }
  }

  private static SendWr write(long wrId, MemoryRegion from, MemoryRegion to) {
    return new SendWr().wrId(wrId).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).signaled(true).sge(from, 0, BYTES)
        .rdma(to.address() + BYTES, to.rkey()).immData((int) wrId);
  }

  /** Polls {@code cq} until the receive completion (the send's own completion may come first). */
  private static WorkCompletion recv(TwoNodes n, CompletionQueue cq) {
    while (true) {
      WorkCompletion wc = n.pollOne(cq);
      TwoNodes.assertOk(wc);
      if (wc.opcode() == WcOpcode.RECV_RDMA_WITH_IMM) {
        return wc;
      }
    }
  }
}
