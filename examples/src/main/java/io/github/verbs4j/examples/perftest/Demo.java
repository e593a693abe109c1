package io.github.verbs4j.examples.perftest;

import io.github.verbs4j.examples.common.ValidatesOptions;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The README's main job: {@code send_lat} and {@code write_bw} swept over message sizes on one
 * context per rank, each printing its perftest table, then one PNG with a latency panel and a
 * bandwidth panel. It is the two programs run back to back with their own code (same options,
 * same tables); only the sweep limits and iteration counts are chosen so the whole job takes
 * seconds, not minutes.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"The main job: send_lat and write_bw size sweeps between 2 ranks, their perftest tables, "
        + "a CSV file and a PNG chart (latency and bandwidth against message size).",
        "Start it with: ./verbs4j run -n 2 demo"})
public final class Demo implements Callable<Integer>, ValidatesOptions {
  @Spec
  CommandSpec spec;

  @Option(names = "--out", paramLabel = "DIR", defaultValue = "verbs4j-demo",
      description = "Directory for results.csv and chart.png (default: ${DEFAULT-VALUE}).")
  Path out;

  @Option(names = "--lat-max-size", paramLabel = "BYTES", defaultValue = "65536",
      description = "Largest send_lat message, a power of two (default: ${DEFAULT-VALUE}).")
  long latMaxSize;

  @Option(names = "--bw-max-size", paramLabel = "BYTES", defaultValue = "1048576",
      description = "Largest write_bw message, a power of two (default: ${DEFAULT-VALUE}).")
  long bwMaxSize;

  @Option(names = "--lat-iters", paramLabel = "N", defaultValue = "1000",
      description = "send_lat iterations per size (default: ${DEFAULT-VALUE}, perftest's default).")
  int latIters;

  @Option(names = "--bw-iters", paramLabel = "N", defaultValue = "1000",
      description = "write_bw iterations per size (default: ${DEFAULT-VALUE}; perftest's 5000 takes longer).")
  int bwIters;

  /** @return the results file */
  Path csv() {
    return out.resolve("results.csv");
  }

  /** @return the chart file */
  Path png() {
    return out.resolve("chart.png");
  }

  private PerftestProgram program(PerftestProgram p, long maxSize, int iters, boolean plot) {
    List<String> args = new ArrayList<>(List.of("--all", "--max-size", Long.toString(maxSize), "--iters",
        Integer.toString(iters), "--csv", csv().toString()));
    if (plot) {
      args.addAll(List.of("--plot", png().toString()));
    }
    try {
      new CommandLine(p).parseArgs(args.toArray(String[]::new));
      p.validate();
    } catch (ParameterException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage().replace("--max-size",
          p instanceof SendLat ? "--lat-max-size" : "--bw-max-size").replace("--iters",
              p instanceof SendLat ? "--lat-iters" : "--bw-iters"));
    }
    return p;
  }

  @Override
  public void validateOptions() {
    program(new SendLat(), latMaxSize, latIters, false);
    program(new WriteBw(), bwMaxSize, bwIters, true);
  }

  @Override
  public Integer call() {
    PerftestProgram lat = program(new SendLat(), latMaxSize, latIters, false);
    PerftestProgram bw = program(new WriteBw(), bwMaxSize, bwIters, true);
    VerbsConfig config = VerbsConfig.load();
    try (Context ctx = Verbs.open(config)) {
      if (ctx.job().rank() == 0) {
        try {
          Files.createDirectories(out);
          Files.deleteIfExists(csv());
        } catch (IOException e) {
          throw new UncheckedIOException("cannot prepare --out " + out + ": " + e.getMessage(), e);
        }
      }
      lat.run(ctx, config, lat.validate());
      bw.run(ctx, config, bw.validate());
    }
    return 0;
  }
}
