package io.github.verbs4j.examples.memmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.verbs4j.examples.mp.LinkStats;
import io.github.verbs4j.examples.mp.ThreadCommunicator;
import io.github.verbs4j.verbs.spi.MemoryComponent;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The job's totals combined by allreduce equal those added rank by rank in one JVM. */
class MpMemoryTotalsTest {
  private static MpMemoryTotals addRank(MpMemoryTotals t, int r) {
    return t.add(Map.of(MemoryComponent.QP, 1_000L * (r + 1), MemoryComponent.AH, 128L * r),
        Map.of(MemoryComponent.QP, 1_000L * (r + 1)), new LinkStats(r, r + 2, 10L * r, r, 0, r % 2, 20L * r), r % 3,
        1_000_000L * (5 - r), 100L + r);
  }

  @Test
  void allreducedTotalsEqualTheTotalsAddedRankByRank() throws Exception {
    int n = 5;
    MpMemoryTotals local = new MpMemoryTotals();
    for (int r = 0; r < n; r++) {
      addRank(local, r);
    }
    List<MpMemoryTotals> job = ThreadCommunicator.run(n, comm -> {
      MpMemoryTotals t = addRank(new MpMemoryTotals(), comm.rank());
      t.allreduce(comm);
      return t;
    });
    for (MpMemoryTotals t : job) {
      assertEquals(n, t.ranks());
      for (MemoryComponent c : MemoryComponent.values()) {
        assertEquals(local.mean(c), t.mean(c), c.tag());
        assertEquals(local.min(c), t.min(c), c.tag());
        assertEquals(local.max(c), t.max(c), c.tag());
        assertEquals(local.meanAtLinks(c), t.meanAtLinks(c), c.tag());
      }
      assertEquals(3_000L, t.mean(MemoryComponent.QP)); // (1 + 2 + 3 + 4 + 5) / 5 thousand
      assertEquals(0L, t.min(MemoryComponent.AH));
      assertEquals(512L, t.max(MemoryComponent.AH));
      assertEquals(local.meanTotal(), t.meanTotal());
      assertEquals(2.0, t.meanOpen());
      assertEquals(6, t.peak());
      assertEquals(100, t.opened());
      assertEquals(10, t.evictions());
      assertEquals(local.meanRings(), t.meanRings());
      assertEquals(0.4, t.meanSpares()); // 0 1 0 1 0
      assertEquals(200, t.ringsAllocated());
      assertEquals(5_000_000L, t.elapsedNanos());
      assertEquals(104L, t.heap());
    }
  }
}
