package io.github.verbs4j.examples.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class LatencyStatsTest {
  // Posts at these times (ns) give the samples 10, 20, 10, 60, 10, 5 µs·1000; sorted
  // 5, 10, 10, 10, 20, 60 (thousands of ns); the top two are dropped, leaving n = 4.
  private static final long[] POSTED = {0, 10_000, 30_000, 40_000, 100_000, 110_000, 115_000};

  @Test
  void pingPongTestsReportHalfTheRoundTripWithPerftestTrimming() {
    LatencyStats s = LatencyStats.of(2, POSTED, 2);
    assertEquals(2, s.bytes());
    assertEquals(7, s.iterations());
    assertEquals(2.5, s.tMin(), 1e-12);
    assertEquals(10.0, s.tMax(), 1e-12, "t_max is delta[n]: the smaller of the two dropped samples");
    assertEquals(5.0, s.tTypical(), 1e-12, "even n: integer mean of delta[n/2-1] and delta[n/2]");
    assertEquals(4.375, s.tAvg(), 1e-12);
    // deviations 1.875 and -0.625 (x3) truncate to 1 and 0: sqrt(1/4)
    assertEquals(0.5, s.tStdev(), 1e-12);
    assertEquals(10.0, s.p99(), 1e-12, "delta[ceil(4 * 0.99)] = delta[4]");
    assertEquals(10.0, s.p999(), 1e-12);
  }

  @Test
  void readAndAtomicTestsReportTheFullRoundTrip() {
    LatencyStats s = LatencyStats.of(8, POSTED, 1);
    assertEquals(5.0, s.tMin(), 1e-12);
    assertEquals(20.0, s.tMax(), 1e-12);
    assertEquals(10.0, s.tTypical(), 1e-12);
    assertEquals(8.75, s.tAvg(), 1e-12);
    // deviations 3.75 -> 3 and -1.25 -> -1 (x3): sqrt((9 + 3) / 4)
    assertEquals(Math.sqrt(3), s.tStdev(), 1e-12);
  }

  @Test
  void oddSampleCountTakesTheMiddleSample() {
    // samples 1,2,3,4,5,6,7 (µs): n = 5 after dropping 6 and 7, median delta[2] = 3
    long[] posted = {0, 1000, 3000, 6000, 10_000, 15_000, 21_000, 28_000};
    LatencyStats s = LatencyStats.of(2, posted, 1);
    assertEquals(3.0, s.tTypical(), 1e-12);
    assertEquals(1.0, s.tMin(), 1e-12);
    assertEquals(6.0, s.tMax(), 1e-12);
    assertEquals(3.0, s.tAvg(), 1e-12);
    assertEquals(6.0, s.p99(), 1e-12, "ceil(5 * 0.99) = 5");
  }

  @Test
  void medianOfTwoMiddleSamplesUsesIntegerDivision() {
    assertEquals(15, LatencyStats.median(4, new long[] {10, 15, 16, 20, 99, 99}));
  }

  @Test
  void unsortedPostsAreSortedBeforeTrimming() {
    // samples 50, 1, 1, 1, 1, 40 (µs): the two largest (50 and 40) are the ones dropped
    long[] posted = {0, 50_000, 51_000, 52_000, 53_000, 54_000, 94_000};
    LatencyStats s = LatencyStats.of(2, posted, 1);
    assertEquals(1.0, s.tTypical(), 1e-12);
    assertEquals(1.0, s.tAvg(), 1e-12);
    assertEquals(40.0, s.tMax(), 1e-12);
  }

  @Test
  void fewerThanFiveIterationsAreRejected() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> LatencyStats.of(2, new long[] {0, 1, 2, 3}, 2));
    assertEquals("iterations=4 is below the minimum of 5", e.getMessage());
  }
}
