package io.github.verbs4j.tca.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Atomics are executed once and answered again under duplicates: the target's proxy is held (its
 * QP's monitor, which the proxy takes for every packet of that QP) for longer than the requester's
 * local ACK timeout, so the requester sends its outstanding FETCH_ADDs again; once the proxy runs,
 * it meets each request several times. The counter still ends at exactly the sum, every old value
 * returned is distinct, and the duplicates were counted.
 */
class AtomicDuplicatesTest {
  @Test
  void fetchAndAddsRepeatedByRetransmissionAreExecutedExactlyOnce() throws Exception {
    // timeout 12 = 16.8 ms; retry_cnt 7: holding the target 40 ms forces two or so retransmissions
    try (TwoTcaNodes n = new TwoTcaNodes(12)) {
      ByteBuffer target = n.b.pool.buffer();
      int word = 1 << 20;
      target.putLong(word, 0);
      int rounds = 6;
      int perRound = 4; // max_rd_atomic: all four are outstanding while the target is held
      Set<Long> olds = new HashSet<>();
      for (int r = 0; r < rounds; r++) {
        synchronized (n.b.rc) {
          for (int i = 0; i < perRound; i++) {
            n.a.rc.postSend(new SendWr().wrId(r * perRound + i).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                .sge(n.a.pool, 64L * i, 8).atomic(n.b.pool.address() + word, n.b.pool.rkey(), 1, 0));
          }
          Thread.sleep(40);
        }
        for (int i = 0; i < perRound; i++) {
          TwoTcaNodes.poll(n.a.cq);
        }
        ByteBuffer results = n.a.pool.buffer();
        for (int i = 0; i < perRound; i++) {
          olds.add(results.getLong(64 * i));
        }
      }
      assertEquals((long) rounds * perRound, target.getLong(word), "each FETCH_ADD added once");
      assertEquals(rounds * perRound, olds.size(), "every FETCH_ADD saw a different old value: " + olds);
      double dup = n.registry.get("verbs4j.tca.verbs.duplicates").tag("node", Integer.toString(n.b.lid()))
          .functionCounter().count();
      double resent = n.registry.get("verbs4j.tca.verbs.retransmits").tag("node", Integer.toString(n.a.lid()))
          .functionCounter().count();
      assertTrue(resent > 0, "the requester sent again: " + resent);
      assertTrue(dup > 0, "the target met duplicates: " + dup);
    }
  }
}
