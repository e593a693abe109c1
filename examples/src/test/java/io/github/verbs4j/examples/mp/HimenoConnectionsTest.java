package io.github.verbs4j.examples.mp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.verbs4j.examples.himeno.HimenoRuns;
import io.github.verbs4j.examples.himeno.HimenoSize;
import io.github.verbs4j.examples.himeno.SerialHimeno;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Himeno on six ranks (3 x 2) with every connection strategy on ib and tca: the serial run's
 * residual, bit for bit (on demand with γ = 1: every halo exchange and allreduce step changes link;
 * hybrid: RC after 2 messages from a source, 1 RC link per rank; shared: nodes of 2 ranks sharing 2 RC
 * links and a file of rings).
 */
class HimenoConnectionsTest {
  @ParameterizedTest
  @EnumSource(value = MpJob.class, names = {"IB_BASELINE", "IB_ON_DEMAND", "IB_SHARED", "IB_DC", "TCA_BASELINE",
      "TCA_ON_DEMAND", "TCA_SHARED", "TCA_DC", "IB_HYBRID", "TCA_HYBRID", "IB_NODE_SHARED", "TCA_NODE_SHARED"})
  void sixRanksGiveTheSerialResidual(MpJob job) throws Exception {
    float serial = new SerialHimeno(HimenoSize.TINY).jacobi(10);
    List<Float> gosa = job.run(6, ctx -> {
      try (VerbsCommunicator comm = job.open(ctx, MpConfig.defaults().withEagerLimit(512).withTimeout(java.time.Duration.ofSeconds(60)))) {
        return HimenoRuns.tiny(comm, 10, "3x2");
      }
    });
    for (float g : gosa) {
      assertEquals(Float.floatToRawIntBits(serial), Float.floatToRawIntBits(g));
    }
  }
}
