package io.github.verbs4j.examples.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code verbs4j run} with real ranks: separate JVMs on the netty fabric with the ib provider and
 * the launcher's embedded coordinator.
 */
@Tag("multiprocess")
class LauncherJobIT {
  private static final Pattern GOSA = Pattern.compile("Gosa\\s+: (\\S+) \\(float bits (0x[0-9a-f]{8})\\)");

  @TempDir
  Path dir;

  private VerbsCommandProcess.Result verbs4j(String... args) throws IOException, InterruptedException {
    return VerbsCommandProcess.run(dir, Duration.ofSeconds(300), args);
  }

  private static String gosaBits(String out) {
    Matcher m = GOSA.matcher(out);
    assertTrue(m.find(), out);
    return m.group(2);
  }

  @Test
  void himenoOnFourRanksGivesTheResidualOfOneProcessOnBothProviders() throws Exception {
    VerbsCommandProcess.Result one = verbs4j("himeno", "--size", "tiny", "--check");
    assertEquals(0, one.exit(), one.out());
    assertTrue(one.out().contains("(identical)"), one.out());
    for (String provider : new String[] {"ib", "tca"}) {
      VerbsCommandProcess.Result four = verbs4j("run", "-n", "4", "--timeout", "240s", "--provider", provider, "himeno", "--size", "tiny");
      assertEquals(0, four.exit(), four.out());
      assertTrue(four.out().contains("[0] Himeno benchmark: size TINY (16 x 16 x 32), 100 iterations, 4 ranks as 2 x 2"),
          four.out());
      assertTrue(four.out().contains("Provider           : " + provider), four.out());
      assertEquals(gosaBits(one.out()), gosaBits(four.out()), provider);
    }
  }

  @Test
  void himenoWithOnDemandLinksAndSharedBuffersGivesTheSameResidualOnBothProviders() throws Exception {
    VerbsCommandProcess.Result serial = verbs4j("himeno", "--size", "tiny", "--iterations", "20", "--check");
    assertEquals(0, serial.exit(), serial.out());
    for (String provider : new String[] {"ib", "tca"}) {
      // gamma 1: every change of neighbour closes a link and opens another, across processes (netty)
      VerbsCommandProcess.Result four = verbs4j("run", "-n", "4", "--timeout", "240s", "--provider", provider, "himeno", "--size", "tiny",
          "--iterations", "20", "--connections", "on_demand", "--gamma", "1", "--shared-receive", "64");
      assertEquals(0, four.exit(), four.out());
      assertTrue(four.out().contains("Provider           : " + provider), four.out());
      assertEquals(gosaBits(serial.out()), gosaBits(four.out()), provider);
    }
    VerbsCommandProcess.Result dc = verbs4j("run", "-n", "4", "--timeout", "240s", "--provider", "ib", "himeno", "--size", "tiny",
        "--iterations", "20", "--connections", "dc", "--shared-receive", "64");
    assertEquals(0, dc.exit(), dc.out());
    assertEquals(gosaBits(serial.out()), gosaBits(dc.out()), "ib, DC");
    // tca has no DC: refused by capability, with the reason
    VerbsCommandProcess.Result noDc = verbs4j("run", "-n", "2", "--timeout", "240s", "--provider", "tca", "himeno", "--size", "tiny",
        "--iterations", "2", "--connections", "dc");
    assertEquals(1, noDc.exit(), noDc.out());
    assertTrue(noDc.out().contains("strategy DC needs a device with the DC capability; tca_peach2 has none"),
        noDc.out());
  }

  @Test
  void sendLatencyRunsOnTwoProcessesAndWritesCsvAndChart() throws Exception {
    VerbsCommandProcess.Result r = verbs4j("run", "-n", "2", "--timeout", "240s", "send_lat", "-n", "100", "--csv", "lat.csv", "--plot",
        "lat.png");
    assertEquals(0, r.exit(), r.out());
    assertTrue(r.out().contains("[0]                     Send Latency Test"), r.out());
    assertTrue(r.out().contains("[0]  #bytes #iterations    t_min[usec]"), r.out());
    assertTrue(r.out().contains("[0]  2       100 "), r.out());
    assertTrue(Files.readAllLines(dir.resolve("lat.csv")).get(1).startsWith("send_lat,ib,ib,netty,wall,2,100,"));
    assertTrue(Files.size(dir.resolve("lat.png")) > 1000);
  }

  @Test
  void theMainJobPrintsBothTablesAndWritesTheChart() throws Exception {
    // the README's main job, with short sweeps
    VerbsCommandProcess.Result r = verbs4j("run", "-n", "2", "--timeout", "240s", "demo", "--lat-max-size", "64", "--bw-max-size",
        "8192", "--lat-iters", "100", "--bw-iters", "200");
    assertEquals(0, r.exit(), r.out());
    assertTrue(r.out().contains("[0]                     Send Latency Test"), r.out());
    assertTrue(r.out().contains("[0]                     RDMA_Write BW Test"), r.out());
    assertTrue(r.out().contains("[0]  64      100 "), r.out());
    assertTrue(r.out().contains("[0]  8192       200 "), r.out());
    List<String> csv = Files.readAllLines(dir.resolve("verbs4j-demo/results.csv"));
    assertEquals(1 + 6 + 13, csv.size(), String.join("\n", csv)); // header, send_lat 2..64, write_bw 2..8192
    assertTrue(csv.get(1).startsWith("send_lat,ib,ib,netty,wall,2,100,"), csv.get(1));
    assertTrue(csv.get(7).startsWith("write_bw,ib,ib,netty,wall,2,200,"), csv.get(7));
    assertTrue(Files.size(dir.resolve("verbs4j-demo/chart.png")) > 1000);
  }

  @Test
  void compareMeasuresTheProviderBesideRawNettyAndRawShm() throws Exception {
    VerbsCommandProcess.Result r = verbs4j("run", "-n", "2", "--timeout", "240s", "compare", "--rounds", "1", "--sizes", "8,4096",
        "--lat-iters", "50", "--bw-iters", "50", "--md", "compare.md");
    assertEquals(0, r.exit(), r.out());
    List<String> md = Files.readAllLines(dir.resolve("compare.md"));
    assertTrue(md.stream().anyMatch(l -> l.matches("\\| 8 \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\|.*")), String.join("\n", md));
    assertTrue(md.stream().anyMatch(l -> l.startsWith("| 4096 | ")), String.join("\n", md));
    assertTrue(r.out().contains("[0] ib (netty fabric, "), r.out());
    assertTrue(md.stream().anyMatch(l -> l.matches("\\| raw shm/agrona \\| 4096 \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\|")),
        String.join("\n", md));
  }

  @Test
  void aRankThatFailsOnTheFabricFailsTheRun() throws Exception {
    // three ranks: send_lat refuses to run on more than two, on every rank
    VerbsCommandProcess.Result r = verbs4j("run", "-n", "3", "--timeout", "240s", "send_lat");
    assertEquals(1, r.exit(), r.out());
    assertTrue(r.out().contains("send_lat runs on exactly 2 ranks, this job has 3"), r.out());
  }
}
