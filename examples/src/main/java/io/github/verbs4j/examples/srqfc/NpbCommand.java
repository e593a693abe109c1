package io.github.verbs4j.examples.srqfc;

import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.config.VerbsConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code verbs4j srq-fc npb}: seed 002's buffer-requirement study (§4.2) — NPB BT or SP class A
 * replayed as a message trace ({@link NpbTrace}) on P ib contexts of the deterministic in-JVM
 * fabric ({@link NpbReplay}); for each SRQ size the run-time increase over an unlimited SRQ with
 * RNR (and the MVAPICH limit-event refill) and with stop-resend, and the smallest SRQ that keeps
 * the increase within the allowance. In a job of several ranks ({@code verbs4j run -n P srq-fc npb
 * --procs P}) every rank is its own process with its own context ({@link NpbProcess}) and rank 0
 * prints the table.
 */
@Command(name = "npb", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Seed 002 §4.2: NPB BT/SP class A message traces, run-time increase vs SRQ size, rnr against "
        + "stop-resend, in modelled time on the deterministic in-JVM fabric (ib, one SRQ per process); "
        + "under 'verbs4j run -n P' one process a rank instead."})
public final class NpbCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--bench", paramLabel = "bt|sp", defaultValue = "bt", description = "Benchmark (default: ${DEFAULT-VALUE}).")
  String bench;

  @Option(names = "--procs", paramLabel = "P", defaultValue = "100",
      description = "Processes, a square (default: ${DEFAULT-VALUE}; the paper: 100 and 196).")
  int procs;

  @Option(names = "--steps", paramLabel = "N", defaultValue = "10",
      description = "Time steps replayed (default: ${DEFAULT-VALUE}; class A runs 200 (bt) or 400 (sp), every step the same).")
  int steps;

  @Option(names = "--sizes", paramLabel = "N,...", split = ",", defaultValue = "1,2,3,4,5,6,8,10,12,16",
      description = "SRQ sizes in receives of 32 KiB (default: ${DEFAULT-VALUE}).")
  List<Integer> sizes;

  @Option(names = "--unlimited", paramLabel = "N", defaultValue = "256",
      description = "SRQ size of the reference run; it must see no flow-control event (default: ${DEFAULT-VALUE}).")
  int unlimited;

  @Option(names = "--allow-percent", paramLabel = "PCT", defaultValue = "0.1",
      description = "Run-time increase allowed (default: ${DEFAULT-VALUE}, the paper's).")
  double allow;

  @Option(names = "--gflops", paramLabel = "G", defaultValue = "2.0",
      description = "Sustained 10^9 operations a second of one process (default: ${DEFAULT-VALUE}; an assumption, docs).")
  double gflops;

  @Option(names = "--t-poll-ns", paramLabel = "NS", defaultValue = "2180", description = "t_poll (default: ${DEFAULT-VALUE}).")
  long tPoll;

  @Option(names = "--t-int-ns", paramLabel = "NS", defaultValue = "35000", description = "t_int (default: ${DEFAULT-VALUE}).")
  long tInt;

  @Option(names = "--t-setev-ns", paramLabel = "NS", defaultValue = "55900", description = "t_setev (default: ${DEFAULT-VALUE}).")
  long tSetev;

  @Option(names = "--pace", paramLabel = "X", defaultValue = "10",
      description = "One process a rank only: wall nanoseconds a process sleeps per modelled nanosecond of its "
          + "computation (default: ${DEFAULT-VALUE}; larger is closer to the in-JVM replay, and slower).")
  double pace;

  @Option(names = "--flow", paramLabel = "rnr|stop-resend",
      description = "One process a rank only, and required there: the mechanism of this run's table (a rank's "
          + "context has one; run the command once for each).")
  String flow;

  @Option(names = "--chart", paramLabel = "PNG", description = "Write the increase-vs-size chart (XChart PNG) here.")
  Path chart;

  @Option(names = "--from-table", paramLabel = "FILE",
      description = "Draw --chart from the table a previous run printed (saved to FILE) instead of running.")
  Path fromTable;

  /** This rank's configuration (tests set it; otherwise {@link VerbsConfig#load()}). */
  VerbsConfig config;

  /** Runs of this command so far: each one-process-per-rank run gets its own job namespace. */
  private int runs;
  private boolean processes;
  /** One process a rank: the mechanism, this rank's context and its registry. */
  private NpbReplay.Mechanism only;
  private Context ctx;
  private MeterRegistry meters;

  @Override
  public Integer call() throws Exception {
    if (config == null) {
      config = VerbsConfig.load();
    }
    // a job of several ranks (verbs4j run -n P): one process a rank, NpbProcess; else NpbReplay
    processes = config.getLong(VerbsConfig.SIZE) > 1;
    PrintWriter out = processes && config.getLong(VerbsConfig.RANK) != 0 ? new PrintWriter(Writer.nullWriter())
        : spec.commandLine().getOut();
    NpbBench b;
    try {
      b = NpbBench.valueOf(bench.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--bench=" + bench + " must be bt or sp");
    }
    try {
      NpbTrace.cells(procs);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--procs=" + procs + " must be a square of at least 4");
    }
    if (processes) {
      if (flow == null || !flow.matches("rnr|stop-resend")) {
        throw new ParameterException(spec.commandLine(), "--flow=" + flow + " must be rnr or stop-resend under "
            + "'verbs4j run -n P' (one context a rank, one mechanism a context)");
      }
      only = flow.equals("rnr") ? NpbReplay.Mechanism.RNR : NpbReplay.Mechanism.STOP_RESEND;
    }
    if (!(pace > 0)) {
      throw new ParameterException(spec.commandLine(), "--pace=" + pace + " must be positive");
    }
    if (steps < 1 || unlimited < 1 || sizes.stream().anyMatch(n -> n < 1)) {
      throw new ParameterException(spec.commandLine(), "--steps, --unlimited and --sizes must be at least 1");
    }
    if (fromTable != null) {
      if (chart == null) {
        throw new ParameterException(spec.commandLine(), "--from-table needs --chart");
      }
      chart(readTable(fromTable), b);
      out.println("chart: " + chart);
      out.flush();
      return 0;
    }
    try {
      return table(out, b);
    } finally {
      if (ctx != null) {
        ctx.close();
        ctx = null;
      }
    }
  }

  private int table(PrintWriter out, NpbBench b) throws Exception {
    out.printf(Locale.ROOT, "# NPB %s class A, %d processes, %d of %d time steps replayed, %.1f Gop/s a process; "
        + "32 KiB a receive; t_poll %.2f us, t_int %.1f us, t_setev %.1f us; %s%n", b.label(), procs, steps, b.iterations,
        gflops, tPoll / 1e3, tInt / 1e3, tSetev / 1e3, processes ? "one process a rank, fabric "
            + config.get(VerbsConfig.FABRIC) + ", modelled time" : "one deterministic in-JVM fabric");
    NpbReplay.Result ref = run(b, unlimited, NpbReplay.Mechanism.STOP_RESEND);
    NpbReplay.Result refRnr = run(b, unlimited, NpbReplay.Mechanism.RNR);
    NpbReplay.Result shown = ref == NONE ? refRnr : ref;
    out.printf(Locale.ROOT, "# unlimited (SRQ %d): %.1f us modelled (rnr %.1f us), %d SENDs; events: %d stops, %d RNR NAKs, "
        + "%d limit events; wall %.1f s; %s: heap %d MiB, resident %d MiB%n", unlimited,
        ref.runNanos() / 1e3, refRnr.runNanos() / 1e3, shown.pieces(), ref.stops() + refRnr.stops(),
        ref.rnrNaks() + refRnr.rnrNaks(), refRnr.limitEvents(), shown.wallNanos() / 1e9,
        processes ? "rank 0's process" : procs + " contexts open", shown.heapBytes() >> 20,
        shown.residentBytes() >> 20);
    out.printf(Locale.ROOT, "%6s %8s %12s %9s %9s %12s %9s %7s%n", "srq", "KiB", "rnr incr %", "rnr naks", "limit ev",
        "stop incr %", "stops", "wall s");
    List<double[]> rows = new ArrayList<>();
    for (int n : sizes) {
      NpbReplay.Result rnr = run(b, n, NpbReplay.Mechanism.RNR);
      NpbReplay.Result stop = run(b, n, NpbReplay.Mechanism.STOP_RESEND);
      double ir = increase(rnr, refRnr);
      double is = increase(stop, ref);
      rows.add(new double[] {n, ir, is});
      out.printf(Locale.ROOT, "%6d %8d %12.4f %9d %9d %12.4f %9d %7.1f%n", n, n * NpbReplay.BUFFER / 1024, ir, rnr.rnrNaks(),
          rnr.limitEvents(), is, stop.stops(), (rnr.wallNanos() + stop.wallNanos()) / 1e9);
      out.flush();
    }
    int needRnr = smallest(rows, 1);
    int needStop = smallest(rows, 2);
    if (needRnr > 0 && needStop > 0) {
      out.printf(Locale.ROOT, "smallest SRQ with increase <= %.2f %%: rnr %d, stop-resend %d receives -> %.0f %% fewer "
          + "(paper, 196 processes: bt 83 %%, sp 86 %%)%n", allow, needRnr, needStop, 100.0 * (needRnr - needStop) / needRnr);
    } else {
      out.printf(Locale.ROOT, "smallest SRQ with increase <= %.2f %%: rnr %s, stop-resend %s (widen --sizes)%n", allow,
          needRnr > 0 ? needRnr : "none of the sizes", needStop > 0 ? needStop : "none of the sizes");
    }
    if (chart != null) {
      chart(rows, b);
      out.println("chart: " + chart);
    }
    out.flush();
    return 0;
  }

  /** Increases at or below this are drawn at it (the y axis is logarithmic). */
  private static final double FLOOR = 1e-4;

  /** The figures of a mechanism not run (one process a rank runs one): its increases print NaN. */
  private static final NpbReplay.Result NONE = new NpbReplay.Result(0, 0, 0, 0, 0, 0, 0, 0);

  /** @return the run's figures; with one process a rank, {@link #NONE} for the other mechanism */
  private NpbReplay.Result run(NpbBench b, int depth, NpbReplay.Mechanism m) throws Exception {
    NpbReplay.Setup s = new NpbReplay.Setup(b, procs, steps, depth, m, gflops, tPoll, tInt, tSetev);
    if (!processes) {
      return NpbReplay.run(s);
    }
    if (m != only) {
      return NONE;
    }
    if (ctx == null) {
      meters = new SimpleMeterRegistry();
      ctx = NpbProcess.open(config, m, tPoll, meters);
    }
    return NpbProcess.run(s, ctx, meters, "srq-fc-npb/" + (runs++), pace);
  }

  private static double increase(NpbReplay.Result r, NpbReplay.Result ref) {
    if (r == NONE || ref == NONE) {
      return Double.NaN;
    }
    return 100.0 * (r.runNanos() - ref.runNanos()) / ref.runNanos();
  }

  /** The smallest size whose increase, and every larger size's, is within the allowance; -1 if none. */
  private int smallest(List<double[]> rows, int col) {
    List<double[]> sorted = new ArrayList<>(rows);
    sorted.sort((x, y) -> Double.compare(x[0], y[0]));
    int best = -1;
    for (int i = sorted.size() - 1; i >= 0 && sorted.get(i)[col] <= allow; i--) {
      best = (int) sorted.get(i)[0];
    }
    return best;
  }

  /** @return size, rnr increase, stop-resend increase of each row of a printed table */
  private static List<double[]> readTable(Path file) throws IOException {
    List<double[]> rows = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      String[] c = line.trim().split("\\s+");
      if (c.length == 8 && c[0].matches("\\d+")) {
        rows.add(new double[] {Double.parseDouble(c[0]), Double.parseDouble(c[2]), Double.parseDouble(c[5])});
      }
    }
    if (rows.isEmpty()) {
      throw new IOException(file + " holds no table rows of verbs4j srq-fc npb");
    }
    return rows;
  }

  private void chart(List<double[]> rows, NpbBench b) throws IOException {
    XYChart c = new XYChartBuilder().width(800).height(500)
        .title(String.format(Locale.ROOT, "NPB %s class A, %d processes: run-time increase vs SRQ size", b.label(), procs))
        .xAxisTitle("SRQ size (receives of 32 KiB)").yAxisTitle("run-time increase (%), at most 0.0001 drawn as 0.0001")
        .build();
    c.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
    c.getStyler().setYAxisLogarithmic(true);
    double[] x = rows.stream().mapToDouble(r -> r[0]).toArray();
    c.addSeries("rnr + limit-event refill", x, rows.stream().mapToDouble(r -> Math.max(FLOOR, r[1])).toArray());
    c.addSeries("stop-resend", x, rows.stream().mapToDouble(r -> Math.max(FLOOR, r[2])).toArray());
    c.addSeries(String.format(Locale.ROOT, "%.1f %% allowance", allow), new double[] {x[0], x[x.length - 1]},
        new double[] {allow, allow});
    Path dir = chart.toAbsolutePath().getParent();
    if (dir != null) {
      Files.createDirectories(dir);
    }
    BitmapEncoder.saveBitmap(c, chart.toString().replaceFirst("\\.png$", ""), BitmapEncoder.BitmapFormat.PNG);
  }
}
