package io.github.verbs4j.examples.memmodel;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code verbs4j memory-model}: the analytic model of seed 003. Prints Table 1 (every component
 * before and after, per node, against the paper's values at its scale), every component of every
 * strategy, per-node bytes of every strategy from 2^4 nodes up, and writes the log-log chart.
 */
@Command(name = "memory-model", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Per-node memory of an MPI + low-level communication library over InfiniBand (seed 003): "
        + "Table 1 before and after, and per-node bytes against node count for five connection strategies "
        + "(baseline, capped, dc, hybrid, shared).",
        "Every component is a formula over named primitive sizes from the paper (--primitives lists them)."})
public final class MemoryModelCommand implements Callable<Integer> {
  /** Smallest node count of the scaling table and chart. */
  static final long MIN_NODES = 16;

  @Spec
  CommandSpec spec;

  @Option(names = "--nodes", paramLabel = "N", defaultValue = "1048576",
      description = "Nodes in the job (default: ${DEFAULT-VALUE}, the paper's 2^20).")
  long nodes;

  @Option(names = "--ppn", paramLabel = "M", defaultValue = "4",
      description = "MPI processes per node, the paper's m (default: ${DEFAULT-VALUE}).")
  int ppn;

  @Option(names = "--comms", paramLabel = "C", defaultValue = "10",
      description = "Communicators split from COMM_WORLD, the paper's c (default: ${DEFAULT-VALUE}).")
  int comms;

  @Option(names = "--gamma", paramLabel = "G", defaultValue = "1024",
      description = "Active communication contexts per node at most (default: ${DEFAULT-VALUE}).")
  int gamma;

  @Option(names = "--chart", paramLabel = "FILE.png", defaultValue = "memory-model.png",
      description = "The log-log chart of per-node bytes against nodes (default: ${DEFAULT-VALUE}).")
  Path chart;

  @Option(names = "--primitives", description = "Also list the primitive sizes with their sources.")
  boolean primitives;

  @Override
  public Integer call() {
    if (!chart.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".png")) {
      throw new ParameterException(spec.commandLine(), "--chart=" + chart + " must name a .png file");
    }
    Scale scale;
    try {
      scale = new Scale(nodes, ppn, comms, gamma);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--" + e.getMessage());
    }
    List<Long> nodeCounts = nodeCounts(scale.nodes());
    PrintWriter out = spec.commandLine().getOut();
    Table1Report.printTable(out, scale);
    Table1Report.printStrategies(out, scale);
    Table1Report.printScaling(out, scale, nodeCounts);
    if (primitives) {
      Table1Report.printPrimitives(out);
    }
    ScalingChart.render(scale, nodeCounts, chart);
    out.println();
    out.println("Chart written to " + chart);
    out.flush();
    return 0;
  }

  /** Powers of two from {@link #MIN_NODES} to 2^20 or beyond to cover {@code nodes}. */
  static List<Long> nodeCounts(long nodes) {
    List<Long> counts = new ArrayList<>();
    long top = Math.max(1L << 20, nodes);
    for (long n = MIN_NODES; n < top; n <<= 1) {
      counts.add(n);
    }
    counts.add(Math.min(top, Scale.MAX_NODES));
    return counts;
  }
}
