package io.github.verbs4j.examples.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BandwidthStatsTest {
  private static final long MIB = 1 << 20;

  @Test
  void averageUsesFirstPostToLastCompletionAndPeakTheBestWindow() {
    long[] posted = {0, 100, 200, 300};
    long[] completed = new long[4];
    completed[1] = 400; // cq_mod 2: completions of WR 1 and WR 3 are signaled
    completed[3] = 2000;
    BandwidthStats s = BandwidthStats.of(MIB, posted, completed, 2, false);
    // windows: (400-0)/2=200, (2000-0)/4=500, (400-100)/1=300, (2000-100)/3=633, (2000-200)/2=900, 1700
    assertEquals(1e9 / 200, s.bwPeak(), 1e-6);
    assertEquals(4 * 1e9 / 2000, s.bwAverage(), 1e-6);
    assertEquals(2.0, s.msgRateMpps(), 1e-12);
    assertEquals(4, s.iterations());
    assertFalse(s.gbits());
  }

  @Test
  void gigabitsUseTheDecimalDivisor() {
    long[] posted = {0, 0};
    long[] completed = {0, 1_000_000_000L};
    BandwidthStats s = BandwidthStats.of(125_000_000, posted, completed, 1, true);
    // 2 x 125 MB in one second = 2 Gb/s
    assertEquals(2.0, s.bwAverage(), 1e-12);
    assertTrue(s.gbits());
  }
}
