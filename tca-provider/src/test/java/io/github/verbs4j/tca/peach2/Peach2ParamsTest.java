package io.github.verbs4j.tca.peach2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class Peach2ParamsTest {
  private final Peach2Params p = Peach2Params.defaults();

  @Test
  void theoreticalPeakIsTheSeed001FormulaFor256ByteTlps() {
    // 4 GB/s × 256 / (256 + 16 + 2 + 4 + 1 + 1) = 3.66 GB/s (seed 001 §4.1.1)
    assertEquals(4000.0 * 256 / 280, p.theoreticalMbs(), 1e-9);
    assertEquals(3657, Math.round(p.theoreticalMbs()));
    // sustained: 3.5 GB/s = 96 % of it (seed 001 §4.2.3)
    assertEquals(3496, p.linkMbs());
    // local DMA: 3.3 GB/s = 90 % (seed 001 §4.1.1)
    assertEquals(3291, p.localDmaMbs());
  }

  @Test
  void derivedFixedCostsReproduceTheMeasuredMinimumsOverOneHop() {
    assertEquals(900, p.pioIssueNs() + p.pathNs(1, 4));
    assertEquals(2000, p.dmaFixedNs(DescriptorMode.INTERNAL) + p.pathNs(1, 4));
    assertEquals(2200, p.dmaFixedNs(DescriptorMode.HOST) + p.pathNs(1, 4));
    assertEquals(1571, p.dmaFixedNs(DescriptorMode.REGISTER) + p.pathNs(1, 4));
    assertEquals(200, p.hostDescriptorFetchNs());
  }

  @Test
  void registerModeIsThirtyToFortyPercentFasterUpTo2KiB() {
    for (int n = 4; n <= 2048; n *= 2) {
      double host = p.dmaFixedNs(DescriptorMode.HOST) + p.pathNs(1, n);
      double reg = p.dmaFixedNs(DescriptorMode.REGISTER) + p.pathNs(1, n);
      double gain = host / reg;
      assertTrue(gain >= 1.28 && gain <= 1.41, "n=" + n + " gain=" + gain);
    }
  }

  @Test
  void deviceReadsAreLimitedTo870MBs() {
    long n = 1 << 20;
    double seconds = (p.deviceReadExcessNs(n) + n * 1000.0 / p.linkMbs()) / 1e9;
    assertEquals(870, n / seconds / 1e6, 2.0);
  }

  @Test
  void inconsistentValuesAreRejectedNamingTheField() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> p.toBuilder().dmaHostLatencyNs(1000).build());
    assertTrue(e.getMessage().contains("dmaHostLatencyNs=1000"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> p.toBuilder().pioLatencyNs(100).build());
    assertTrue(e.getMessage().contains("pio=100"), e.getMessage());
  }
}
