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
 * In modelled time a message of many packets streams packet by packet: the HCA sends each packet
 * as soon as it has read its payload, and the peer takes each as it arrives, so a long message
 * arrives one link time of its bytes after its post, plus one packet's work at each end. Packet
 * trains (one fabric frame per duty cycle) would store and forward the whole message at both ends.
 */
class ModelledStreamingTest {
  @Test
  void aQuarterMebibyteWriteArrivesOneWireTimeAfterItsPost() throws Exception {
    int bytes = 256 * 1024;
    // the deterministic fabric: on the threaded one wall-time effects moved this figure once to 78.8 µs
    try (TwoNodes n = TwoNodes.deterministic(Map.of("verbs.time", "modelled", "verbs.ib.profile", "connectx3-qdr"))) {
      CompletionQueue cqA = n.a.createCq(16, null, 0);
      CompletionQueue cqB = n.b.createCq(16, null, 0);
      QueuePair qa = n.qp(n.pdA, QpType.RC, cqA, new QpCap(8, 8, 1, 1, 0));
      QueuePair qb = n.qp(n.pdB, QpType.RC, cqB, new QpCap(8, 8, 1, 1, 0));
      n.connect(qa, n.a, qb, n.b, 0x10, 0x20, Mtu.MTU_4096, 14, 7, 7, 12, 4);
      MemoryRegion ma = n.pdA.allocateMemory(bytes, TwoNodes.ALL);
      MemoryRegion mb = n.pdB.allocateMemory(bytes, TwoNodes.ALL);
      for (int i = 0; i < bytes; i++) {
        ma.buffer().put(i, (byte) (i * 7));
      }
      qb.postRecv(new RecvWr().wrId(1));
      long posted = n.a.nowNanos();
      qa.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).signaled(true).sge(ma, 0, bytes)
          .rdma(mb.address(), mb.rkey()).immData(5));
      WorkCompletion wc = n.pollOne(cqB);
      TwoNodes.assertOk(wc);
      assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, wc.opcode());
      for (int i = 0; i < bytes; i += 4093) {
        assertEquals((byte) (i * 7), mb.buffer().get(i), "byte " + i);
      }
      // QDR 4X carries 4,000 MB/s of data: 65.5 µs for the payload, ~1.7 % more with the headers
      double wire = bytes * 1000.0 / 4000;
      long oneWay = wc.timestampNanos() - posted;
      System.out.println("ModelledStreamingTest: 256 KiB one way " + oneWay + " ns");
      assertTrue(oneWay >= wire && oneWay < 1.15 * wire, "one way " + oneWay + " ns against " + wire
          + " ns of wire time (in trains, stored and forwarded whole at both ends: ~104,000)");
      TwoNodes.assertOk(n.pollOne(cqA));
      TwoNodes.closeAll(qa, qb, ma, mb, cqA, cqB);
    }
  }
}
