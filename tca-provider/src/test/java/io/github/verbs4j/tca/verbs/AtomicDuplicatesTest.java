package io.github.verbs4j.tca.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WrOpcode;
import io.github.verbs4j.verbs.spi.runtime.AgentLock;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Atomics are executed once and answered again under duplicates: the target's proxy is held (its
 * agent lock, which every runner of the proxy takes) until the requester's local ACK timeout has
 * sent the outstanding FETCH_ADDs again; once the proxy runs, it meets each request twice. The
 * counter still ends at exactly the sum, every old value returned is distinct, and the duplicates
 * were counted. And an application that synchronizes on its own QP stalls nothing.
 */
class AtomicDuplicatesTest {
  private static final int WORD = 1 << 20;
  private static final int PER_ROUND = 4; // max_rd_atomic: all four are outstanding while the target is held

  @Test
  void fetchAndAddsRepeatedByRetransmissionAreExecutedExactlyOnce() throws Exception {
    // timeout 12 = 16.8 ms; retry_cnt 7
    try (TwoTcaNodes n = new TwoTcaNodes(12)) {
      ByteBuffer target = n.b.pool.buffer();
      target.putLong(WORD, 0);
      int rounds = 6;
      Set<Long> olds = new HashSet<>();
      AgentLock proxy = n.b.tca().proxy().lock();
      for (int r = 0; r < rounds; r++) {
        while (!proxy.tryAcquire()) {
          Thread.onSpinWait();
        }
        double before = resent(n);
        try {
          postFetchAndAdds(n, r);
          // held until the requester went back: however the host schedules the threads, the
          // target then meets each request twice
          long deadline = System.nanoTime() + 20_000_000_000L;
          while (resent(n) == before && System.nanoTime() < deadline) {
            Thread.sleep(2);
          }
        } finally {
          proxy.releaseFully();
        }
        assertTrue(resent(n) > before, "the requester sent round " + r + " again");
        pollInto(n, olds);
      }
      assertEquals((long) rounds * PER_ROUND, target.getLong(WORD), "each FETCH_ADD added once");
      assertEquals(rounds * PER_ROUND, olds.size(), "every FETCH_ADD saw a different old value: " + olds);
      double dup = n.registry.get("verbs4j.tca.verbs.duplicates").tag("node", Integer.toString(n.b.lid()))
          .functionCounter().count();
      assertTrue(dup > 0, "the target met duplicates: " + dup);
    }
  }

  @Test
  void anApplicationHoldingItsQpsMonitorStallsNothing() throws Exception {
    try (TwoTcaNodes n = new TwoTcaNodes(12)) {
      n.b.pool.buffer().putLong(WORD, 0);
      Set<Long> olds = new HashSet<>();
      synchronized (n.b.rc) {
        synchronized (n.a.rc) {
          postFetchAndAdds(n, 0);
          pollInto(n, olds); // the proxies lock private objects, not the application's QPs
        }
      }
      assertEquals(PER_ROUND, n.b.pool.buffer().getLong(WORD));
      assertEquals(0.0, resent(n), "nothing timed out");
    }
  }

  private static void postFetchAndAdds(TwoTcaNodes n, int round) {
    for (int i = 0; i < PER_ROUND; i++) {
      n.a.rc.postSend(new SendWr().wrId(round * PER_ROUND + i).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
          .sge(n.a.pool, 64L * i, 8).atomic(n.b.pool.address() + WORD, n.b.pool.rkey(), 1, 0));
    }
  }

  private static void pollInto(TwoTcaNodes n, Set<Long> olds) {
    for (int i = 0; i < PER_ROUND; i++) {
      TwoTcaNodes.poll(n.a.cq);
    }
    ByteBuffer results = n.a.pool.buffer();
    for (int i = 0; i < PER_ROUND; i++) {
      olds.add(results.getLong(64 * i));
    }
  }

  private static double resent(TwoTcaNodes n) {
    return n.registry.get("verbs4j.tca.verbs.retransmits").tag("node", Integer.toString(n.a.lid()))
        .functionCounter().count();
  }
}
