package io.github.verbs4j.ib;

import static io.github.verbs4j.ib.TwoNodes.assertOk;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RcSmokeTest {
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void sendWriteReadAndAtomicsMoveTheRightBytes(boolean deterministic) throws Exception {
    try (TwoNodes n = deterministic ? TwoNodes.deterministic(Map.of()) : TwoNodes.threaded()) {
      CompletionQueue cqA = n.a.createCq(64, null, 0);
      CompletionQueue cqB = n.b.createCq(64, null, 0);
      QueuePair qa = n.qp(n.pdA, QpType.RC, cqA, QpCap.builder().maxSendWr(32).maxRecvWr(32).build());
      QueuePair qb = n.qp(n.pdB, QpType.RC, cqB, QpCap.builder().maxSendWr(32).maxRecvWr(32).build());
      MemoryRegion ma = n.pdA.allocateMemory(1 << 16, TwoNodes.ALL);
      MemoryRegion mb = n.pdB.allocateMemory(1 << 16, TwoNodes.ALL);
      try {
        n.connect(qa, qb);
        int len = 5000;
        ByteBuffer src = ma.buffer();
        for (int i = 0; i < len; i++) {
          src.put(i, (byte) (i * 7 + 3));
        }
        qb.postRecv(new RecvWr().wrId(77).sge(mb, 100, 8000));
        qa.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(ma, 0, len));
        WorkCompletion s = n.pollOne(cqA);
        assertOk(s);
        assertEquals(1, s.wrId());
        WorkCompletion r = n.pollOne(cqB);
        assertOk(r);
        assertEquals(WcOpcode.RECV, r.opcode());
        assertEquals(len, r.byteLen());
        assertEquals(77, r.wrId());
        ByteBuffer dst = mb.buffer();
        for (int i = 0; i < len; i++) {
          assertEquals((byte) (i * 7 + 3), dst.get(100 + i), "byte " + i);
        }
        // WRITE 3000 bytes to offset 20000 of B.
        qa.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).signaled(true).sge(ma, 0, 3000)
            .rdma(mb.address() + 20000, mb.rkey()));
        assertOk(n.pollOne(cqA));
        for (int i = 0; i < 3000; i++) {
          assertEquals((byte) (i * 7 + 3), dst.get(20000 + i));
        }
        // READ them back into A at offset 40000.
        qa.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ).signaled(true).sge(ma, 40000, 3000)
            .rdma(mb.address() + 20000, mb.rkey()));
        WorkCompletion rd = n.pollOne(cqA);
        assertOk(rd);
        assertEquals(WcOpcode.RDMA_READ, rd.opcode());
        for (int i = 0; i < 3000; i++) {
          assertEquals((byte) (i * 7 + 3), src.get(40000 + i));
        }
        // FETCH_ADD and CMP_SWP on B's word at 8.
        mb.buffer().order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(8, 0x0101010101010101L);
        qa.postSend(new SendWr().wrId(4).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true).sge(ma, 48000, 8)
            .atomic(mb.address() + 8, mb.rkey(), 0x0202020202020202L, 0));
        assertOk(n.pollOne(cqA));
        assertEquals(0x0303030303030303L, mb.buffer().order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(8));
        assertEquals(0x0101010101010101L, ma.buffer().order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(48000));
        qa.postSend(new SendWr().wrId(5).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).signaled(true).sge(ma, 48008, 8)
            .atomic(mb.address() + 8, mb.rkey(), 0x0303030303030303L, 42));
        assertOk(n.pollOne(cqA));
        assertEquals(42, mb.buffer().order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(8));
      } finally {
        TwoNodes.closeAll(qa, qb, ma, mb, cqA, cqB, n.pdA, n.pdB);
      }
    }
  }
}
