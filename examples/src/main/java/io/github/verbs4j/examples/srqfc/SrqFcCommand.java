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
 * modelled. Stop-resend and RNR are measured in modelled time on the in-JVM fabric ({@link
 * EventCost}); the limit-event refill (MVAPICH) is the sum of its named parameters t_int and
 * t_setev plus the modelled one-way latency of the packet that crossed the limit, because the
 * device does not charge an interrupt in modelled time yet. A skeleton: see docs/srq-flow-control.md
 * for which figures can be trusted.
 */
@Command(name = "srq-fc", mixinStandardHelpOptions = true, sortOptions = false,
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

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    long oneWay = EventCost.measure(EventCost.Mode.NONE, tPoll, size);
    long stop = EventCost.measure(EventCost.Mode.STOP_RESEND, tPoll, size);
    long rnr = EventCost.measure(EventCost.Mode.RNR, tPoll, size);
    long limit = oneWay < 0 ? -1 : tInt + tSetev + oneWay;
    out.printf(Locale.ROOT, "# seed 002, one flow-control event, %d B SEND; t_int %.2f us, t_setev %.2f us, "
        + "t_poll %.2f us (the paper)%n", size, tInt / 1e3, tSetev / 1e3, tPoll / 1e3);
    out.printf(Locale.ROOT, "%-28s %10s %12s %8s  %s%n", "mechanism", "paper us", "modelled us", "ratio", "how");
    row(out, "limit-event refill", SrqFcParameters.PAPER_LIMIT_EVENT_NANOS, limit,
        "t_int + t_setev + modelled one-way (predicted; no interrupt modelled yet)");
    row(out, "stop-resend", SrqFcParameters.PAPER_STOP_RESEND_NANOS, stop, "measured: SEND post to RECV completion");
    row(out, "rnr (min_rnr_timer 0.01 ms)", -1, rnr, "measured: SEND post to RECV completion");
    row(out, "no flow control (one-way)", -1, oneWay, "measured: receive posted first");
    out.flush();
    return 0;
  }

  private static void row(PrintWriter out, String name, long paper, long modelled, String how) {
    String p = paper < 0 ? "-" : String.format(Locale.ROOT, "%.2f", paper / 1e3);
    String m = modelled < 0 ? "n/a" : String.format(Locale.ROOT, "%.2f", modelled / 1e3);
    String r = paper < 0 || modelled < 0 ? "-" : String.format(Locale.ROOT, "%.3f", (double) modelled / paper);
    out.printf(Locale.ROOT, "%-28s %10s %12s %8s  %s%n", name, p, m, r, how);
  }
}
