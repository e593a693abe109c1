package io.github.verbs4j.tca.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code Context.chargeNanos} on a PEACH2 board: the application's work moves the host's modelled
 * clock, what it sends afterwards arrives that much later at the peer, and an idle board leaves no
 * timer behind that would move the clock while the application computes (a PCIe replay timer or
 * the proxy's wake timer left at a deadline nothing waits for any more).
 */
class ApplicationClockTest {
  private static final Map<String, String> MODELLED = Map.of("verbs.time", "modelled");

  @Test
  void chargedWorkMovesTheModelledClockAndDelaysWhatIsSentAfterIt() {
    try (TwoTcaNodes n = new TwoTcaNodes(14, MODELLED)) {
      long before = n.a.ctx.nowNanos();
      n.a.ctx.chargeNanos(250_000);
      assertEquals(before + 250_000, n.a.ctx.nowNanos(), "an idle board's clock moves only by the charge");
      sendOnce(n, 0); // the first message also sets up the receiver's descriptors
      long[] oneWay = new long[3];
      long[] idle = new long[3];
      for (int round = 0; round < 3; round++) {
        long work = round == 1 ? 3_000_000 : 0;
        pause(); // wall time in which the fabric looks for its next event: there must be none
        long start = n.a.ctx.nowNanos();
        n.a.ctx.chargeNanos(work);
        pause();
        long posted = sendOnce(n, round + 1);
        idle[round] = posted - start - work;
        oneWay[round] = lastRecv - posted;
      }
      for (int round = 0; round < 3; round++) {
        assertTrue(idle[round] < 5_000, "round " + round + ": the clock moved " + idle[round] + " ns beyond the "
            + "charge between two messages");
        assertEquals(oneWay[0], oneWay[round], 0.1 * oneWay[0], "one-way times " + java.util.Arrays.toString(oneWay));
      }
      assertTrue(n.b.ctx.nowNanos() >= 3_000_000, "peer clock " + n.b.ctx.nowNanos());
    }
  }

  private long lastRecv;

  private static void pause() {
    try {
      Thread.sleep(30);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** One signalled SEND of 64 bytes from a to b; returns a's clock at the post. */
  private long sendOnce(TwoTcaNodes n, int id) {
    n.b.rc.postRecv(new RecvWr().wrId(id).sge(n.b.pool, 1 << 20, 64));
    long posted = n.a.ctx.nowNanos();
    n.a.rc.postSend(new SendWr().wrId(id).opcode(WrOpcode.SEND).signaled(true).sge(n.a.pool, 0, 64));
    assertEquals(WcStatus.SUCCESS, TwoTcaNodes.poll(n.a.cq).status());
    WorkCompletion recv = TwoTcaNodes.poll(n.b.cq);
    assertEquals(WcStatus.SUCCESS, recv.status());
    assertTrue(recv.timestampNanos() >= posted, recv.timestampNanos() + " vs " + posted);
    lastRecv = recv.timestampNanos();
    return posted;
  }
}
