package io.github.verbs4j.examples.gmpi;

import io.github.verbs4j.examples.common.DurationConverter;
import io.github.verbs4j.examples.common.ValidatesOptions;
import io.github.verbs4j.examples.himeno.Decomposition;
import io.github.verbs4j.examples.himeno.HimenoSize;
import io.github.verbs4j.examples.himeno.SerialHimeno;
import io.github.verbs4j.examples.mp.Communicator;
import io.github.verbs4j.examples.mp.MpConfig;
import io.github.verbs4j.examples.mp.ReduceOp;
import io.github.verbs4j.examples.mp.VerbsCommunicator;
import io.github.verbs4j.verbs.Context;
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
 * {@code verbs4j gmpi-himeno}: seed 004 figure 8 — Himeno with kernel-side halo exchange and
 * allreduce (GMPI) against the host-driven version, with both cost profiles. Rank 0 prints the
 * modelled time per iteration of each, GMPI's performance relative to host-driven beside the
 * paper's ~0.5, the wall-clock times, and the residual (the same bits for both, checked).
 */
@Command(name = "gmpi-himeno", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"GMPI study 3: Himeno with halo exchange and allreduce from inside a running kernel (GMPI) vs "
        + "host-driven (kernel per phase, host communicates) (seed 004, figure 8).",
        "Run on 2 or 4 ranks: verbs4j run -n 4 gmpi-himeno --size small."})
public final class GmpiHimenoCommand implements Callable<Integer>, ValidatesOptions {
  @Spec
  CommandSpec spec;

  @Option(names = {"-s", "--size"}, paramLabel = "SIZE", defaultValue = "SMALL",
      description = "Problem size: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  HimenoSize size;

  @Option(names = {"-n", "--iterations"}, paramLabel = "N", defaultValue = "50",
      description = "Jacobi iterations per run, at least 2 (default: ${DEFAULT-VALUE}).")
  int iterations;

  @Mixin
  ProfileOption profile;

  @Option(names = "--check", description = "Rank 0 also runs the serial reference and compares the residual.")
  boolean check;

  @Option(names = "--mp-timeout", paramLabel = "DURATION", defaultValue = "120s", converter = DurationConverter.class,
      description = "Longest wait for one message or GMPI call (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  private PrintStream out = System.out;

  @Override
  public void validateOptions() {
    if (iterations < 2) {
      throw new ParameterException(spec.commandLine(), "--iterations=" + iterations + " must be at least 2");
    }
    profile.costs(spec);
  }

  @Override
  public Integer call() {
    validateOptions();
    VerbsConfig config = ProfileOption.modelledConfig();
    try (Context ctx = Verbs.open(config);
        Communicator comm = VerbsCommunicator.open(ctx, MpConfig.defaults().withTimeout(timeout))) {
      run(ctx, comm, ctx.device().provider() + ", fabric " + config.get(VerbsConfig.FABRIC));
    }
    return 0;
  }

  /**
   * Runs both variants with each profile on every rank; rank 0 prints.
   *
   * @param ctx the rank's context
   * @param comm the rank's communicator
   * @param where provider and fabric, for the report
   * @return the residual
   */
  float run(Context ctx, Communicator comm, String where) {
    int[] dims = Decomposition.dims(comm.size());
    float gosa = 0;
    FabricTimes fabric = GmpiHimeno.measureFabric(ctx, comm, size, dims[0], dims[1]);
    if (comm.rank() == 0) {
      out.printf(Locale.ROOT, "fabric one-way times on the node clock: %s%n", fabric);
    }
    for (AcceleratorCosts costs : profile.costs(spec)) {
      comm.barrier();
      GmpiHimeno.Result host = GmpiHimeno.hostDriven(ctx, comm, fabric, costs, size, dims[0], dims[1], iterations, timeout);
      comm.barrier();
      GmpiHimeno.Result gmpi = GmpiHimeno.gmpi(ctx, comm, fabric, costs, size, dims[0], dims[1], iterations, timeout);
      comm.barrier();
      double[] wall = {host.wallNanosPerIteration(), gmpi.wallNanosPerIteration()};
      comm.allreduce(wall, ReduceOp.MAX);
      if (Float.floatToRawIntBits(host.gosa()) != Float.floatToRawIntBits(gmpi.gosa())) {
        throw new IllegalStateException("rank " + comm.rank() + ": GMPI residual " + gmpi.gosa()
            + " differs from the host-driven " + host.gosa());
      }
      gosa = gmpi.gosa();
      if (comm.rank() == 0) {
        double ratio = host.modelledNanosPerIteration() / gmpi.modelledNanosPerIteration();
        out.printf(Locale.ROOT, "GMPI Himeno vs host-driven, profile %s, size %s, %d ranks as %d x %d, %s, %d iterations%n",
            costs.name(), size, comm.size(), dims[0], dims[1], where, iterations);
        out.printf(Locale.ROOT, " Gosa                      : %e (float bits 0x%08x), identical in both%n", gosa,
            Float.floatToRawIntBits(gosa));
        out.printf(Locale.ROOT, " modelled us/iteration     : host-driven %10.2f   GMPI %10.2f%n",
            host.modelledNanosPerIteration() / 1e3, gmpi.modelledNanosPerIteration() / 1e3);
        out.printf(Locale.ROOT, " GMPI / host-driven perf.  : modelled %.3f   paper ~0.5   diff %+.0f pt%n", ratio,
            (ratio - 0.5) * 100);
        out.printf(Locale.ROOT, " wall us/iteration (max)   : host-driven %10.2f   GMPI %10.2f%n", wall[0] / 1e3,
            wall[1] / 1e3);
      }
    }
    if (check && comm.rank() == 0) {
      float serial = new SerialHimeno(size).jacobi(iterations);
      boolean same = Float.floatToRawIntBits(serial) == Float.floatToRawIntBits(gosa);
      out.printf(Locale.ROOT, " Serial reference          : %e (%s)%n", serial, same ? "identical" : "DIFFERENT");
      if (!same) {
        throw new IllegalStateException("the residual " + gosa + " differs from the serial reference " + serial);
      }
    }
    out.flush();
    return gosa;
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
