package io.github.verbs4j.examples.himeno;

import io.github.verbs4j.examples.common.DurationConverter;
import io.github.verbs4j.examples.common.ValidatesOptions;
import io.github.verbs4j.examples.mp.Communicator;
import io.github.verbs4j.examples.mp.ConnectionOptions;
import io.github.verbs4j.examples.mp.MpConfig;
import io.github.verbs4j.examples.mp.ReduceOp;
import io.github.verbs4j.examples.mp.VerbsCommunicator;
import io.github.verbs4j.fabric.topo.TopologySpec;
import io.github.verbs4j.verbs.Capability;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.MemoryKind;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code verbs4j himeno}: the Himeno benchmark on the message-passing layer, on every rank of the
 * job; rank 0 prints the residual and the time split into calculation, halo exchange and allreduce
 * (the slowest rank's time for each).
 */
@Command(name = "himeno", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"The Himeno benchmark (Jacobi iteration, original 19-point stencil) over i x j ranks, with halo "
        + "exchange and residual allreduce on the verbs message-passing layer.",
        "Rank 0 prints gosa (the residual), MFLOPS and the time split into calculation, halo exchange and "
            + "allreduce. The residual is summed exactly, so it is bit-identical for every decomposition and "
            + "provider."})
public final class HimenoCommand implements Callable<Integer>, ValidatesOptions {
  private static final String TOPOLOGY_KEY = "verbs.topology";

  @Spec
  CommandSpec spec;

  @Option(names = {"-s", "--size"}, paramLabel = "SIZE", defaultValue = "SMALL",
      description = "Problem size: ${COMPLETION-CANDIDATES} (i x j x k = 16x16x32, 64x64x128, 128x128x256, "
          + "256x256x512; default: ${DEFAULT-VALUE}).")
  HimenoSize size;

  @Option(names = {"-n", "--iterations"}, paramLabel = "N",
      description = "Jacobi iterations (default: 1000; tiny: 100).")
  Integer iterations;

  @Option(names = "--grid", paramLabel = "IxJ",
      description = "Process grid, e.g. 2x2 (default: as balanced as possible, i >= j).")
  String grid;

  @Option(names = "--eager-limit", paramLabel = "BYTES", defaultValue = "8192",
      description = "Messages up to this size go eagerly, longer ones by rendezvous (default: ${DEFAULT-VALUE}).")
  int eagerLimit;

