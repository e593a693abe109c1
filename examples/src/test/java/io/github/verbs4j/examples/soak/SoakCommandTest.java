package io.github.verbs4j.examples.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.Main;
import io.github.verbs4j.examples.mp.MpConfig;
import io.github.verbs4j.examples.mp.VerbsCommunicator;
import io.github.verbs4j.examples.testing.InJvmJob;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code verbs4j soak} for seconds instead of minutes: three ranks exchange checked messages over
 * a fabric that drops 1 % of frames; every message arrives intact, the samples are taken and
 * gathered, and the report says so.
 */
class SoakCommandTest {
  @Test
  void aShortSoakOverALossyFabricHasNoErrorsAndReportsItsSamples() throws Exception {
    List<SoakCommand.Result> rs = InJvmJob.IB.run(3, Map.of("verbs.fault.drop", "0.01"), ctx -> {
      try (VerbsCommunicator comm = VerbsCommunicator.open(ctx, MpConfig.defaults())) {
        return SoakCommand.run(comm, Duration.ofMillis(1500), 0, Duration.ofMillis(500), 1024);
      }
    });
    SoakCommand.Result r = rs.get(0);
    assertEquals(0, r.errors());
    assertTrue(r.messages() >= 3 * 2 * 64, "at least one 64-round block on every rank: " + r.messages());
    assertTrue(r.samples() >= 2, "samples: " + r.samples());
    assertEquals(3, r.heapBytes().length);
    for (int rank = 0; rank < 3; rank++) {
      assertTrue(r.heapBytes()[rank][0] > 0, "rank " + rank + " sampled its heap");
    }
    assertEquals(rs.get(1).messages(), r.messages(), "every rank has the same totals");
    StringWriter out = new StringWriter();
    SoakCommand.report(new PrintWriter(out), r);
    assertTrue(out.toString().contains("0 errors"), out.toString());
    assertEquals(4 + 3, out.toString().lines().count(), out.toString());
  }

  @Test
  void aSoakOfNMessagesPerPairSendsExactlyThatManyAndIgnoresTheDuration() throws Exception {
    List<SoakCommand.Result> rs = InJvmJob.IB.run(3, Map.of(), ctx -> {
      try (VerbsCommunicator comm = VerbsCommunicator.open(ctx, MpConfig.defaults())) {
        return SoakCommand.run(comm, Duration.ofHours(1), 100, Duration.ofHours(1), 256);
      }
    });
    for (SoakCommand.Result r : rs) {
      assertEquals(3 * 2 * 100, r.messages(), "100 messages per ordered pair of 3 ranks");
      assertEquals(0, r.errors());
      assertTrue(r.samples() >= 1, "the last round is sampled: " + r.samples());
    }
  }

  @Test
  void aNegativeMessageCountIsRefusedByName() {
    CommandLine cl = Main.commandLine();
    StringWriter err = new StringWriter();
    cl.setErr(new PrintWriter(err));
    assertNotEquals(0, cl.execute("soak", "--messages", "-1"));
    assertTrue(err.toString().contains("--messages=-1"), err.toString());
  }

  @Test
  void aResultWithAnErrorOrGrowingDescriptorsFails() {
    long[][] heap = {{1, 1}};
    assertFalse(SoakCommand.failed(new SoakCommand.Result(10, 0, 2, heap, new long[][] {{20, 20}})));
    assertTrue(SoakCommand.failed(new SoakCommand.Result(10, 1, 2, heap, new long[][] {{20, 20}})));
    assertTrue(SoakCommand.failed(new SoakCommand.Result(10, 0, 2, heap, new long[][] {{20, 21}})));
  }

  @Test
  void badDurationsAreRefusedByName() {
    CommandLine cl = Main.commandLine();
    StringWriter err = new StringWriter();
    cl.setErr(new PrintWriter(err));
    assertNotEquals(0, cl.execute("soak", "--duration", "ten"));
    assertTrue(err.toString().contains("--duration=ten"), err.toString());
  }
}
