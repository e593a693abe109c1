package io.github.verbs4j.examples.himeno;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.mp.MpConfig;
import io.github.verbs4j.examples.mp.VerbsCommunicator;
import io.github.verbs4j.examples.testing.InJvmJob;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Himeno in modelled time (issue 18): the computation is charged from the per-rank flop rate
 * ({@code --flop-rate}), so the modelled total is calculation + halo exchange + allreduce.
 */
class HimenoModelledTimeTest {
  private static final Pattern MODELLED = Pattern.compile(
      "  modelled\\s+: +(\\S+) +(\\S+) +(\\S+) +(\\S+)");

  @Test
  void theModelledTotalIncludesTheComputationAtTheFlopRate() throws Exception {
    ByteArrayOutputStream report = new ByteArrayOutputStream();
    InJvmJob.IB.run(4, Map.of("verbs.time", "modelled"), ctx -> {
      HimenoCommand cmd = new HimenoCommand();
      new CommandLine(cmd).setCaseInsensitiveEnumValuesAllowed(true).parseArgs("--size", "tiny", "--iterations", "20",
          "--grid", "2x2", "--flop-rate", "2");
      if (ctx.job().rank() == 0) {
        cmd.output(new PrintStream(report, true, StandardCharsets.UTF_8));
      }
      try (VerbsCommunicator comm = VerbsCommunicator.open(ctx, MpConfig.defaults())) {
        return cmd.run(comm, true, "ib");
      }
    });
    String r = report.toString(StandardCharsets.UTF_8);
    Matcher m = MODELLED.matcher(r);
    assertTrue(m.find(), r);
    double total = Double.parseDouble(m.group(1));
    double calc = Double.parseDouble(m.group(2));
    double halo = Double.parseDouble(m.group(3));
    double reduce = Double.parseDouble(m.group(4));
    long points = 0;
    for (int rank = 0; rank < 4; rank++) {
      Decomposition d = Decomposition.of(HimenoSize.TINY, 2, 2, rank);
      points = Math.max(points, (long) (d.imax() - 2) * (d.jmax() - 2) * (d.kmax() - 2));
    }
    // points x 34 flops / 2 GFLOP/s per iteration, 20 iterations (the report rounds to 0.1 ms)
    assertEquals(points * 34 / 2.0 * 20 / 1e9, calc, 0.00005, r);
    assertTrue(halo > 0 && reduce > 0, r);
    // total is the largest rank's sum; each column is the largest of the ranks, from different ranks
    // now that computation is on the clock (a rank with fewer points waits in the halo exchange)
    assertTrue(total > calc && total <= calc + halo + reduce + 0.0003, "total within the columns: " + r);
  }

  @Test
  void aFlopRateThatIsNotPositiveIsRefused() {
    HimenoCommand cmd = new HimenoCommand();
    new CommandLine(cmd).parseArgs("--flop-rate", "0");
    CommandLine.ParameterException e = assertThrows(CommandLine.ParameterException.class, cmd::validateOptions);
    assertTrue(e.getMessage().toLowerCase(Locale.ROOT).contains("--flop-rate=0.0"), e.getMessage());
  }
}
