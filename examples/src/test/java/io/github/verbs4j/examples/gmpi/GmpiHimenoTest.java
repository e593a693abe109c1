package io.github.verbs4j.examples.gmpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.himeno.ExactSum;
import io.github.verbs4j.examples.himeno.HimenoSize;
import io.github.verbs4j.examples.himeno.SerialHimeno;
import io.github.verbs4j.examples.mp.Communicator;
import io.github.verbs4j.examples.mp.MpConfig;
import io.github.verbs4j.examples.mp.VerbsCommunicator;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * Himeno with kernel-side halo exchange (GMPI) and host-driven: the serial residual bit for bit,
 * and the modelled time per iteration pinned from the named parameters (2 ranks, tiny).
 */
class GmpiHimenoTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(120);
  private static final MpConfig MP = MpConfig.defaults().withTimeout(TIMEOUT);

  @ParameterizedTest
  @ValueSource(strings = {"ib", "tca"})
  void twoRanksGiveTheSerialResidualAndTheModelledTimesOfTheParameters(String provider) throws Exception {
    int iterations = 4;
    List<double[]> results = InJvmRanks.run(provider, 2, ctx -> {
      try (Communicator comm = VerbsCommunicator.open(ctx, MP)) {
        FabricTimes fabric = GmpiHimeno.measureFabric(ctx, comm, HimenoSize.TINY, 2, 1);
        double[] out = new double[10];
        out[8] = fabric.messageNanos(2048); // the i plane: 16 x 32 floats
        out[9] = fabric.messageNanos((ExactSum.LIMBS + 1) * 8); // the allreduce's element
        int i = 0;
        for (AcceleratorCosts costs : List.of(AcceleratorCosts.PAPER, AcceleratorCosts.H200)) {
          GmpiHimeno.Result host = GmpiHimeno.hostDriven(ctx, comm, fabric, costs, HimenoSize.TINY, 2, 1, iterations, TIMEOUT);
          comm.barrier();
          GmpiHimeno.Result gmpi = GmpiHimeno.gmpi(ctx, comm, fabric, costs, HimenoSize.TINY, 2, 1, iterations, TIMEOUT);
          comm.barrier();
          out[i++] = Float.floatToRawIntBits(host.gosa());
          out[i++] = Float.floatToRawIntBits(gmpi.gosa());
          out[i++] = host.modelledNanosPerIteration();
          out[i++] = gmpi.modelledNanosPerIteration();
        }
        return out;
      }
    });
    double serial = Float.floatToRawIntBits(new SerialHimeno(HimenoSize.TINY).jacobi(iterations));
    for (double[] r : results) {
      assertEquals(serial, r[0], "host-driven residual, paper");
      assertEquals(serial, r[1], "GMPI residual, paper");
      assertEquals(serial, r[4], "host-driven residual, h200");
      assertEquals(serial, r[5], "GMPI residual, h200");
    }
    double[] r = results.get(0);
    // a rank's block: 7 x 14 x 30 interior points x 64 B = 188,160 B: 904 ns at 208 GB/s, 39 ns at 4.8 TB/s;
    // the i plane (2048 B) and the allreduce's element take the fabric's measured times, plus, on
    // ib, reading the plane out of device memory at 880 MB/s (2,327 ns)
    long plane = (long) r[8] + ("ib".equals(provider) ? 2_327 : 0);
    long reduce = (long) r[9];
    assertEquals(10_900 + 904 + plane + reduce, r[2], 0.0, "host-driven, paper: launch+sync, step, halo, allreduce");
    assertEquals(8_950 + 39 + plane + reduce, r[6], 0.0, "host-driven, h200");
    // GMPI: step; Irecv and Isend (6 args) round trips; Waitall (3 args) answered once both its
    // request is in and the halo has arrived (the peer's Isend posted 2 six-argument requests and
    // an answer after its step, + plane); Allreduce (5 args), + reduce, answered
    long paper = Math.max(904 + 4_092 + 5_500 + 4_092 + plane, 904 + 2 * (4_092 + 5_500) + 1_656 + 3 * 406)
        + 5_500 + (1_656 + 5 * 406) + reduce + 5_500;
    assertEquals(paper, r[3], 0.0, "GMPI, paper");
    long h200 = Math.max(39 + 3 * 1_150 + plane, 39 + 5 * 1_150) + 1_150 + 1_150 + reduce + 1_150;
    assertEquals(h200, r[7], 0.0, "GMPI, h200");
  }

  @ParameterizedTest
  @ValueSource(strings = {"ib", "tca"})
  void theProgramOnFourRanksChecksTheResidualAgainstTheSerialRun(String provider) throws Exception {
    ByteArrayOutputStream report = new ByteArrayOutputStream();
    List<Float> gosa = InJvmRanks.run(provider, 4, ctx -> {
      GmpiHimenoCommand cmd = new GmpiHimenoCommand();
      new CommandLine(cmd).setCaseInsensitiveEnumValuesAllowed(true).parseArgs("--size", "tiny", "-n", "3",
          "--profile", "paper", "--check");
      try (Communicator comm = VerbsCommunicator.open(ctx, MP)) {
        if (comm.rank() == 0) {
          cmd.output(new PrintStream(report, true, StandardCharsets.UTF_8));
        }
        return cmd.run(ctx, comm, provider + ", fabric local");
      }
    });
    float serial = new SerialHimeno(HimenoSize.TINY).jacobi(3);
    for (float g : gosa) {
      assertEquals(Float.floatToRawIntBits(serial), Float.floatToRawIntBits(g));
    }
    String text = report.toString(StandardCharsets.UTF_8);
    assertTrue(text.startsWith("fabric one-way times on the node clock: ") && text.contains("\nGMPI Himeno vs host-driven, profile paper, size TINY, 4 ranks as 2 x 2, " + provider
        + ", fabric local, 3 iterations\n"), text);
    assertTrue(text.contains("identical in both"), text);
    assertTrue(text.contains(" Serial reference          : ") && text.contains("(identical)"), text);
  }
}
