package io.github.verbs4j.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.VerbsException;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code Context.chargeNanos}: the application's own work on the node's modelled clock, so that
 * what it sends afterwards leaves (and arrives) that much later in modelled time.
 */
class ApplicationClockTest {
  private static final Map<String, String> MODELLED = Map.of("verbs.time", "modelled");

  @Test
  void chargedWorkMovesTheModelledClockByExactlyThatMuch() throws Exception {
    try (TwoNodes n = TwoNodes.threaded(MODELLED)) {
      long before = n.a.nowNanos();
      n.a.chargeNanos(250_000);
      assertEquals(before + 250_000, n.a.nowNanos(), "an idle node's clock moves only by the charge");
      n.a.chargeNanos(0);
      assertEquals(before + 250_000, n.a.nowNanos());
    }
  }

  @Test
  void whatIsSentAfterChargedWorkArrivesThatMuchLaterAtThePeer() throws Exception {
    try (TwoNodes n = TwoNodes.threaded(MODELLED)) {
      CompletionQueue cqA = n.a.createCq(16, null, 0);
      CompletionQueue cqB = n.b.createCq(16, null, 0);
      QueuePair qa = n.qp(n.pdA, QpType.RC, cqA, new QpCap(8, 8, 1, 1, 0));
      QueuePair qb = n.qp(n.pdB, QpType.RC, cqB, new QpCap(8, 8, 1, 1, 0));
      n.connect(qa, qb);
      MemoryRegion ma = n.pdA.allocateMemory(4096, TwoNodes.ALL);
      MemoryRegion mb = n.pdB.allocateMemory(4096, TwoNodes.ALL);
      long[] oneWay = new long[2];
      for (int round = 0; round < 2; round++) {
        qb.postRecv(new RecvWr().wrId(round).sge(mb, 0, 64));
        long work = round == 0 ? 0 : 3_000_000; // 3 ms of computation before the second send
        Thread.sleep(30); // wall time in which the fabric looks for its next event: there must be none
        long start = n.a.nowNanos();
        n.a.chargeNanos(work);
        Thread.sleep(30);
        long posted = n.a.nowNanos();
        assertTrue(posted - start - work < 5_000, "the clock moved " + (posted - start - work) + " ns beyond the charge");
        qa.postSend(new SendWr().wrId(round).opcode(WrOpcode.SEND).signaled(true).sge(ma, 0, 64));
        TwoNodes.assertOk(n.pollOne(cqA));
        WorkCompletion recv = n.pollOne(cqB);
        TwoNodes.assertOk(recv);
        assertTrue(recv.timestampNanos() >= posted, "the receive completes after the post: " + recv.timestampNanos()
            + " vs " + posted);
        oneWay[round] = recv.timestampNanos() - posted;
      }
      // the peer's clock followed the frame: the charged 3 ms shows in its receive timestamp, and
      // the one-way time from the post does not depend on the work done before it
      assertEquals(oneWay[0], oneWay[1], 0.1 * oneWay[0] + 200, "one-way " + oneWay[0] + " then " + oneWay[1]);
      assertTrue(n.b.nowNanos() >= 3_000_000, "peer clock " + n.b.nowNanos());
      closeAll(qa, qb, cqA, cqB, ma, mb);
    }
  }

  @Test
  void aNegativeChargeIsRefusedByName() throws Exception {
    try (TwoNodes n = TwoNodes.threaded(MODELLED)) {
      VerbsException e = assertThrows(VerbsException.class, () -> n.a.chargeNanos(-1));
      assertEquals(Errno.EINVAL, e.errno());
      assertTrue(e.getMessage().contains("nanos=-1"), e.getMessage());
    }
    try (TwoNodes n = TwoNodes.threaded()) {
      n.a.chargeNanos(1_000); // wall time: accepted, nothing to move
    }
  }

  private static void closeAll(AutoCloseable... all) throws Exception {
    for (AutoCloseable c : all) {
      c.close();
    }
  }
}
