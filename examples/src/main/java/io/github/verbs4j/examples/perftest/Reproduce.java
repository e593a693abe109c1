package io.github.verbs4j.examples.perftest;

import io.github.verbs4j.examples.common.ValidatesOptions;
import io.github.verbs4j.examples.himeno.HimenoSize;
import io.github.verbs4j.examples.mp.MpConfig;
import io.github.verbs4j.examples.mp.VerbsCommunicator;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Runs a seed paper's experiments in modelled time and prints, for every figure of its section in
 * {@code shared/SEEDS.md}, the paper's value, the model's and their ratio. The ranks are threads of
 * this JVM on the in-JVM fabric ({@link InProcessRanks}); no launcher is needed. Seed 000 (TCA
 * Verbs): the perftest programs on the tca provider, and atomics on the ib provider's ConnectX-3 QDR
 * profile for the paper's comparison, plus a message-passing ping-pong.
 */
@Command(name = "reproduce", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Runs a seed paper's experiments in modelled time and prints paper | modelled | ratio "
        + "for each of its figures.", "Example: ./verbs4j reproduce 000"})
public final class Reproduce implements Callable<Integer>, ValidatesOptions {
  @Spec
  CommandSpec spec;

  @Parameters(index = "0", paramLabel = "SEED",
      description = "The seed: 000 (TCA Verbs over PEACH2) or 001 (the PEACH2 hardware).")
  String seed;

  @Option(names = "--lat-iters", paramLabel = "N", defaultValue = "300",
      description = "Round trips per latency figure (default: ${DEFAULT-VALUE}).")
  int latIters;

  @Option(names = "--bw-iters", paramLabel = "N", defaultValue = "64",
      description = "Messages per bandwidth figure (default: ${DEFAULT-VALUE}).")
  int bwIters;

  @Option(names = "--only", paramLabel = "TEXT",
      description = "Only the figures whose name contains TEXT (case-insensitive).")
  String only;

  @Option(names = "--md", paramLabel = "FILE", description = "Also write the table as Markdown to FILE.")
  Path markdown;

  @Option(names = "--himeno-iters", paramLabel = "N", defaultValue = "3",
      description = "Seed 000: measured Himeno iterations per size and provider (their median is reported), after 2 "
          + "to warm up; 0 skips Himeno (default: ${DEFAULT-VALUE}).")
  int himenoIters;

  private static final Map<String, String> MODELLED = Map.of("verbs.time", "modelled");
  /** Ranks in lockstep on the deterministic fabric: for the message-passing layer's runs. */
  private static final Map<String, String> LOCKSTEP = Map.of("verbs.fabric.mode", "deterministic");
  private static final Map<String, String> IB_QDR = Map.of("verbs.time", "modelled", "verbs.ib.profile", "connectx3-qdr");
  private static final PrintStream NULL = new PrintStream(OutputStream.nullOutputStream());
  private static final long MIB = 1 << 20;
  private static final String GPU = "--use-device-memory";
  /**
   * Seed 000's hosts (HA-PACS/TCA: Ivy Bridge, K20X): PEACH2 reads GPU memory at up to 2.8 GB/s
   * (§2.6, figure 3), where seed 001's Sandy Bridge prototype, the provider's default, saturates
   * at 870 MB/s. The GPU rows run with it; the CPU rows never read device memory.
   */
  private static final Map<String, String> HA_PACS_TCA = Map.of("verbs.time", "modelled",
      "verbs.tca.device-read-mb-s", "2800");
  private static final String IMM = "--write_with_imm";

  /** One figure: what the paper says and how the model measures it. */
  record Figure(String name, String unit, double paper, Measure measure) {}

  /** One measured figure. */
  record Row(Figure figure, double modelled) {
    double ratio() {
      return modelled / figure.paper();
    }
  }

  @FunctionalInterface
  interface Measure {
    double run(Reproduce r) throws Exception;
  }

  @Override
  public void validateOptions() {
    if (!"000".equals(seed) && !"001".equals(seed)) {
      throw new ParameterException(spec.commandLine(), "SEED=" + seed + " must be 000 (TCA Verbs) or 001 (PEACH2)");
    }
    if (latIters < LatencyStats.MIN_ITERATIONS) {
      throw new ParameterException(spec.commandLine(), "--lat-iters=" + latIters + " must be at least "
          + LatencyStats.MIN_ITERATIONS);
    }
    if (himenoIters < 0) {
      throw new ParameterException(spec.commandLine(), "--himeno-iters=" + himenoIters + " must be at least 0");
    }
    if (bwIters < 1) {
      throw new ParameterException(spec.commandLine(), "--bw-iters=" + bwIters + " must be at least 1");
    }
  }

