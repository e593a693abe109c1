package io.github.verbs4j.examples.gmpi;

import io.github.verbs4j.examples.common.DurationConverter;
import io.github.verbs4j.examples.common.ValidatesOptions;
import io.github.verbs4j.examples.mp.Communicator;
import io.github.verbs4j.examples.mp.MpConfig;
import io.github.verbs4j.examples.mp.VerbsCommunicator;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.config.VerbsConfig;
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
 * {@code verbs4j gmpi-pingpong}: seed 004 figure 7 — ping-pong between ranks 0 and 1, GMPI against
 * the host-driven baseline, over message size and both cost profiles. Rank 0 prints modelled
 * one-way latency of each, GMPI's performance relative to the baseline (host-driven time / GMPI
 * time) beside the paper's, and wall-clock latencies.
 */
@Command(name = "gmpi-pingpong", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"GMPI study 2: ping-pong, GMPI (requests from a running kernel) vs host-driven (kernel ends, "
        + "host communicates, kernel relaunched), over message size (seed 004, figure 7).",
        "Run on 2 ranks: verbs4j run -n 2 gmpi-pingpong. Every byte received is checked."})
public final class GmpiPingPongCommand implements Callable<Integer>, ValidatesOptions {
  @Spec
  CommandSpec spec;

  @Option(names = "--sizes", paramLabel = "BYTES", split = ",",
      defaultValue = "4,16,256,2048,8192,65536,131072,1048576,4194304",
      description = "Message sizes (default: ${DEFAULT-VALUE}).")
  int[] sizes;

  @Option(names = "--iters", paramLabel = "N", defaultValue = "50",
      description = "Iterations per size and variant, at least 2 (default: ${DEFAULT-VALUE}).")
  int iters;

  @Mixin
  ProfileOption profile;

  @Option(names = "--mp-timeout", paramLabel = "DURATION", defaultValue = "120s", converter = DurationConverter.class,
      description = "Longest wait for one message or GMPI call (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Option(names = "--plot", paramLabel = "FILE.png",
      description = "Rank 0 also draws GMPI/host-driven performance over size, with the paper's values.")
  Path plot;

  private PrintStream out = System.out;

  @Override
  public void validateOptions() {
    if (iters < 2) {
      throw new ParameterException(spec.commandLine(), "--iters=" + iters + " must be at least 2");
    }
    for (int s : sizes) {
      if (s < 1 || s > (64 << 20)) {
        throw new ParameterException(spec.commandLine(), "--sizes: " + s + " must be between 1 and 67108864");
      }
    }
    profile.costs(spec);
    if (plot != null && !plot.toString().endsWith(".png")) {
      throw new ParameterException(spec.commandLine(), "--plot=" + plot + " must end in .png");
    }
  }

  /**
   * @param bytes a message size
   * @return the paper's GMPI/host-driven performance ratio at that size, or -1 where it gives none
   */
  static double paperRatio(int bytes) {
    return switch (bytes) {
      case 4 -> 0.7;
      case 16 -> 0.8;
      case 2048 -> 0.9;
      default -> bytes >= 8192 && bytes <= 65536 ? 1.0 : -1;
    };
  }

  @Override
  public Integer call() {
    validateOptions();
    VerbsConfig config = ProfileOption.modelledConfig();
    try (Context ctx = Verbs.open(config);
        Communicator comm = VerbsCommunicator.open(ctx, MpConfig.defaults().withTimeout(timeout))) {
      if (comm.size() < 2) {
        throw new IllegalStateException("gmpi-pingpong needs 2 ranks, the job has " + comm.size()
            + " (verbs4j run -n 2 gmpi-pingpong)");
      }
      run(ctx, comm, ctx.device().provider() + ", fabric " + config.get(VerbsConfig.FABRIC));
    }
    return 0;
  }

  void run(Context ctx, Communicator comm, String where) {
    List<GmpiCharts.Series> series = new ArrayList<>();
    double[] xs = Arrays.stream(sizes).asDoubleStream().toArray();
    FabricTimes fabric = FabricTimes.measure(ctx, comm, DeviceMemory.kindOf(ctx), sizes, 4);
    if (comm.rank() == 0) {
      out.printf(Locale.ROOT, "fabric one-way times on the node clock: %s%n", fabric);
    }
    for (AcceleratorCosts costs : profile.costs(spec)) {
      double[] ratios = new double[sizes.length];
      int index = 0;
      if (comm.rank() == 0) {
        out.printf(Locale.ROOT, "GMPI ping-pong vs host-driven, profile %s, %s, %d iterations; one-way latency [us]%n",
            costs.name(), where, iters);
        out.printf(Locale.ROOT, "%9s %12s %12s %9s %7s %8s %12s %12s%n", "bytes", "host-driven", "GMPI",
            "modelled", "paper", "diff", "wall host", "wall GMPI");
      }
      for (int s : sizes) {
        int at = index++;
        comm.barrier();
        PingPong.Result host = PingPong.hostDriven(ctx, comm, fabric, costs, s, iters, timeout);
        comm.barrier();
        PingPong.Result gmpi = PingPong.gmpi(ctx, comm, fabric, costs, s, iters, timeout);
        comm.barrier();
        if (comm.rank() == 0) {
          double ratio = host.modelledHalfRoundTripNanos() / gmpi.modelledHalfRoundTripNanos();
          double paper = paperRatio(s);
          ratios[at] = ratio;
          out.printf(Locale.ROOT, "%9d %12.2f %12.2f %9.3f %7s %8s %12.2f %12.2f%n", s,
              host.modelledHalfRoundTripNanos() / 1e3, gmpi.modelledHalfRoundTripNanos() / 1e3, ratio,
              paper < 0 ? "-" : String.format(Locale.ROOT, "%.2f", paper),
              paper < 0 ? "-" : String.format(Locale.ROOT, "%+.0f pt", (ratio - paper) * 100),
              host.wallHalfRoundTripNanos() / 1e3, gmpi.wallHalfRoundTripNanos() / 1e3);
        }
      }
      if (comm.rank() == 0) {
        out.println();
      }
      series.add(new GmpiCharts.Series(costs.name() + " modelled", xs, ratios, false));
    }
    out.flush();
    if (plot != null && comm.rank() == 0) {
      series.add(new GmpiCharts.Series("paper (fig. 7)", new double[] {4, 16, 2048, 8192, 65536},
          new double[] {0.7, 0.8, 0.9, 1.0, 1.0}, true));
      GmpiCharts.render("Ping-pong: GMPI performance relative to host-driven", "message size [bytes]",
          "host-driven time / GMPI time", true, series, plot);
    }
  }

  /**
   * Redirects the report (tests).
   *
   * @param stream where rank 0 prints
   */
  void output(PrintStream stream) {
    this.out = stream;
  }

  /** @return the sizes (tests) */
  List<Integer> sizes() {
    return Arrays.stream(sizes).boxed().toList();
  }
}
