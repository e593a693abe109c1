package io.github.verbs4j.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import io.github.verbs4j.verbs.spi.runtime.AgentLock;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code Context.postAt}: each send WR starts at the application time it was posted with, even
 * when the device's engine takes it up only after the application has posted again at a later
 * time (its engine ran late in wall time). Before, the application moved the device's clock at
 * each post, so the first WR left at the second post's time. On the deterministic fabric, so that
 * the receiver takes each SEND at its arrival (a threaded receiver may take the first late too).
 */
class PostTimeTest {
  @Test
  void aWrTakenUpLateStillLeavesAtItsOwnPostTime() throws Exception {
    try (TwoNodes n = TwoNodes.deterministic(Map.of())) {
      CompletionQueue cqA = n.a.createCq(16, null, 0);
      CompletionQueue cqB = n.b.createCq(16, null, 0);
      QueuePair qa = n.qp(n.pdA, QpType.RC, cqA, new QpCap(8, 8, 1, 1, 0));
      QueuePair qb = n.qp(n.pdB, QpType.RC, cqB, new QpCap(8, 8, 1, 1, 0));
      n.connect(qa, qb);
      MemoryRegion ma = n.pdA.allocateMemory(4096, TwoNodes.ALL);
      MemoryRegion mb = n.pdB.allocateMemory(4096, TwoNodes.ALL);
      qb.postRecv(new RecvWr().wrId(1).sge(mb, 0, 64));
      qb.postRecv(new RecvWr().wrId(2).sge(mb, 64, 64));
      long t0 = Math.max(n.a.nowNanos(), n.b.nowNanos()) + 1_000_000;
      long step = 5_000_000;
      // the engine is kept from running (as if its thread were late): both posts wait for it
      AgentLock engine = ((IbContext) n.a).engine().lock();
      while (!engine.tryAcquire()) {
        Thread.onSpinWait();
      }
      try {
        n.a.postAt(t0);
        qa.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(ma, 0, 64));
        n.a.postAt(t0 + step); // the application computed 5 ms, then posted again
        qa.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).signaled(true).sge(ma, 64, 64));
        assertTrue(n.a.nowNanos() < t0, "posting does not move the device's clock");
      } finally {
        engine.releaseFully();
      }
      cqA.poll(WorkCompletion.array(1)); // the engine takes both WQEs up now, in one duty cycle
      n.run(); // the deterministic fabric delivers in modelled-time order
      WorkCompletion first = n.pollOne(cqB);
      WorkCompletion second = n.pollOne(cqB);
      TwoNodes.assertOk(first);
      TwoNodes.assertOk(second);
      assertEquals(1, first.wrId());
      long oneWay = first.timestampNanos() - t0;
      assertTrue(oneWay >= 0 && oneWay < step / 10, "the first SEND arrived " + oneWay + " ns after its post time");
      long second2 = second.timestampNanos() - (t0 + step);
      assertTrue(second2 >= 0 && second2 < step / 10, "the second arrived " + second2 + " ns after its post time");
      n.run();
      TwoNodes.assertOk(n.pollOne(cqA));
      TwoNodes.assertOk(n.pollOne(cqA));
      for (AutoCloseable c : new AutoCloseable[] {qa, qb, cqA, cqB, ma, mb}) {
        c.close();
      }
    }
  }
}
