package io.github.verbs4j.tca.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import io.github.verbs4j.verbs.spi.runtime.AgentLock;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code Context.postAt} on tca: each send WR starts at the application time it was posted with,
 * even when the proxy takes it up only after the application has posted again at a later time.
 * On the deterministic fabric, so that the receiver takes each SEND at its arrival.
 */
class PostTimeTest {
  @Test
  void aWrTakenUpLateStillLeavesAtItsOwnPostTime() {
    try (TwoTcaNodes n = new TwoTcaNodes(14, Map.of("verbs.fabric.mode", "deterministic", "verbs.threading",
        "invoker"))) {
      n.b.rc.postRecv(new RecvWr().wrId(1).sge(n.b.pool, 0, 64));
      n.b.rc.postRecv(new RecvWr().wrId(2).sge(n.b.pool, 64, 64));
      n.fabric().runUntilIdle();
      long t0 = Math.max(n.a.ctx.nowNanos(), n.b.ctx.nowNanos()) + 1_000_000;
      long step = 5_000_000;
      AgentLock proxy = n.a.tca().proxy().lock(); // the proxy is kept from running, as if late
      while (!proxy.tryAcquire()) {
        Thread.onSpinWait();
      }
      try {
        n.a.ctx.postAt(t0);
        n.a.rc.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(n.a.pool, 0, 64));
        n.a.ctx.postAt(t0 + step); // the application computed 5 ms, then posted again
        n.a.rc.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).signaled(true).sge(n.a.pool, 64, 64));
        assertTrue(n.a.ctx.nowNanos() < t0, "posting does not move the clock");
      } finally {
        proxy.releaseFully();
      }
      n.a.cq.poll(WorkCompletion.array(1)); // the proxy takes both WQEs up now
      n.fabric().runUntilIdle();
      WorkCompletion[] got = new WorkCompletion[2];
      int k = 0;
      WorkCompletion[] wc = WorkCompletion.array(1);
      for (int spins = 0; k < 2 && spins < 1_000_000; spins++) {
        n.fabric().runUntilIdle();
        if (n.b.cq.poll(wc) == 1) {
          got[k++] = new WorkCompletion().copyFrom(wc[0]);
        }
      }
      assertEquals(2, k, "both SENDs received");
      assertEquals(1, got[0].wrId());
      long first = got[0].timestampNanos() - t0;
      long second = got[1].timestampNanos() - (t0 + step);
      assertTrue(first >= 0 && first < step / 5, "the first SEND arrived " + first + " ns after its post time");
      assertTrue(second >= 0 && second < step / 5, "the second arrived " + second + " ns after its post time");
    }
  }
}
