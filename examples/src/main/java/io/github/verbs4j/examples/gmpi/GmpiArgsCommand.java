package io.github.verbs4j.examples.gmpi;

import io.github.verbs4j.examples.common.ValidatesOptions;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Verbs;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code verbs4j gmpi-args}: seed 004 figure 5 — the time for a device request to reach the host
 * and its round trip, over the argument count, with both cost profiles; modelled figures beside
 * the paper's and today's measured values, and the simulator's own wall-clock round trip.
 */
@Command(name = "gmpi-args", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"GMPI study 1: argument count vs time for a device-initiated request (seed 004, figure 5).",
        "One warp of a running kernel stores attributes of 1..31 arguments into the request ring; the host daemon "
            + "answers. Prints modelled time to reach the host and round trip per profile, with the paper's (paper "
            + "profile) or the H200's measured (h200 profile) value and modelled/reference."})
public final class GmpiArgsCommand implements Callable<Integer>, ValidatesOptions {
  /** Arguments the table shows. */
  static final int[] COUNTS = {1, 3, 7, 11, 15, 19, 23, 27, 31};

  @Spec
  CommandSpec spec;

  @Mixin
  ProfileOption profile;

  @Option(names = "--iters", paramLabel = "N", defaultValue = "2000",
      description = "Round trips per argument count for the wall-clock column (default: ${DEFAULT-VALUE}).")
  int iters;

  @Option(names = "--plot", paramLabel = "FILE.png", description = "Also draw the modelled curves and reference points.")
  Path plot;

  private PrintStream out = System.out;

  @Override
  public void validateOptions() {
    if (iters < 1) {
      throw new ParameterException(spec.commandLine(), "--iters=" + iters + " must be at least 1");
    }
    profile.costs(spec);
    if (plot != null && !plot.toString().endsWith(".png")) {
      throw new ParameterException(spec.commandLine(), "--plot=" + plot + " must end in .png");
    }
  }

  static List<AcceleratorCosts> profiles(String name) {
    return "both".equalsIgnoreCase(name) ? List.of(AcceleratorCosts.PAPER, AcceleratorCosts.H200)
        : List.of(AcceleratorCosts.profile(name));
  }

  /**
   * @param costs a profile
   * @param args an argument count
   * @return the reference value in ns for the table (paper: time to reach the host; h200: round
   *     trip), or -1 where the source gives none
   */
  static long reference(AcceleratorCosts costs, int args) {
    if (costs == AcceleratorCosts.PAPER) {
      return args == 7 ? 4_500 : args == 23 ? 11_000 : -1;
    }
    return costs == AcceleratorCosts.H200 && Arrays.asList(1, 7, 15, 23, 31).contains(args) ? 2_300 : -1;
  }

  @Override
  public Integer call() {
    validateOptions();
    try (Context ctx = Verbs.open(ProfileOption.modelledConfig())) {
      run(ctx);
    }
    return 0;
  }

  void run(Context ctx) {
    List<GmpiCharts.Series> series = new ArrayList<>();
    double[] xs = Arrays.stream(COUNTS).asDoubleStream().toArray();
    for (AcceleratorCosts costs : profile.costs(spec)) {
      long[] modelledRoundTrip = new long[COUNTS.length];
      long[] wall = new long[COUNTS.length];
      try (GmpiNode node = GmpiNode.open(ctx, null, null, costs, 1024, 1, Duration.ofSeconds(30))) {
        Gmpi g = node.gmpi();
        long[] values = new long[AttributeRing.MAX_ARGS];
        node.accelerator().launch(1, 1, warp -> {
          for (int c = 0; c < COUNTS.length; c++) {
            long t0 = warp.clock().now();
            g.echo(warp, COUNTS[c], values);
            modelledRoundTrip[c] = warp.clock().now() - t0;
            long w0 = System.nanoTime();
            for (int i = 0; i < iters; i++) {
              g.echo(warp, COUNTS[c], values);
            }
            wall[c] = (System.nanoTime() - w0) / iters;
          }
        }, node.hostClock()).synchronize(node.hostClock(), KernelRun.Sync.STREAM, Duration.ofMinutes(10));
      }
      boolean paper = costs == AcceleratorCosts.PAPER;
      out.printf(Locale.ROOT, "GMPI request vs argument count, profile %s (kernel launch+stream sync %.2f us)%n",
          costs.name(), costs.streamSyncNanos() / 1e3);
      out.printf(Locale.ROOT, "%5s %16s %16s %14s %8s %16s%n", "args", "reach host [us]", "round trip [us]",
          paper ? "paper reach" : "H200 r.trip", "ratio", "wall r.trip [us]");
      for (int c = 0; c < COUNTS.length; c++) {
        long reach = costs.requestNanos(COUNTS[c]);
        long ref = reference(costs, COUNTS[c]);
        long compared = paper ? reach : modelledRoundTrip[c];
        out.printf(Locale.ROOT, "%5d %16.2f %16.2f %14s %8s %16.2f%n", COUNTS[c], reach / 1e3,
            modelledRoundTrip[c] / 1e3, ref < 0 ? "-" : String.format(Locale.ROOT, "%.2f", ref / 1e3),
            ref < 0 ? "-" : String.format(Locale.ROOT, "%.3f", (double) compared / ref), wall[c] / 1e3);
      }
      out.println();
      double[] reach = new double[COUNTS.length];
      double[] trip = new double[COUNTS.length];
      for (int c = 0; c < COUNTS.length; c++) {
        reach[c] = costs.requestNanos(COUNTS[c]) / 1e3;
        trip[c] = modelledRoundTrip[c] / 1e3;
      }
      series.add(new GmpiCharts.Series(costs.name() + " modelled: reach host", xs, reach, false));
      series.add(new GmpiCharts.Series(costs.name() + " modelled: round trip", xs, trip, false));
    }
    out.flush();
    if (plot != null) {
      series.add(new GmpiCharts.Series("paper (fig. 5): reach host", new double[] {7, 23}, new double[] {4.5, 11}, true));
      series.add(new GmpiCharts.Series("H200 measured: round trip", new double[] {1, 7, 15, 23, 31},
          new double[] {2.3, 2.3, 2.3, 2.3, 2.3}, true));
      GmpiCharts.render("GMPI request vs argument count", "arguments", "time [us]", false, series, plot);
    }
  }

  /**
   * Redirects the report (tests).
   *
   * @param stream where to print
   */
  void output(PrintStream stream) {
    this.out = stream;
  }
}
