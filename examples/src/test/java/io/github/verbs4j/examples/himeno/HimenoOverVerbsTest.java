package io.github.verbs4j.examples.himeno;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.mp.MpConfig;
import io.github.verbs4j.examples.mp.VerbsCommunicator;
import io.github.verbs4j.examples.testing.InJvmJob;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import picocli.CommandLine;

/** Himeno on the verbs communicator (loopback double, ib on the local fabric): the serial run's residual. */
class HimenoOverVerbsTest {
  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> jobsAndModes() {
    return java.util.stream.Stream.of(InJvmJob.values()).flatMap(j -> java.util.stream.Stream.of(
        MpConfig.Rendezvous.values()).map(m -> org.junit.jupiter.params.provider.Arguments.of(j, m)));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @org.junit.jupiter.params.provider.MethodSource("jobsAndModes")
  void fourRanksOnVerbsGiveTheSerialResidualAndRankZeroReportsIt(InJvmJob job, MpConfig.Rendezvous mode)
      throws Exception {
    float serial = new SerialHimeno(HimenoSize.TINY).jacobi(20);
    ByteArrayOutputStream report = new ByteArrayOutputStream();
    List<Float> gosa = job.run(4, ctx -> {
      HimenoCommand cmd = new HimenoCommand();
      new CommandLine(cmd).setCaseInsensitiveEnumValuesAllowed(true).parseArgs("--size", "tiny", "--iterations", "20",
          "--eager-limit", "256", "--check");
      if (ctx.job().rank() == 0) {
        cmd.output(new PrintStream(report, true, StandardCharsets.UTF_8));
      }
      try (VerbsCommunicator comm = VerbsCommunicator.open(ctx, MpConfig.defaults().withEagerLimit(256)
          .withRendezvous(mode))) {
        return cmd.run(comm, false, "loop");
      }
    });
    for (float g : gosa) {
      assertEquals(Float.floatToRawIntBits(serial), Float.floatToRawIntBits(g));
    }
    String r = report.toString(StandardCharsets.UTF_8);
    assertTrue(r.startsWith("Himeno benchmark: size TINY (16 x 16 x 32), 20 iterations, 4 ranks as 2 x 2 (i x j)\n"), r);
    assertTrue(r.contains(String.format(java.util.Locale.ROOT, " Gosa               : %e (float bits 0x%08x)", serial,
        Float.floatToRawIntBits(serial))), r);
    assertTrue(r.contains(" Serial reference   : "), r);
    assertTrue(r.contains("(identical)"), r);
    assertTrue(r.contains("  wall (max of ranks): "), r);
  }
}
