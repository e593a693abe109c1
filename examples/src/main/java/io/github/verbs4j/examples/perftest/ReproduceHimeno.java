package io.github.verbs4j.examples.perftest;

import io.github.verbs4j.examples.himeno.HimenoResult;
import io.github.verbs4j.examples.himeno.HimenoSize;
import io.github.verbs4j.examples.himeno.HimenoSolver;
import io.github.verbs4j.examples.mp.MpConfig;
import io.github.verbs4j.examples.mp.VerbsCommunicator;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Seed 000's Himeno comparison (§5.2, figure 15) in modelled time: Small, Middle and Large on 2 × 2
 * ranks (threads of this JVM in {@link io.github.verbs4j.examples.mp.Lockstep} on the deterministic
 * in-JVM fabric, so every run gives the same figures), tca against ib's ConnectX-3 QDR profile, time
 * per iteration = computation + halo exchange + allreduce on rank 0.
 *
 * <p>What is assumed: each rank computes at {@link #GFLOPS} (seed 000's K20X: 250 GB/s of memory
 * at Himeno's 64 bytes per 34 flops); halos are in CPU memory on both providers; tca's four ranks are
 * placed as the paper places them, every halo neighbour one cable away so that no two exchanges
 * share a PCIe link (two rings of two nodes joined by their S ports: {@link #PLACEMENT}).
 */
final class ReproduceHimeno {
  /** Each rank's computation rate, GFLOP/s: a K20X's 250 GB/s at 64 bytes per 34 flops (assumed). */
  static final double GFLOPS = 132.8;
  /** tca's topology: ranks (i, j) of the 2 × 2 grid each one cable from both their neighbours. */
  static final String PLACEMENT = "peach2:rings=2,nodesPerRing=2";
  private static final String MODE = "verbs.fabric.mode";
  private static final String DETERMINISTIC = "deterministic";
  /** Iterations before the measured ones (links and rendezvous buffers set up). */
  private static final int WARM_UP = 2;

  /** One size, both providers: modelled µs per iteration (total, calc, halo, allreduce). */
  record Row(HimenoSize size, double[] ib, double[] tca) {
    double ratio() {
      return tca[0] / ib[0];
    }
  }

  private ReproduceHimeno() {}

  /**
   * Runs each size on both providers.
   *
   * @param iterations measured iterations per run (after {@value #WARM_UP} to warm up)
   * @param sizes the sizes
   * @return one row per size
   * @throws Exception a rank's failure
   */
  static List<Row> run(int iterations, List<HimenoSize> sizes) throws Exception {
    List<Row> rows = new ArrayList<>();
    for (HimenoSize s : sizes) {
      double[] ib = perIteration("ib", Map.of(MODE, DETERMINISTIC, "verbs.ib.profile", "connectx3-qdr"), s,
          iterations);
      double[] tca = perIteration("tca", Map.of(MODE, DETERMINISTIC, "verbs.topology", PLACEMENT), s, iterations);
      rows.add(new Row(s, ib, tca));
    }
    return rows;
  }

  /** @return rank 0's modelled µs per iteration: total, calculation, halo exchange, allreduce */
  static double[] perIteration(String provider, Map<String, String> settings, HimenoSize size, int iterations)
      throws Exception {
    return InProcessRanks.run(provider, 4, settings, (ctx, cfg) -> {
      try (VerbsCommunicator comm = VerbsCommunicator.open(ctx, MpConfig.defaults())) {
        HimenoSolver solver = new HimenoSolver(comm, size, 2, 2, true, GFLOPS);
        solver.run(WARM_UP);
        comm.barrier();
        HimenoResult r = solver.run(iterations);
        comm.barrier();
        double calc = r.calcModelNanos() / 1000.0 / iterations;
        double halo = r.haloModelNanos() / 1000.0 / iterations;
        double reduce = r.allreduceModelNanos() / 1000.0 / iterations;
        return new double[] {calc + halo + reduce, calc, halo, reduce};
      }
    });
  }

  /** @return the Markdown table of {@code rows}, with what the paper reports beside each size */
  static String table(List<Row> rows, int iterations) {
    StringBuilder b = new StringBuilder();
    b.append("\nHimeno, 2 x 2 ranks (seed 000 §5.2, figure 15), modelled µs per iteration (rank 0, mean of ")
        .append(iterations).append(" after ").append(WARM_UP).append("): total = calc + halo + allreduce\n\n");
    b.append("| size | ib (QDR): total / calc / halo / allreduce | tca: total / calc / halo / allreduce | tca/ib "
        + "| paper (fig. 15) | as the paper |\n|---|---|---|---:|---|---|\n");
    for (Row r : rows) {
      String paper;
      boolean holds;
      switch (r.size()) {
        case LARGE -> {
          paper = "about equal";
          holds = Math.abs(r.ratio() - 1) <= 0.10;
        }
        case MIDDLE -> {
          paper = "small gap at 2 x 2";
          holds = r.ratio() >= 1;
        }
        default -> {
          paper = "tca clearly behind";
          holds = r.ratio() > 1.10;
        }
      }
      b.append(String.format(Locale.ROOT, "| %s | %s | %s | %.2f | %s | %s |%n", r.size(), split(r.ib()),
          split(r.tca()), r.ratio(), paper, holds ? "yes" : "no"));
    }
    b.append("\nAssumed: ").append(GFLOPS).append(" GFLOP/s a rank (K20X memory bandwidth at 64 B per 34 flops);"
        + " halos in CPU memory; tca ranks placed as the paper does, every halo neighbour one cable away ("
        + PLACEMENT + "). \"As the paper\": Small tca/ib > 1.10, Middle >= 1, Large within 1 ± 0.10.\n");
    return b.toString();
  }

  private static String split(double[] t) {
    return String.format(Locale.ROOT, "%.1f / %.1f / %.1f / %.1f", t[0], t[1], t[2], t[3]);
  }
}
