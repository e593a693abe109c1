package io.github.verbs4j.examples.memmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.Main;
import io.github.verbs4j.examples.launcher.VerbsCommandProcess;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code verbs4j run -n 4 mp-memory}: each JVM process one rank on the netty fabric, rank 0
 * printing the ranks' combined meters; the bytes per rank are those of the same ranks as threads
 * of one JVM on the local fabric (the accounting is per rank, not per fabric).
 */
@Tag("multiprocess")
class MpMemoryNettyIT {
  private static final Pattern TOTAL = Pattern.compile(
      "(?m)^(?:\\[0\\] )?total\\s+([0-9,]+)\\s+([0-9,]+)\\s+([0-9.]+)\\s+([0-9,]+)\\s+([0-9.]+)$");

  @TempDir
  Path dir;

  private String job(String... args) throws Exception {
    VerbsCommandProcess.Result r = VerbsCommandProcess.run(dir, Duration.ofSeconds(300), args);
    assertEquals(0, r.exit(), r.out());
    return r.out();
  }

  private static String inJvm(String... args) {
    picocli.CommandLine cl = Main.commandLine();
    StringWriter out = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(new StringWriter()));
    assertEquals(0, cl.execute(args), out.toString());
    return out.toString();
  }

  private static Matcher total(String out) {
    Matcher m = TOTAL.matcher(out);
    assertTrue(m.find(), out);
    return m;
  }

  @ParameterizedTest
  @ValueSource(strings = {"dc", "baseline"})
  void fourProcessesHoldPerRankWhatFourInJvmRanksHold(String strategy) throws Exception {
    String out = job("run", "-n", "4", "--timeout", "240s", "mp-memory", "--connections", strategy,
        "--shared-receive", "dc".equals(strategy) ? "64" : "0");
    assertTrue(out.contains("[0] mp-memory: 4 ranks on ib (netty fabric, one process per rank, wall time), "
        + strategy), out);
    Matcher job = total(out);
    assertEquals("1.000", job.group(3), out);
    assertEquals("1.000", job.group(5), out);
    Matcher local = total(inJvm("mp-memory", "--ranks", "4", "--connections", strategy, "--shared-receive",
        "dc".equals(strategy) ? "64" : "0"));
    assertEquals(local.group(1), job.group(1), "bytes per rank, in one JVM and one process per rank\n" + out);
  }

  @Test
  void twoNodesOfTwoProcessesShareTheirNodesRingsAcrossJvms() throws Exception {
    String out = job("run", "-n", "4", "--timeout", "240s", "mp-memory", "--connections", "shared", "--ppn", "2",
        "--rc-links", "2", "--switch-threshold", "4", "--rounds", "6", "--shared-receive", "64");
    Matcher job = total(out);
    assertEquals("1.000", job.group(5), "exact at the RC links and rings each rank held\n" + out);
    assertEquals(1.0, Double.parseDouble(job.group(3)), 0.15, "within 15 % of every source heavy\n" + out);
    Matcher rings = Pattern.compile("rings given for RDMA over DC per rank: ([0-9.]+)").matcher(out);
    assertTrue(rings.find() && Double.parseDouble(rings.group(1)) > 0,
        "beyond the nodes' cap sources write into rings of the node's file, mapped by two JVMs\n" + out);
    assertTrue(out.contains("[0] per node of 2 ranks"), out);
  }
}
