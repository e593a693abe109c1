package io.github.verbs4j.examples.perftest;

import io.github.verbs4j.examples.himeno.HimenoResult;
import io.github.verbs4j.examples.himeno.HimenoSize;
import io.github.verbs4j.examples.himeno.HimenoSolver;
import io.github.verbs4j.examples.himeno.Placement;
import io.github.verbs4j.examples.mp.MpConfig;
import io.github.verbs4j.examples.mp.VerbsCommunicator;
import io.github.verbs4j.verbs.MemoryKind;
import java.util.ArrayList;
import java.util.HashMap;
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
 * at Himeno's 64 bytes per 34 flops); halos in CPU memory on both providers, and on tca also in GPU
 * memory (the paper's CUDA Himeno; the PEACH2 GPU path on seed 000's hosts, {@link #HA_PACS_TCA});
 * tca's four ranks are placed as the paper places them, every halo neighbour one cable away so that
 * no two exchanges share a PCIe link ({@link #PLACEMENT}, the {@code himeno} program's {@code
 * --placement}).
 */
final class ReproduceHimeno {
  /** Each rank's computation rate, GFLOP/s: a K20X's 250 GB/s at 64 bytes per 34 flops (assumed). */
  static final double GFLOPS = 132.8;
  /**
   * tca's placement: two rings of two boards joined by their S ports, grid positions in node order,
   * so ranks (i, j) of the 2 × 2 grid are each one cable from both their neighbours.
   */
  static final String PLACEMENT = "peach2:rings=2,nodesPerRing=2";
  /** ib's: one switch. */
  static final String IB_PLACEMENT = "switch";
  /**
   * Seed 000's hosts read GPU memory through PEACH2 at 2.8 GB/s (§2.6, figure 3), as {@code
   * reproduce 000}'s GPU rows.
   */
  static final Map<String, String> HA_PACS_TCA = Map.of("verbs.tca.device-read-mb-s", "2800");
  /** Iterations before the measured ones (links and rendezvous buffers set up). */
  private static final int WARM_UP = 2;

  /** One size: modelled µs per iteration (total, calc, halo, allreduce) of ib, tca, tca with GPU halos. */
  record Row(HimenoSize size, double[] ib, double[] tca, double[] tcaGpu) {
    double ratio() {
      return tca[0] / ib[0];
    }
  }

  private ReproduceHimeno() {}

  /**
   * Runs each size on both providers, and on tca with the halos in GPU memory.
   *
   * @param iterations measured iterations per run (after {@value #WARM_UP} to warm up)
   * @param sizes the sizes
   * @return one row per size
   * @throws Exception a rank's failure
   */
  static List<Row> run(int iterations, List<HimenoSize> sizes) throws Exception {
    List<Row> rows = new ArrayList<>();
    Placement tcaPlacement = Placement.parse(PLACEMENT);
    for (HimenoSize s : sizes) {
      double[] ib = perIteration("ib", Map.of("verbs.ib.profile", "connectx3-qdr"), Placement.parse(IB_PLACEMENT),
          MemoryKind.HOST, s, iterations);
      double[] tca = perIteration("tca", Map.of(), tcaPlacement, MemoryKind.HOST, s, iterations);
      double[] gpu = perIteration("tca", HA_PACS_TCA, tcaPlacement, MemoryKind.DEVICE, s, iterations);
      rows.add(new Row(s, ib, tca, gpu));
    }
    return rows;
  }

  /**
   * One run of 2 × 2 ranks in modelled time.
   *
   * @param provider {@code verbs.provider}
   * @param settings more settings (the deterministic fabric and the placement's topology are added)
   * @param placement where the grid positions run
   * @param haloMemory where the halo buffers live
   * @param size the problem size
   * @param iterations measured iterations
   * @return rank 0's modelled µs per iteration, the median of {@code iterations}: total (the sum of
   *     the three), calculation, halo exchange, allreduce
   * @throws Exception a rank's failure
   */
  static double[] perIteration(String provider, Map<String, String> settings, Placement placement,
      MemoryKind haloMemory, HimenoSize size, int iterations) throws Exception {
    Map<String, String> m = new HashMap<>(settings);
    m.put("verbs.fabric.mode", "deterministic"); // ranks in lockstep: the same figures every run
    m.put("verbs.topology", placement.topology());
    int[] ranks = placement.rankOfPosition(4);
    return InProcessRanks.run(provider, 4, m, (ctx, cfg) -> {
      try (VerbsCommunicator comm = VerbsCommunicator.open(ctx, MpConfig.defaults())) {
        HimenoSolver solver = new HimenoSolver(comm, size, 2, 2, true, GFLOPS, ranks, haloMemory);
        solver.run(WARM_UP);
        comm.barrier();
        double calc = 0;
        double[] halo = new double[iterations];
        double[] reduce = new double[iterations];
        for (int i = 0; i < iterations; i++) {
          HimenoResult r = solver.run(1);
          calc = r.calcModelNanos() / 1000.0;
          halo[i] = r.haloModelNanos() / 1000.0;
          reduce[i] = r.allreduceModelNanos() / 1000.0;
        }
        comm.barrier();
        double h = median(halo);
        double a = median(reduce);
        return new double[] {calc + h + a, calc, h, a};
      }
    });
  }

  /**
   * The median of the iterations (in lockstep each run repeats exactly; iterations still differ, as
   * where a rendezvous buffer is registered first).
   */
  static double median(double[] v) {
    double[] s = v.clone();
    java.util.Arrays.sort(s);
    int n = s.length;
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }

  /** @return the Markdown table of {@code rows}, with what the paper reports beside each size */
  static String table(List<Row> rows, int iterations) {
    StringBuilder b = new StringBuilder();
    b.append("\nHimeno, 2 x 2 ranks (seed 000 §5.2, figure 15), modelled µs per iteration (rank 0, median of ")
        .append(iterations).append(" after ").append(WARM_UP).append("): total = calc + halo + allreduce\n\n");
    b.append("| size | ib (QDR): total / calc / halo / allreduce | tca: total / calc / halo / allreduce | tca/ib "
        + "| paper (fig. 15) | as the paper | tca, GPU halos: total / calc / halo / allreduce | GPU/CPU halo |\n"
        + "|---|---|---|---:|---|---|---|---:|\n");
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
      b.append(String.format(Locale.ROOT, "| %s | %s | %s | %.2f | %s | %s | %s | %.2f |%n", r.size(), split(r.ib()),
          split(r.tca()), r.ratio(), paper, holds ? "yes" : "no", split(r.tcaGpu()), r.tcaGpu()[2] / r.tca()[2]));
    }
    b.append("\nAssumed: ").append(GFLOPS).append(" GFLOP/s a rank (K20X memory bandwidth at 64 B per 34 flops);"
        + " halos in CPU memory (ib, tca) and in GPU memory (tca, PEACH2 reading GPU memory at 2.8 GB/s as on seed 000's"
        + " hosts; ib has no GPU path: its GPUDirect RDMA is not modelled); tca ranks placed as the paper does, every"
        + " halo neighbour one cable away (--placement " + PLACEMENT + "). \"As the paper\": Small tca/ib > 1.10,"
        + " Middle >= 1, Large within 1 ± 0.10 (the paper's figure 15 is the CUDA Himeno, halos in GPU memory;"
        + " it gives no CPU-memory figures).\n");
    return b.toString();
  }

  private static String split(double[] t) {
    return String.format(Locale.ROOT, "%.1f / %.1f / %.1f / %.1f", t[0], t[1], t[2], t[3]);
  }
}