  /** @return seed 000's figures, CPU memory then the GPU columns */
  static List<Figure> seed000() {
    return List.of(
        new Figure("tca Send/Recv latency, 2 B", "µs", 3.5, r -> r.latency("tca", MODELLED, SendLat::new, 2)),
        // seed 000 measured WRITE with immediate (the target takes a CQE); plain write_lat polls memory
        new Figure("tca RDMA Write-with-imm latency, 2 B", "µs", 3.5,
            r -> r.latency("tca", MODELLED, WriteLat::new, 2, IMM)),
        new Figure("tca RDMA Read latency, 8 B", "µs", 6.5, r -> r.latency("tca", MODELLED, ReadLat::new, 8)),
        new Figure("tca atomic (CAS/FAA) latency", "µs", 6.5, r -> r.latency("tca", MODELLED, AtomicLat::new, 8)),
        new Figure("ib (ConnectX-3 QDR) atomic latency", "µs", 1.5, r -> r.latency("ib", IB_QDR, AtomicLat::new, 8)),
        new Figure("tca Send/Recv bandwidth, 1 MiB", "GB/s", 3.5, r -> r.bandwidth("tca", MODELLED, SendBw::new, MIB)),
        new Figure("tca RDMA Write bandwidth, 1 MiB", "GB/s", 3.5, r -> r.bandwidth("tca", MODELLED, WriteBw::new, MIB)),
        new Figure("tca RDMA Read bandwidth, 1 MiB", "GB/s", 3.5, r -> r.bandwidth("tca", MODELLED, ReadBw::new, MIB)),
        new Figure("MPI ping-pong over tca, 8 B", "µs", 3.6, r -> r.pingPong("tca", 8)),
        // the GPU columns: buffers in device memory (perftest --use-device-memory, its --use_cuda)
        new Figure("tca Send/Recv latency, 2 B, GPU", "µs", 4.2,
            r -> r.latency("tca", HA_PACS_TCA, SendLat::new, 2, GPU)),
        new Figure("tca RDMA Write-with-imm latency, 2 B, GPU", "µs", 4.2,
            r -> r.latency("tca", HA_PACS_TCA, WriteLat::new, 2, GPU, IMM)),
        new Figure("tca RDMA Read latency, 8 B, GPU", "µs", 7.2, r -> r.latency("tca", HA_PACS_TCA, ReadLat::new, 8, GPU)),
        new Figure("tca Send/Recv bandwidth, 1 MiB, GPU", "GB/s", 2.7,
            r -> r.bandwidth("tca", HA_PACS_TCA, SendBw::new, MIB, GPU)),
        new Figure("tca RDMA Write bandwidth, 1 MiB, GPU", "GB/s", 2.8,
            r -> r.bandwidth("tca", HA_PACS_TCA, WriteBw::new, MIB, GPU)),
        new Figure("tca RDMA Read bandwidth, 1 MiB, GPU", "GB/s", 2.7,
            r -> r.bandwidth("tca", HA_PACS_TCA, ReadBw::new, MIB, GPU)));
  }

  @Override
  public Integer call() throws Exception {
    validateOptions();
    java.io.PrintWriter out = spec.commandLine().getOut();
    List<Row> rows = new ArrayList<>();
    java.io.PrintWriter err = spec.commandLine().getErr();
    for (Figure f : "001".equals(seed) ? seed001() : seed000()) {
      if (only != null && !f.name().toLowerCase(Locale.ROOT).contains(only.toLowerCase(Locale.ROOT))) {
        continue;
      }
      err.println("reproduce " + seed + ": " + f.name() + " ...");
      err.flush();
      rows.add(new Row(f, f.measure().run(this)));
    }
    String table = "001".equals(seed) ? table001(rows) : table(rows);
    if ("000".equals(seed) && himenoIters > 0
        && (only == null || "himeno".contains(only.toLowerCase(Locale.ROOT)))) {
      err.println("reproduce 000: Himeno, 2 x 2 ranks, Small / Middle / Large, ib, tca and tca with GPU halos ...");
      err.flush();
      table += ReproduceHimeno.table(ReproduceHimeno.run(himenoIters,
          List.of(HimenoSize.SMALL, HimenoSize.MIDDLE, HimenoSize.LARGE)), himenoIters);
    }
    out.print(table);
    out.flush();
    if (markdown != null) {
      try {
        Files.writeString(markdown, table);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException("--md " + markdown + ": " + e.getMessage(), e);
      }
    }
    return 0;
  }

