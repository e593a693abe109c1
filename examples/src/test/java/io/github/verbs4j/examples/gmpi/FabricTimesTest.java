package io.github.verbs4j.examples.gmpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.verbs4j.verbs.MemoryKind;
import org.junit.jupiter.api.Test;

/** Interpolation of the fabric's one-way times and refused input (measurement: the end-to-end tests). */
class FabricTimesTest {
  @Test
  void timesBetweenAndBeyondTheMeasuredSizesAreInterpolated() {
    FabricTimes t = FabricTimes.linear(1_000, 1_000); // 1 us, then 1 byte per ns
    assertEquals(1_000, t.messageNanos(1));
    assertEquals(1_000, t.messageNanos(0), "below the smallest size: the smallest's time");
    assertEquals(1_000 + 4_095, t.messageNanos(4_096));
    assertEquals(1_000 + (1L << 31) - 1, t.messageNanos(1L << 31), "above the largest: extrapolated");
  }

  @Test
  void anExchangeTimeReplacesOrJoinsTheMeasuredSizes() {
    FabricTimes t = FabricTimes.linear(1_000, 1_000);
    FabricTimes added = t.withExchange(2_048, 9_000);
    assertEquals(9_000, added.messageNanos(2_048));
    assertEquals(Math.round(1_000 + 8_000.0 * 1_023 / 2_047), added.messageNanos(1_024), "interpolated towards it");
    assertEquals(1_000 + 4_095, t.messageNanos(4_096), "the original is unchanged");
    FabricTimes replaced = added.withExchange(1, 500);
    assertEquals(500, replaced.messageNanos(1));
    assertEquals("1 B: 0.50 us (exchange), 2048 B: 9.00 us (exchange), 1073741824 B: 1073742.82 us",
        replaced.toString());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> t.withExchange(0, 5));
    assertEquals("bytes=0 must be at least 1 and exchangeNanos=5 not negative", e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> FabricTimes.measureExchange(null, null, MemoryKind.HOST, 8, -1, 1, 0));
    assertEquals("iterations=0 must be at least 1", e.getMessage());
  }

  @Test
  void badIterationsAndSizesAreRefusedByName() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> FabricTimes.measure(null, null, MemoryKind.HOST, new int[] {4}, 0));
    assertEquals("iterations=0 must be at least 1", e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> FabricTimes.measure(null, null, MemoryKind.HOST, new int[] {0, 8}, 4));
    assertEquals("sizes=[0, 8] must be at least 1 byte each", e.getMessage());
  }
}
