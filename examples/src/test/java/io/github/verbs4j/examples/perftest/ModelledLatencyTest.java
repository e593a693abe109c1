package io.github.verbs4j.examples.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.testing.InJvmJob;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The ib provider's {@code send_lat} in modelled time, with default settings, on two in-JVM ranks
 * of the threaded local fabric: no timer ever moves the modelled clock ahead of the replies (issue
 * 18: the old wall-clock safety net jumped it by 2^13 or 2^14 × 4.096 µs), so every iteration
 * costs about the same modelled time. Modelled time does not depend on the machine's load, so the
 * figures are pinned.
 */
class ModelledLatencyTest {
  private static final Map<String, String> MODELLED = Map.of("verbs.time", "modelled");

  private static LatencyStats modelledSendLat(long size) throws Exception {
    List<List<ResultRow>> rows = InJvmJob.IB.run(2, MODELLED, ctx -> {
      SendLat p = new SendLat();
      new CommandLine(p).parseArgs("-s", Long.toString(size), "-n", "300");
      PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
      p.streams(quiet, quiet);
      return p.run(ctx, VerbsConfig.of(MODELLED), p.validate());
    });
    ResultRow m = rows.get(0).stream().filter(r -> r.clock().equals("modelled")).findFirst().orElseThrow();
    return m.latency();
  }

  @Test
  void modelledSendLatencyHasNoTimerJumpsAtAnySize() throws Exception {
    for (long size : new long[] {2, 1024, 16384}) {
      LatencyStats s = modelledSendLat(size);
      assertTrue(Math.abs(s.tAvg() - s.tTypical()) <= 0.2 * s.tTypical(), size + " B: t_avg within 20 % of t_typical: " + s);
      assertTrue(s.tMax() < 10 * s.tTypical(), size + " B: t_max below 10 x t_typical: " + s);
    }
  }

  @Test
  void theConnectX3QdrProfileGivesSeed000sAtomicLatency() throws Exception {
    Map<String, String> qdr = Map.of("verbs.time", "modelled", "verbs.ib.profile", "connectx3-qdr");
    List<List<ResultRow>> rows = InJvmJob.IB.run(2, qdr, ctx -> {
      AtomicLat p = new AtomicLat();
      new CommandLine(p).parseArgs("-n", "200");
      PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
      p.streams(quiet, quiet);
      return p.run(ctx, VerbsConfig.of(qdr), p.validate());
    });
    LatencyStats s = rows.get(0).stream().filter(r -> r.clock().equals("modelled")).findFirst().orElseThrow().latency();
    // seed 000: InfiniBand CAS/FAA 1.5 us (the profile's per-packet cost is fitted to it)
    assertEquals(1.5, s.tTypical(), 0.15, s.toString());
  }

  @Test
  void modelledSendLatencyIsPinnedAndRepeats() throws Exception {
    LatencyStats a = modelledSendLat(2);
    LatencyStats b = modelledSendLat(2);
    // 2 B on the default link (200 ns, 12.5 GB/s, 100 ns switch) and HCA costs: RTT/2 ~ 0.8 us
    assertEquals(0.85, a.tTypical(), 0.1, a.toString());
    assertEquals(a.tTypical(), b.tTypical(), 0.1, "run to run, one charge at most: " + a + " / " + b);
    // Single iterations still move by one charge (~0.1 us) with which thread charges first on the
    // threaded local fabric, so the median may flip between two neighbouring values (0.805 / 0.855
    // seen in a cold JVM) and the mean repeats within a few per cent, not exactly (#18).
    assertEquals(a.tAvg(), b.tAvg(), 0.05 * a.tAvg(), "run to run: " + a + " / " + b);
  }
}