  @Option(names = "--rendezvous", paramLabel = "MODE", defaultValue = "WRITE",
      description = "How rendezvous data moves: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  MpConfig.Rendezvous rendezvous;

  @Option(names = "--flop-rate", paramLabel = "GFLOPS", defaultValue = "" + HimenoSolver.DEFAULT_GFLOPS,
      description = "Modelled time: each rank's computation rate, GFLOP/s; a Jacobi step of a rank's interior points "
          + "costs points x 34 flops at this rate (default: ${DEFAULT-VALUE}, an assumption).")
  double flopRate;

  @Option(names = "--placement", paramLabel = "TOPOLOGY[/NODES]",
      description = {"Where the ranks run (seed 000 §5.2 places them so that no two halo exchanges share a PCIe "
          + "link): the machine's verbs.topology (switch, or peach2:rings=R,nodesPerRing=N) and, after '/', the "
          + "node of each grid position in row-major order (position = pi x J + pj on an I x J grid; node n runs rank "
          + "n - 1), e.g. "
          + "peach2:rings=1,nodesPerRing=4/1,2,4,3. Default: verbs.topology, position p on node p + 1."})
  String placement;

  @Option(names = "--memory", paramLabel = "KIND", defaultValue = "host",
      description = "Where the halo buffers live: host or device (GPU memory; needs a provider with device memory: "
          + "tca's PEACH2 GPU path; default: ${DEFAULT-VALUE}).")
  String memory;

  @Option(names = "--check", description = "Rank 0 also runs the serial reference and compares the residual.")
  boolean check;

  @Option(names = "--mp-timeout", paramLabel = "DURATION", defaultValue = "120s", converter = DurationConverter.class,
      description = "Longest wait for one message (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Mixin
  ConnectionOptions connections = new ConnectionOptions();

  private PrintStream out = System.out;

  @Override
  public void validateOptions() {
    if (iterations != null && iterations < 1) {
      throw new ParameterException(spec.commandLine(), "--iterations=" + iterations + " must be at least 1");
    }
    if (eagerLimit < 0 || eagerLimit > (1 << 20)) {
      throw new ParameterException(spec.commandLine(), "--eager-limit=" + eagerLimit
          + " must be between 0 and 1048576");
    }
    if (!(flopRate > 0) || Double.isInfinite(flopRate)) {
      throw new ParameterException(spec.commandLine(), "--flop-rate=" + flopRate + " must be a positive GFLOP/s");
    }
    if (grid != null) {
      parseGrid(grid);
    }
    placement();
    haloMemory();
    if (connections.gamma() < 1 || connections.gamma() > 65535) {
      throw new ParameterException(spec.commandLine(), "--gamma=" + connections.gamma()
          + " must be between 1 and 65535");
    }
  }

  /** @return the message-passing settings of the options */
  MpConfig mpConfig() {
    return connections.apply(MpConfig.defaults().withEagerLimit(eagerLimit).withRendezvous(rendezvous)
        .withTimeout(timeout));
  }

  /** @return the parsed {@code --placement}, or null */
  Placement placement() {
    if (placement == null) {
      return null;
    }
    try {
      return Placement.parse(placement);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--placement=" + placement + ": " + e.getMessage());
    }
  }

  /** @return the halo buffers' memory kind of {@code --memory} */
  MemoryKind haloMemory() {
    return switch (memory.trim().toLowerCase(Locale.ROOT)) {
      case "host" -> MemoryKind.HOST;
      case "device" -> MemoryKind.DEVICE;
      default -> throw new ParameterException(spec.commandLine(), "--memory=" + memory + " must be host or device");
    };
  }

  /**
   * The configuration the job opens its device with: {@code --placement}'s topology, which must
   * agree with a {@code verbs.topology} set otherwise (every rank of a job needs the same).
   *
   * @param config the loaded configuration
   * @return it, with the placement's topology
   */
  VerbsConfig withPlacement(VerbsConfig config) {
    Placement p = placement();
    if (p == null) {
      return config;
    }
    String set = config.explicitSettings().get(TOPOLOGY_KEY);
    if (set != null && !TopologySpec.parse(set).equals(p.spec())) {
      throw new ParameterException(spec.commandLine(), "--placement=" + placement + " needs " + TOPOLOGY_KEY + "="
          + p.topology() + ", but " + TOPOLOGY_KEY + "=" + set + " is set");
    }
    return config.with(TOPOLOGY_KEY, p.topology());
  }

  /**
   * Refuses {@code --memory=device} on a device without device memory.
   *
   * @param ctx the opened device
   */
  void checkMemory(Context ctx) {
    if (haloMemory() == MemoryKind.DEVICE && !ctx.queryDevice().capabilities().contains(Capability.DEVICE_MEMORY)) {
      throw new ParameterException(spec.commandLine(), "--memory=device: provider " + ctx.device().provider()
          + " has no device memory (Capability.DEVICE_MEMORY). Seed 000's InfiniBand baseline moved GPU halos by "
          + "GPUDirect RDMA, the HCA reading and writing GPU memory itself; the " + ctx.device().provider()
          + " provider does not model that, so use --memory=host there");
    }
  }

  private int[] parseGrid(String g) {
    String[] f = g.toLowerCase(Locale.ROOT).split("x");
    try {
      if (f.length == 2) {
        int[] dims = {Integer.parseInt(f[0].trim()), Integer.parseInt(f[1].trim())};
        if (dims[0] >= 1 && dims[1] >= 1) {
          return dims;
        }
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new ParameterException(spec.commandLine(), "--grid=" + g + " must look like 2x2 (positive i x j)");
  }

  @Override
  public Integer call() {
    validateOptions();
    VerbsConfig config = withPlacement(VerbsConfig.load());
    MpConfig mp = mpConfig();
    try (Context ctx = Verbs.open(config)) {
      checkMemory(ctx);
      try (Communicator comm = VerbsCommunicator.open(ctx, mp)) {
        run(comm, "modelled".equals(config.get(VerbsConfig.TIME)),
            ctx.device().provider() + ", fabric " + config.get(VerbsConfig.FABRIC) + ", topology "
                + config.explicitSettings().getOrDefault(TOPOLOGY_KEY, "switch"));
      }
    }
    return 0;
  }

  /**
   * Runs the benchmark on {@code comm} and prints rank 0's report.
   *
   * @param comm the communicator
   * @param modelled whether the fabric models time
   * @param where the provider and fabric, for the report
   * @return the residual
   */
  float run(Communicator comm, boolean modelled, String where) {
    int[] dims = grid != null ? parseGrid(grid) : Decomposition.dims(comm.size());
    if (dims[0] * dims[1] != comm.size()) {
      throw new ParameterException(spec.commandLine(), "--grid=" + grid + " needs " + dims[0] * dims[1]
          + " ranks, the job has " + comm.size());
    }
    int iters = iterations != null ? iterations : size.defaultIterations();
    Placement p = placement();
    int[] ranks;
    try {
      ranks = p != null ? p.rankOfPosition(comm.size()) : null;
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--placement=" + placement + ": " + e.getMessage());
    }
    HimenoSolver solver = new HimenoSolver(comm, size, dims[0], dims[1], modelled, flopRate, ranks, haloMemory());
    comm.barrier();
    long start = System.nanoTime();
    HimenoResult r = solver.run(iters);
    double total = (System.nanoTime() - start) / 1e9;
    double[] times = {total, r.calcNanos() / 1e9, r.haloNanos() / 1e9, r.allreduceNanos() / 1e9,
        r.haloModelNanos() / 1e9, r.allreduceModelNanos() / 1e9, r.calcModelNanos() / 1e9,
        (r.calcModelNanos() + r.haloModelNanos() + r.allreduceModelNanos()) / 1e9};
    comm.allreduce(times, ReduceOp.MAX);
    if (comm.rank() == 0) {
      report(comm.size(), dims, iters, r.gosa(), times, modelled, where + placementText(p, ranks));
      if (check) {
        float serial = new SerialHimeno(size).jacobi(iters);
        boolean same = Float.floatToRawIntBits(serial) == Float.floatToRawIntBits(r.gosa());
        out.printf(Locale.ROOT, " Serial reference   : %e (%s)%n", serial, same ? "identical" : "DIFFERENT");
        if (!same) {
          throw new IllegalStateException("the residual " + r.gosa() + " differs from the serial reference " + serial);
        }
      }
      out.flush();
    }
    return r.gosa();
  }

  private String placementText(Placement p, int[] ranks) {
    String mem = ", halos in " + haloMemory().name().toLowerCase(Locale.ROOT) + " memory";
    if (p == null || p.nodes() == null) {
      return mem;
    }
    StringBuilder b = new StringBuilder(mem).append(", grid position -> rank");
    for (int pos = 0; pos < ranks.length; pos++) {
      b.append(pos == 0 ? " " : ",").append(ranks[pos]);
    }
    return b.toString();
  }

  private void report(int ranks, int[] dims, int iters, float gosa, double[] t, boolean modelled, String where) {
    double flop = (double) (size.kmax() - 2) * (size.jmax() - 2) * (size.imax() - 2) * HimenoGrid.FLOPS_PER_POINT
        * iters;
    out.printf(Locale.ROOT, "Himeno benchmark: size %s (%d x %d x %d), %d iterations, %d rank%s as %d x %d (i x j)%n",
        size, size.imax(), size.jmax(), size.kmax(), iters, ranks, ranks == 1 ? "" : "s", dims[0], dims[1]);
    out.printf(Locale.ROOT, " Provider           : %s%n", where);
    out.printf(Locale.ROOT, " Gosa               : %e (float bits 0x%08x)%n", gosa, Float.floatToRawIntBits(gosa));
    out.printf(Locale.ROOT, " MFLOPS measured    : %f%n", flop / t[0] * 1e-6);
    out.printf(Locale.ROOT, " Time [s]           :      total       calc  halo exch.  allreduce%n");
    out.printf(Locale.ROOT, "  wall (max of ranks): %10.4f %10.4f  %10.4f %10.4f%n", t[0], t[1], t[2], t[3]);
    if (modelled) {
      out.printf(Locale.ROOT, "  modelled           : %10.4f %10.4f  %10.4f %10.4f%n", t[7], t[6], t[4], t[5]);
      double us = 1e6 / iters;
      out.printf(Locale.ROOT, "  modelled, us/iter  : %10.3f %10.3f  %10.3f %10.3f%n", t[7] * us, t[6] * us, t[4] * us,
          t[5] * us);
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
}
