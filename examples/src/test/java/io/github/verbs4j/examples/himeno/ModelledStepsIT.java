package io.github.verbs4j.examples.himeno;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.launcher.VerbsCommandProcess;
import io.github.verbs4j.examples.mp.MpConfig;
import io.github.verbs4j.examples.mp.VerbsCommunicator;
import io.github.verbs4j.examples.testing.InJvmJob;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * Modelled time across processes that repeats (issue 18): Himeno on 2 × 2 ranks as four JVMs on
 * the netty fabric with {@code verbs.fabric.mode=deterministic} (the processes run their events in
 * modelled-time steps) gives the same modelled figures on every run, and those of the ranks in
 * lockstep on the deterministic in-JVM fabric: exactly on ib, within 1 % on tca (netty models a
 * PEACH2 route's links in the processes along it, the in-JVM fabric in one place).
 */
@Tag("multiprocess")
class ModelledStepsIT {
  private static final Pattern PER_ITERATION = Pattern.compile(
      "  modelled, us/iter\\s+: +(\\S+) +(\\S+) +(\\S+) +(\\S+)");
  private static final String[] HIMENO = {"himeno", "--size", "tiny", "--grid", "2x2", "--iterations", "4",
      "--flop-rate", "3"};

  @TempDir
  Path dir;

  private double[] netty(String provider) throws Exception {
    String[] args = new String[9 + HIMENO.length];
    String[] run = {"run", "-n", "4", "--provider=" + provider, "--timeout", "240s", "-D", "verbs.time=modelled",
        "-Dverbs.fabric.mode=deterministic"};
    System.arraycopy(run, 0, args, 0, run.length);
    System.arraycopy(HIMENO, 0, args, run.length, HIMENO.length);
    VerbsCommandProcess.Result r = VerbsCommandProcess.run(dir, Duration.ofSeconds(300), args);
    assertEquals(0, r.exit(), r.out());
    return perIteration(r.out());
  }

  private static double[] inJvm(String provider) throws Exception {
    ByteArrayOutputStream report = new ByteArrayOutputStream();
    InJvmJob.on(provider, 4, Map.of("verbs.time", "modelled", "verbs.fabric.mode", "deterministic"), ctx -> {
      HimenoCommand cmd = new HimenoCommand();
      new CommandLine(cmd).setCaseInsensitiveEnumValuesAllowed(true).parseArgs(java.util.Arrays.copyOfRange(HIMENO, 1,
          HIMENO.length));
      if (ctx.job().rank() == 0) {
        cmd.output(new PrintStream(report, true, StandardCharsets.UTF_8));
      }
      try (VerbsCommunicator comm = VerbsCommunicator.open(ctx, MpConfig.defaults())) {
        return cmd.run(comm, true, provider);
      }
    });
    return perIteration(report.toString(StandardCharsets.UTF_8));
  }

  private static double[] perIteration(String out) {
    Matcher m = PER_ITERATION.matcher(out);
    assertTrue(m.find(), out);
    double[] v = new double[4];
    for (int i = 0; i < 4; i++) {
      v[i] = Double.parseDouble(m.group(i + 1));
    }
    return v;
  }

  @ParameterizedTest
  @ValueSource(strings = {"ib", "tca"})
  void himenoAcrossProcessesRepeatsAndMatchesTheInJvmLockstep(String provider) throws Exception {
    double[] first = netty(provider);
    double[] second = netty(provider);
    double[] local = inJvm(provider);
    String all = provider + ": total, calc, halo, allreduce µs per iteration: netty " + java.util.Arrays.toString(first)
        + ", again " + java.util.Arrays.toString(second) + ", in-JVM lockstep " + java.util.Arrays.toString(local);
    System.out.println(all);
    assertArrayEquals(first, second, "run to run: " + all);
    for (int i = 0; i < 4; i++) {
      assertEquals(local[i], first[i], Math.max(0.01, local[i] * 0.01), "netty against in-JVM: " + all);
    }
    if (provider.equals("ib")) {
      assertArrayEquals(local, first, "ib, netty against in-JVM: " + all);
    }
    assertTrue(first[2] > 0 && first[3] > 0, "halo and allreduce take time: " + all);
  }
}
