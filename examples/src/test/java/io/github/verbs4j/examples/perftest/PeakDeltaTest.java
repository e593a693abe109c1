package io.github.verbs4j.examples.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PeakDeltaTest {
  /** perftest's print_report_bw: every post against every later signaled completion. */
  private static long everyPair(long[] p, long[] c, int cqMod) {
    long best = Long.MAX_VALUE;
    for (int i = 0; i < p.length; i++) {
      for (int j = (i + cqMod) / cqMod * cqMod - 1; j < p.length; j += cqMod) {
        best = Math.min(best, (c[j] - p[i]) / (j - i + 1));
      }
    }
    return best;
  }

  @Test
  void equalsEveryPairOnRandomRuns() {
    SplittableRandom rnd = new SplittableRandom(17);
    for (int run = 0; run < 3000; run++) {
      int n = 1 + rnd.nextInt(run < 2000 ? 40 : 400);
      int cqMod = 1 + rnd.nextInt(run % 3 == 0 ? 3 : 120);
      long[] p = new long[n];
      long[] c = new long[n];
      long t = rnd.nextLong(1L << 40); // nanoTime-like origin
      int shape = run % 4;
      for (int i = 0; i < n; i++) {
        // bursts, stalls, equal stamps and steady streams
        t += shape == 0 ? rnd.nextInt(3) : shape == 1 ? (rnd.nextInt(10) == 0 ? rnd.nextInt(1_000_000) : rnd.nextInt(50))
            : shape == 2 ? 100 : rnd.nextInt(10_000);
        p[i] = t;
        c[i] = t + rnd.nextInt(shape == 2 ? 5 : 100_000);
      }
      for (int i = 1; i < n; i++) { // completions in order
        c[i] = Math.max(c[i], c[i - 1]);
      }
      assertEquals(everyPair(p, c, cqMod), PeakDelta.of(p, c, cqMod), "run " + run + " n=" + n + " cqMod=" + cqMod);
    }
  }

  @Test
  void completionsBeforeTheirPostsAndHugeStampsStayExact() {
    // a modelled clock may stamp a completion at its post; products beyond 64 bits
    long[] p = {Long.MAX_VALUE / 4, Long.MAX_VALUE / 4 + 5, Long.MAX_VALUE / 2, Long.MAX_VALUE / 2 + 1};
    long[] c = {Long.MAX_VALUE / 4, Long.MAX_VALUE / 2, Long.MAX_VALUE / 2, Long.MAX_VALUE / 2 + 1};
    for (int cqMod = 1; cqMod <= 5; cqMod++) {
      assertEquals(everyPair(p, c, cqMod), PeakDelta.of(p, c, cqMod), "cqMod=" + cqMod);
    }
    assertEquals(Long.MAX_VALUE, PeakDelta.of(new long[3], new long[3], 4)); // no signaled index
  }

  @Test
  void compareIsExactBeyondSixtyFourBits() {
    assertEquals(1, PeakDelta.compare(Long.MAX_VALUE, 3, Long.MAX_VALUE - 1, 3));
    assertEquals(-1, PeakDelta.compare(-Long.MAX_VALUE, 2, 1, 1));
    assertEquals(0, PeakDelta.compare(1L << 40, 1L << 30, 1L << 35, 1L << 35));
  }
}
