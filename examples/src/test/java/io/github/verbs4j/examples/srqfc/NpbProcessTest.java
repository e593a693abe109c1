package io.github.verbs4j.examples.srqfc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.srqfc.NpbTrace.Kind;
import io.github.verbs4j.examples.srqfc.NpbTrace.Op;
import io.github.verbs4j.examples.testing.InJvmJob;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.config.VerbsConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The one-process-per-rank replay ({@link NpbProcess}) with its ranks as threads of this JVM, each
 * with its own context on the threaded in-JVM fabric in modelled time (what {@code verbs4j run -n
 * 4} does with processes over netty): SP class A, 4 ranks, one step.
 */
class NpbProcessTest {
  private static int jobs;

  /** Runs {@code task(rank, config)} on 4 threads, each rank's configuration on one new fabric. */
  private static <T> List<T> onFourRanks(RankTask<T> task) throws Exception {
    String fabric = "npb-process-test-" + ProcessHandle.current().pid() + "-" + (++jobs);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<T>> fs = new ArrayList<>();
      for (int r = 0; r < 4; r++) {
        VerbsConfig cfg = InJvmJob.config(fabric, r, 4);
        int rank = r;
        fs.add(pool.submit(() -> task.run(rank, cfg)));
      }
      List<T> out = new ArrayList<>();
      for (Future<T> f : fs) {
        out.add(f.get(300, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  private interface RankTask<T> {
    T run(int rank, VerbsConfig cfg) throws Exception;
  }

  private static NpbReplay.Result run(int depth, NpbReplay.Mechanism m) throws Exception {
    NpbReplay.Setup s = new NpbReplay.Setup(NpbBench.SP, 4, 1, depth, m, 2.0, SrqFcParameters.T_POLL_NANOS,
        SrqFcParameters.T_INT_NANOS, SrqFcParameters.T_SETEV_NANOS);
    return onFourRanks((rank, cfg) -> {
      MeterRegistry meters = new SimpleMeterRegistry();
      try (Context ctx = NpbProcess.open(cfg, m, SrqFcParameters.T_POLL_NANOS, meters)) {
        return NpbProcess.run(s, ctx, meters, "npb-test", 10);
      }
    }).get(0);
  }

  @Test
  void fourRanksRunTheTraceAndEachMechanismActs() throws Exception {
    NpbReplay.Result unlimited = run(64, NpbReplay.Mechanism.STOP_RESEND);
    NpbReplay.Result stop = run(1, NpbReplay.Mechanism.STOP_RESEND);
    NpbReplay.Result rnr = run(1, NpbReplay.Mechanism.RNR);
    String text = unlimited + "\n" + stop + "\n" + rnr;
    assertEquals(180, unlimited.pieces(), text);
    assertEquals(0, unlimited.stops() + unlimited.rnrNaks(), text);
    assertTrue(stop.stops() > 0 && stop.rnrNaks() == 0 && stop.limitEvents() == 0, text);
    assertTrue(rnr.rnrNaks() > 0 && rnr.limitEvents() > 0 && rnr.stops() == 0, text);
    // no flow control: the same computation and messages as the deterministic replay, whose run
    // time NpbReplayTest pins; threads that run late in wall time can only add to it (a post after
    // an arrival from a peer ahead leaves at the arrival's time), mostly by 0.4-1.6 %, at times by
    // up to 23 % (docs/srq-flow-control.md)
    assertTrue(unlimited.runNanos() >= 26_665_364 * 0.99 && unlimited.runNanos() < 26_665_364 * 2, text);
    assertTrue(stop.runNanos() > unlimited.runNanos() && rnr.runNanos() > unlimited.runNanos(), text);
  }

  /**
   * The application's timeline (issue 19): rank 0 computes 5 ms quickly in wall time (pace 0.1) and
   * sends; rank 1, slow in wall time (pace 200), computes 0.5 ms, during which the message reaches
   * its device and moves the device's clock to 5 ms, then 1 ms more, then receives. Its 1 ms is
   * its own, not after the arrival: the receive completes at the message's arrival, 5 ms and a
   * few microseconds (on the node clock, before: 6 ms and more).
   */
  @Test
  void aMessageFromARankAheadDoesNotPushTheComputationBack() throws Exception {
    NpbReplay.Setup s = new NpbReplay.Setup(NpbBench.SP, 2, 1, 64, NpbReplay.Mechanism.STOP_RESEND, 2.0,
        SrqFcParameters.T_POLL_NANOS, SrqFcParameters.T_INT_NANOS, SrqFcParameters.T_SETEV_NANOS);
    List<Op> sender = List.of(new Op(Kind.COMPUTE, -1, 0, 0, 5_000_000), new Op(Kind.ISEND, 1, 1, 1024, 0),
        new Op(Kind.WAIT, -1, 0, 0, 0));
    List<Op> receiver = List.of(new Op(Kind.COMPUTE, -1, 0, 0, 500_000), new Op(Kind.COMPUTE, -1, 0, 0, 1_000_000),
        new Op(Kind.IRECV, 0, 1, 1024, 0), new Op(Kind.WAIT, -1, 0, 0, 0));
    String fabric = "npb-process-test-" + ProcessHandle.current().pid() + "-" + (++jobs);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<NpbReplay.Result>> fs = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        VerbsConfig cfg = InJvmJob.config(fabric, r, 2);
        double pace = r == 0 ? 0.1 : 200;
        fs.add(pool.submit(() -> {
          MeterRegistry meters = new SimpleMeterRegistry();
          try (Context ctx = NpbProcess.open(cfg, s.mechanism(), s.tPollNanos(), meters)) {
            return NpbProcess.run(s, rank -> rank == 0 ? sender : receiver, ctx, meters, "npb-ahead", pace);
          }
        }));
      }
      NpbReplay.Result total = fs.get(0).get(300, TimeUnit.SECONDS);
      NpbReplay.Result rx = fs.get(1).get(300, TimeUnit.SECONDS);
      String text = total + "\n" + rx;
      assertEquals(1, total.pieces(), text);
      // rank 1's own run: from the common start to its receive, the message's 5 ms and its way
      assertTrue(rx.runNanos() >= 5_000_000 && rx.runNanos() < 5_500_000, text);
      assertTrue(total.runNanos() >= rx.runNanos() && total.runNanos() < 5_500_000, text);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void rankZeroPrintsTheTableOtherRanksNothing() throws Exception {
    List<String> outs = onFourRanks((rank, cfg) -> {
      NpbCommand c = new NpbCommand();
      c.config = cfg;
      StringWriter w = new StringWriter();
      CommandLine cl = new CommandLine(c);
      cl.setOut(new PrintWriter(w));
      int exit = cl.execute("--bench", "sp", "--procs", "4", "--steps", "1", "--sizes", "1,2", "--unlimited", "64",
          "--flow", "stop-resend");
      return exit + "\n" + w;
    });
    String zero = outs.get(0);
    assertTrue(zero.startsWith("0\n# NPB sp class A, 4 processes, 1 of 400 time steps replayed"), zero);
    assertTrue(zero.contains("one process a rank, fabric local, modelled time"), zero);
    // one mechanism a run: the other's columns are NaN; the context serves every run of the command
    assertTrue(zero.matches("(?s).*\n     1       32          NaN         0         0 +\\d+\\.\\d{4} +[1-9]\\d* .*"), zero);
    assertTrue(zero.matches("(?s).*\n     2       64          NaN         0         0 .*smallest SRQ with increase.*"),
        zero);
    for (int r = 1; r < 4; r++) {
      assertEquals("0\n", outs.get(r), "rank " + r);
    }
  }
}
