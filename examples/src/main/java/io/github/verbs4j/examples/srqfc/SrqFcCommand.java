package io.github.verbs4j.examples.srqfc;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code verbs4j srq-fc}: the cost of one SRQ flow-control event (seed 002 §4.1), paper against
 * modelled. Every row is measured by running the event in modelled time on the in-JVM fabric
 * ({@link EventCost}): the limit-event refill (MVAPICH) raises SRQ_LIMIT_REACHED and the refill
 * thread charges the named parameters t_int and t_setev on its node's clock; stop-resend waits
 * for the device's poll (t_poll) and the resend round trip. Deterministic: the same figures every
 * run (docs/srq-flow-control.md). {@code --scaling} repeats the event with several senders at
 * once; subcommands {@code npb} (the NPB buffer study, {@link NpbCommand}) and {@code stress}
 * (issue 19's full-size stress, {@link StressCommand}).
 */
@Command(name = "srq-fc", mixinStandardHelpOptions = true, sortOptions = false, subcommands = {NpbCommand.class, StressCommand.class},
    description = {"Seed 002: cost of one SRQ flow-control event in modelled time, against the paper "
        + "(92.8 us limit-event refill, 4.51 us stop/resend).",
        "Runs two ib contexts in this JVM on the local fabric with verbs.time=modelled."})
public final class SrqFcCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--t-poll-ns", paramLabel = "NS", defaultValue = "2180",
      description = "t_poll, the device's SRQ poll interval (default: ${DEFAULT-VALUE}, seed 002 §4.1.3).")
  long tPoll;

  @Option(names = "--t-int-ns", paramLabel = "NS", defaultValue = "35000",
      description = "t_int, limit interrupt to refill thread (default: ${DEFAULT-VALUE}, seed 002 §4.1.3).")
  long tInt;

  @Option(names = "--t-setev-ns", paramLabel = "NS", defaultValue = "55900",
      description = "t_setev, re-arming the limit event (default: ${DEFAULT-VALUE}, seed 002 §4.1.3).")
  long tSetev;

  @Option(names = "--size", paramLabel = "BYTES", defaultValue = "64",
      description = "SEND size (default: ${DEFAULT-VALUE}, the paper's packet).")
  int size;

  @Option(names = "--scaling", paramLabel = "N,...", split = ",",
      description = "Also run the event with each of these numbers of senders (1..64), all sending at once "
          + "into the one SRQ, e.g. 1,2,4,8,16,32,64.")
  java.util.List<Integer> scaling;

  /** Runs of each event; the least is reported ({@link #best}). */
  static final int RUNS = 3;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    long oneWay = best(EventCost.Mode.NONE);
    long stop = best(EventCost.Mode.STOP_RESEND);
    long rnr = best(EventCost.Mode.RNR);
    long limit = best(EventCost.Mode.LIMIT_EVENT);
    out.printf(Locale.ROOT, "# seed 002, one flow-control event, %d B SEND; t_int %.2f us, t_setev %.2f us, "
        + "t_poll %.2f us (the paper)%n", size, tInt / 1e3, tSetev / 1e3, tPoll / 1e3);
    out.printf(Locale.ROOT, "%-28s %10s %12s %8s  %s%n", "mechanism", "paper us", "modelled us", "ratio", "how");
    row(out, "limit-event refill", SrqFcParameters.PAPER_LIMIT_EVENT_NANOS, limit,
        "measured: SEND post to limit re-armed (t_int, refill, t_setev charged)");
    row(out, "stop-resend", SrqFcParameters.PAPER_STOP_RESEND_NANOS, stop, "measured: SEND post to RECV completion");
    row(out, "rnr (min_rnr_timer 0.01 ms)", -1, rnr, "measured: SEND post to RECV completion");
    row(out, "no flow control (one-way)", -1, oneWay, "measured: receive posted first");
    if (scaling != null && !scaling.isEmpty()) {
      out.printf(Locale.ROOT, "%n# N senders each post one SEND at t1 into the one SRQ; until the last receive completes "
          + "(limit event: and the limit is re-armed), us%n");
      out.printf(Locale.ROOT, "%8s %14s %14s %14s %14s %16s%n", "senders", "limit-event", "stop-resend", "rnr",
          "no fc", "stop-resend/N");
      for (int n : scaling) {
        if (n < 1 || n > EventCost.REFILL) {
          throw new picocli.CommandLine.ParameterException(spec.commandLine(),
              "--scaling value " + n + " must be 1.." + EventCost.REFILL);
        }
        long l = best(EventCost.Mode.LIMIT_EVENT, n);
        long s = best(EventCost.Mode.STOP_RESEND, n);
        long r = best(EventCost.Mode.RNR, n);
        long o = best(EventCost.Mode.NONE, n);
        out.printf(Locale.ROOT, "%8d %14.2f %14.2f %14.2f %14.2f %16.2f%n", n, l / 1e3, s / 1e3, r / 1e3, o / 1e3,
            s / 1e3 / n);
        out.flush();
      }
    }
    out.flush();
    return 0;
  }

  /**
   * The least of {@link #RUNS} runs of one event: on a loaded host the receiving thread can be
   * descheduled between the refusal and its post, and the device's idle polls or timers then run
   * first (each adds whole poll intervals); an undisturbed run gives the same figure every time.
   */
  private long best(EventCost.Mode mode) throws Exception {
    return best(mode, 1);
  }

  private long best(EventCost.Mode mode, int senders) throws Exception {
    long best = -1;
    for (int i = 0; i < RUNS; i++) {
      long v = EventCost.measure(mode, tPoll, size, tInt, tSetev, senders);
      if (v >= 0 && (best < 0 || v < best)) {
        best = v;
      }
    }
    return best;
  }

  private static void row(PrintWriter out, String name, long paper, long modelled, String how) {
    String p = paper < 0 ? "-" : String.format(Locale.ROOT, "%.2f", paper / 1e3);
    String m = modelled < 0 ? "n/a" : String.format(Locale.ROOT, "%.2f", modelled / 1e3);
    String r = paper < 0 || modelled < 0 ? "-" : String.format(Locale.ROOT, "%.3f", (double) modelled / paper);
    out.printf(Locale.ROOT, "%-28s %10s %12s %8s  %s%n", name, p, m, r, how);
  }
}
