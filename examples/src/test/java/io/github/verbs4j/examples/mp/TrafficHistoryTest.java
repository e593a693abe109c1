package io.github.verbs4j.examples.mp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Seed 003 §3.5's traffic history: windows on the time axis by eq. (12), counts dropping out as time passes. */
class TrafficHistoryTest {
  @Test
  void windowsFollowEquation12() {
    assertEquals(1024, TrafficHistory.entries(2));
    assertEquals(1024, TrafficHistory.entries(1 << 13));
    assertEquals(512, TrafficHistory.entries((1 << 13) + 1));
    assertEquals(512, TrafficHistory.entries(1 << 14));
    assertEquals(8, TrafficHistory.entries(1 << 20));
    // at most 64 MiB per process above 2^13 processes: 8 B x windows x p
    assertEquals(64L << 20, 8L * TrafficHistory.entries(1 << 20) * (1 << 20));
    assertEquals(8L * 1024 * 64 + 16 + 8 * 64 + 16, TrafficHistory.bytes(64));
  }

  @Test
  void countsLeaveTheSumWhenTheirWindowFallsOutOfTheHistory() {
    long w = 1_000;
    TrafficHistory h = new TrafficHistory(3, w, 0);
    int entries = h.entries();
    assertEquals(1, h.record(1, 0));
    assertEquals(2, h.record(1, w - 1));
    assertEquals(3, h.record(1, w)); // the next window
    assertEquals(1, h.record(2, 5 * w));
    assertEquals(0, h.sum(0, 5 * w));
    assertEquals(3, h.sum(1, (entries - 1) * w + w - 1)); // window 0 is still the oldest kept
    assertEquals(1, h.sum(1, entries * w)); // window 0 dropped: its two messages leave the sum
    assertEquals(0, h.sum(1, (entries + 1) * w));
    assertEquals(1, h.sum(2, (entries + 1) * w));
    assertEquals(0, h.sum(2, 100L * entries * w)); // a long silence clears everything
    assertEquals(1, h.record(2, 100L * entries * w));
  }
}
