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
  void badIterationsAndSizesAreRefusedByName() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> FabricTimes.measure(null, null, MemoryKind.HOST, new int[] {4}, 0));
    assertEquals("iterations=0 must be at least 1", e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> FabricTimes.measure(null, null, MemoryKind.HOST, new int[] {0, 8}, 4));
    assertEquals("sizes=[0, 8] must be at least 1 byte each", e.getMessage());
  }
}
