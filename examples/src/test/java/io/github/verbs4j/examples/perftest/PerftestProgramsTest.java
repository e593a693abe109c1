package io.github.verbs4j.examples.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.testing.InJvmJob;
import io.github.verbs4j.examples.testing.Loopback;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/** Every perftest program end to end on two in-JVM ranks of the {@link Loopback} provider. */
class PerftestProgramsTest {
  @TempDir
  Path dir;

  /** Runs a program on 2 ranks; returns rank 0's report and the rows it measured. */
  private record Outcome(String report, List<ResultRow> rows, String rank1Report) {}

  private static Outcome run(Supplier<PerftestProgram> factory, Map<String, String> config, String... args)
      throws Exception {
    return run(InJvmJob.LOOPBACK, factory, config, args);
  }

  private static Outcome run(InJvmJob job, Supplier<PerftestProgram> factory, Map<String, String> config,
      String... args) throws Exception {
    ByteArrayOutputStream[] outs = {new ByteArrayOutputStream(), new ByteArrayOutputStream()};
    List<List<ResultRow>> rows = job.run(2, ctx -> {
      PerftestProgram p = factory.get();
      new CommandLine(p).parseArgs(args);
      int rank = ctx.job().rank();
      p.streams(new PrintStream(outs[rank], true, StandardCharsets.UTF_8),
          new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
      return p.run(ctx, VerbsConfig.of(config), p.validate());
    });
    return new Outcome(outs[0].toString(StandardCharsets.UTF_8), rows.get(0), outs[1].toString(StandardCharsets.UTF_8));
  }

  static Stream<Arguments> programs() {
    return Stream.of(InJvmJob.values()).flatMap(job -> programList().map(a -> {
      Object[] x = a.get();
      return Arguments.of(job, x[0], x[1], x[2], x[3], x[4]);
    }));
  }

  static Stream<Arguments> programList() {
    return Stream.of(
        Arguments.of("send_lat", (Supplier<PerftestProgram>) SendLat::new, "Send Latency Test", 2L, false),
        Arguments.of("write_lat", (Supplier<PerftestProgram>) WriteLat::new, "RDMA_Write Latency Test", 2L, false),
        Arguments.of("read_lat", (Supplier<PerftestProgram>) ReadLat::new, "RDMA_Read Latency Test", 2L, false),
        Arguments.of("atomic_lat", (Supplier<PerftestProgram>) AtomicLat::new, "Atomic FETCH_AND_ADD Latency Test", 8L,
            false),
        Arguments.of("send_bw", (Supplier<PerftestProgram>) SendBw::new, "Send BW Test", 65536L, true),
        Arguments.of("write_bw", (Supplier<PerftestProgram>) WriteBw::new, "RDMA_Write BW Test", 65536L, true),
        Arguments.of("read_bw", (Supplier<PerftestProgram>) ReadBw::new, "RDMA_Read BW Test", 65536L, true));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("programs")
  void eachProgramPrintsPerftestsReportWithItsDefaultSize(InJvmJob job, String name,
      Supplier<PerftestProgram> factory, String title, long defaultSize, boolean bandwidth) throws Exception {
    Outcome o = run(job, factory, Map.of("verbs.provider", "ib"), "--iters", "50");
    List<String> lines = Arrays.asList(o.report().split("\n"));
    assertEquals(PerftestReport.RESULT_LINE, lines.get(0));
    assertEquals("                    " + title, lines.get(1));
    assertTrue(lines.contains(bandwidth ? PerftestReport.bwHeader(false) : PerftestReport.LAT_HEADER), o.report());
    assertTrue(lines.stream().anyMatch(l -> l.matches(" local address: LID 0x[0-9a-f]{2} QPN 0x[0-9a-f]{4,6} PSN .*")),
        o.report());
    assertTrue(lines.stream().anyMatch(l -> l.matches(" remote address: LID 0x[0-9a-f]{2} QPN 0x[0-9a-f]{4,6} PSN .*")),
        o.report());
    assertEquals(PerftestReport.RESULT_LINE, lines.get(lines.size() - 1));
    assertEquals(1, o.rows().size());
    ResultRow row = o.rows().get(0);
    assertEquals(defaultSize, row.bytes());
    assertEquals(50, row.iterations());
    assertEquals(bandwidth, !row.isLatency());
    String expectedRow = bandwidth ? PerftestReport.bwRow(row.bandwidth()) : PerftestReport.latRow(row.latency());
    assertTrue(lines.contains(expectedRow), o.report());
    assertEquals("", o.rank1Report(), "the server prints nothing");
    if (row.isLatency()) {
      assertTrue(row.latency().tMin() > 0 && row.latency().tMin() <= row.latency().tTypical());
    } else {
      assertTrue(row.bandwidth().bwAverage() > 0);
    }
  }

  @Test
  void writeLatWithImmediateTakesEachWriteFromTheReceiveCq() throws Exception {
    Outcome o = run(InJvmJob.IB, WriteLat::new, Map.of("verbs.provider", "ib"), "-s", "64", "-n", "40",
        "--write_with_imm");
    assertEquals(1, o.rows().size());
    assertEquals(40, o.rows().get(0).iterations());
    assertTrue(o.rows().get(0).latency().tMin() > 0, o.report());
  }

  @Test
  void writeWithImmediateIsRefusedForOtherPrograms() {
    picocli.CommandLine cl = io.github.verbs4j.examples.Main.commandLine();
    java.io.StringWriter err = new java.io.StringWriter();
    cl.setErr(new java.io.PrintWriter(err));
    cl.setOut(new java.io.PrintWriter(new java.io.StringWriter()));
    org.junit.jupiter.api.Assertions.assertNotEquals(0, cl.execute("send_lat", "--write_with_imm"));
    assertTrue(err.toString().contains("--write_with_imm applies to write_lat only, not send_lat"), err.toString());
  }

  @Test
  void aSweepWritesOneRowPerSizeToCsvAndAChart() throws Exception {
    Path csv = dir.resolve("lat.csv");
    Path png = dir.resolve("lat.png");
    Outcome o = run(WriteLat::new, Map.of("verbs.provider", "ib", "verbs.fabric", "local"), "-a", "--max-size", "64",
        "-n", "20", "--csv", csv.toString(), "--plot", png.toString(), "--label", "loop");
    assertEquals(List.of(2L, 4L, 8L, 16L, 32L, 64L), o.rows().stream().map(ResultRow::bytes).toList());
    List<ResultRow> back = ResultCsv.read(csv);
    assertEquals(6, back.size());
    assertEquals("loop", back.get(0).label());
    assertEquals("write_lat", back.get(0).program());
    assertEquals("local", back.get(0).fabric());
    assertTrue(Files.size(png) > 1000);
    assertTrue(o.report().contains(" Results appended to " + csv), o.report());
    assertTrue(o.report().contains(" Chart written to " + png), o.report());
  }

  @Test
  void modelledTimeAddsASecondTableAndModelledRows() throws Exception {
    Outcome o = run(SendBw::new, Map.of("verbs.time", "modelled"), "-n", "40", "-s", "1024");
    assertTrue(o.report().contains("\n Modelled time (verbs.time=modelled):\n" + PerftestReport.bwHeader(false) + "\n"),
        o.report());
    assertEquals(List.of("wall", "modelled"), o.rows().stream().map(ResultRow::clock).toList());
    assertEquals("loop modelled", o.rows().get(1).label());
  }

  @Test
  void aJobOfThreeRanksIsRefused() throws Exception {
    Exception e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
        () -> Loopback.run(3, ctx -> {
          SendLat p = new SendLat();
          new CommandLine(p).parseArgs();
          return p.run(ctx, VerbsConfig.of(Map.of()), p.validate());
        }));
    assertEquals("send_lat runs on exactly 2 ranks, this job has 3: start it with ./verbs4j run -n 2 send_lat",
        e.getMessage());
  }
}
