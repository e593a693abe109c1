package io.github.verbs4j.examples;

import io.github.verbs4j.examples.common.CompletionError;
import io.github.verbs4j.examples.common.WaitTimeoutException;
import io.github.verbs4j.examples.flood.FloodBench;
import io.github.verbs4j.examples.gmpi.GmpiArgsCommand;
import io.github.verbs4j.examples.gmpi.GmpiHimenoCommand;
import io.github.verbs4j.examples.gmpi.GmpiPingPongCommand;
import io.github.verbs4j.examples.himeno.HimenoCommand;
import io.github.verbs4j.examples.launcher.ParentWatch;
import io.github.verbs4j.examples.launcher.ProbeCommand;
import io.github.verbs4j.examples.launcher.RunCommand;
import io.github.verbs4j.examples.memmodel.MemoryModelCommand;
import io.github.verbs4j.examples.memmodel.MpMemoryCommand;
import io.github.verbs4j.examples.mp.MpLatencyCommand;
import io.github.verbs4j.examples.perftest.AtomicLat;
import io.github.verbs4j.examples.perftest.Compare;
import io.github.verbs4j.examples.perftest.Demo;
import io.github.verbs4j.examples.perftest.PlotCommand;
import io.github.verbs4j.examples.perftest.ReadBw;
import io.github.verbs4j.examples.perftest.ReadLat;
import io.github.verbs4j.examples.perftest.Reproduce;
import io.github.verbs4j.examples.soak.SoakCommand;
import io.github.verbs4j.examples.perftest.SendBw;
import io.github.verbs4j.examples.perftest.SendLat;
import io.github.verbs4j.examples.perftest.WriteBw;
import io.github.verbs4j.examples.perftest.WriteLat;
import io.github.verbs4j.examples.srqfc.SrqFcCommand;
import io.github.verbs4j.verbs.VerbsException;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code verbs4j} command. {@code verbs4j run -n N <program>} starts a job of N processes;
 * without {@code run}, a program runs as one rank of a job whose rank and size come from the
 * configuration ({@code verbs.rank}/{@code verbs.size}) or from Slurm / Open MPI.
 *
 * <p>Exit codes: 0 success, 1 a failure while running (the message goes to stderr), 2 a bad
 * argument (picocli names it and prints the usage).
 */
@Command(name = "verbs4j", mixinStandardHelpOptions = true, versionProvider = Version.class,
    description = "verbs4j: the launcher, perftest-style benchmarks and Himeno over the verbs4j simulated fabric.",
    subcommands = {RunCommand.class, Demo.class, SendLat.class, WriteLat.class, ReadLat.class, AtomicLat.class, SendBw.class,
        WriteBw.class, ReadBw.class, Compare.class, Reproduce.class, SoakCommand.class, FloodBench.class, HimenoCommand.class, GmpiArgsCommand.class,
        GmpiPingPongCommand.class, GmpiHimenoCommand.class, PlotCommand.class, MemoryModelCommand.class,
        MpMemoryCommand.class, MpLatencyCommand.class,
        SrqFcCommand.class, ProbeCommand.class, HelpCommand.class})
public final class Main implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "Missing required subcommand");
  }

  /**
   * @return the configured command line, for {@link #main} and tests
   */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Main()).setCaseInsensitiveEnumValuesAllowed(true);
    // --jvm-opt=-Dkey=value: a JVM option is a value, though it looks like run's own -D
    cl.getSubcommands().get("run").setStopAtPositional(true).setAllowOptionsAsOptionParameters(true);
    cl.setExecutionExceptionHandler((e, cmd, parseResult) -> {
      PrintWriter err = cmd.getErr();
      if (e instanceof CompletionError) {
        err.println(e.getMessage());
      } else if (e instanceof VerbsException || e instanceof IllegalArgumentException
          || e instanceof IllegalStateException || e instanceof WaitTimeoutException
          || e instanceof UncheckedIOException) {
        err.println(cmd.getCommandName() + ": " + e.getMessage());
      } else {
        err.println(cmd.getCommandName() + ": " + e);
        e.printStackTrace(err);
      }
      err.flush();
      return 1;
    });
    return cl;
  }

  /**
   * Runs the command and exits with its code.
   *
   * @param args the arguments
   */
  public static void main(String[] args) {
    ParentWatch.startFromSystemProperty();
    // A program's thread posts, polls and, with caller progress, does the fabric's socket I/O.
    // Netty 4.2 recycles its buffer and write objects only on FastThreadLocal threads: on a plain
    // thread the netty fabric's path allocates ~850 B per SEND round trip, on this one nothing
    // (docs/benchmarks.md, allocation). The raw Netty baselines run on this thread too.
    int[] code = new int[1];
    FastThreadLocalThread.runWithFastThreadLocal(() -> code[0] = commandLine().execute(args));
    System.exit(code[0]);
  }
}