  /**
   * @return seed 001's figures: the PEACH2 board driven directly on the deterministic in-JVM fabric
   *     (measured once, on first use)
   */
  static List<Figure> seed001() {
    List<Figure> f = new ArrayList<>();
    List<io.github.verbs4j.tca.peach2.Seed001Experiments.Figure> measured =
        new ArrayList<>(io.github.verbs4j.tca.peach2.Seed001Experiments.run());
    for (io.github.verbs4j.tca.peach2.Seed001Experiments.Figure m : measured) {
      f.add(new Figure(m.name(), m.unit(), m.paper(), r -> m.modelled()));
    }
    return f;
  }

  /** Seed 001's table. */
  static String table001(List<Row> rows) {
    StringBuilder b = new StringBuilder();
    b.append("Seed 001 (PEACH2 hardware), modelled time; boards on the deterministic in-JVM fabric\n\n");
    rowsOf(b, rows);
    b.append("\nPaper values: SEEDS.md 001 (the descriptor-mode latencies from seed 000 §2.6). Register mode: \"30-40 %"
        + " faster\" (35 shown); two channels through one N port: at most 3.66 GB/s theoretical (3.5 measured for one);"
        + " GPU reads: 870-880 MB/s.\n");
    return b.toString();
  }

  private static void rowsOf(StringBuilder b, List<Row> rows) {
    b.append("| figure | unit | paper | modelled | ratio |\n|---|---|---:|---:|---:|\n");
    for (Row r : rows) {
      b.append(String.format(Locale.ROOT, "| %s | %s | %.2f | %.2f | %.2f |%n", r.figure().name(), r.figure().unit(),
          r.figure().paper(), r.modelled(), r.ratio()));
    }
  }

  /** The table: one row per figure, paper | modelled | ratio. */
  static String table(List<Row> rows) {
    StringBuilder b = new StringBuilder();
    b.append("Seed 000 (TCA Verbs over PEACH2), modelled time; ranks as threads on the in-JVM fabric\n\n");
    rowsOf(b, rows);
    b.append("\nGPU rows: buffers in device memory (perftest --use-device-memory) on seed 000's hosts: PEACH2 reads"
        + " GPU memory at 2.8 GB/s (seed 000 §2.6, PEACH2 alone), the CPU reads it through gdrcopy at"
        + " 0.7 µs a piece (fitted: the Send/Recv GPU latency); the other GPU rows are predicted.\n");
    return b.toString();
  }

  private <P extends PerftestProgram> double latency(String provider, Map<String, String> settings, Supplier<P> program,
      long size, String... extra) throws Exception {
    ResultRow row = perftest(provider, settings, program, size, latIters, extra);
    return row.latency().tTypical();
  }

  private <P extends PerftestProgram> double bandwidth(String provider, Map<String, String> settings,
      Supplier<P> program, long size, String... extra) throws Exception {
    ResultRow row = perftest(provider, settings, program, size, bwIters, extra);
    return row.bandwidth().bwAverage() * MIB / 1e9; // MiB/s -> GB/s, as the paper's
  }

  private <P extends PerftestProgram> ResultRow perftest(String provider, Map<String, String> settings,
      Supplier<P> program, long size, int iters, String... extra) throws Exception {
    List<String> args = new ArrayList<>(List.of("--size", Long.toString(size), "--iters", Integer.toString(iters)));
    args.addAll(List.of(extra));
    return InProcessRanks.run(provider, 2, settings, (ctx, cfg) -> {
      P p = program.get();
      new CommandLine(p).parseArgs(args.toArray(String[]::new));
      p.streams(NULL, NULL);
      return p.run(ctx, cfg, p.validate()).stream().filter(r -> "modelled".equals(r.clock())).findFirst().orElse(null);
    });
  }

  /** Half the round trip of a blocking send/recv ping-pong through the message-passing layer, µs. */
  private double pingPong(String provider, int bytes) throws Exception {
    return InProcessRanks.run(provider, 2, LOCKSTEP, (Context ctx, VerbsConfig cfg) -> {
      try (VerbsCommunicator comm = VerbsCommunicator.open(ctx, MpConfig.defaults())) {
        ByteBuffer buf = comm.allocate(bytes);
        int peer = 1 - comm.rank();
        long start = 0;
        for (int i = -10; i < latIters; i++) {
          if (i == 0) {
            start = comm.nowNanos();
          }
          if (comm.rank() == 0) {
            comm.send(buf.clear(), peer, 1);
            comm.recv(buf.clear(), peer, 1);
          } else {
            comm.recv(buf.clear(), peer, 1);
            comm.send(buf.clear(), peer, 1);
          }
        }
        double us = (comm.nowNanos() - start) / 2.0 / latIters / 1000.0;
        comm.barrier();
        return us;
      }
    });
  }
}
