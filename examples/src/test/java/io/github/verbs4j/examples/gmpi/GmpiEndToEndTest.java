package io.github.verbs4j.examples.gmpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.mp.Communicator;
import io.github.verbs4j.examples.mp.MpConfig;
import io.github.verbs4j.examples.mp.VerbsCommunicator;
import io.github.verbs4j.verbs.MemoryKind;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * Every GMPI function from a running kernel on two ranks, the ping-pong byte-exact up to 4 MiB
 * against the host-driven baseline, and their modelled latencies pinned, on ib and tca over the
 * local fabric.
 */
class GmpiEndToEndTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(120);
  private static final MpConfig MP = MpConfig.defaults().withTimeout(TIMEOUT);
  /** rank 1's four serial calls bound the GMPI round trip (paper profile) while m is below this */
  /**
   * The paper profile's predicted 4 B ratio (host-driven / GMPI) for a message of one-way time m:
   * {@code (10.9 + m) / max(13.17 + m, 16.95)} µs — rank 0's path or rank 1's four calls,
   * whichever is longer (docs/gmpi.md, study 2).
   */
  static double paperRatio(double messageNanos) {
    return (10_900 + messageNanos) / Math.max(13_170 + messageNanos, 16_951);
  }

  @ParameterizedTest
  @ValueSource(strings = {"ib", "tca"})
  void everyGmpiFunctionWorksFromInsideAKernel(String provider) throws Exception {
    List<List<Object>> results = InJvmRanks.run(provider, 2, ctx -> {
      try (Communicator comm = VerbsCommunicator.open(ctx, MP);
          GmpiNode node = GmpiNode.open(ctx, comm, FabricTimes.measure(ctx, comm, DeviceMemory.kindOf(ctx), new int[] {8}, 1),
              AcceleratorCosts.PAPER, 1024, 1, TIMEOUT)) {
        int rank = comm.rank();
        int peer = 1 - rank;
        DeviceMemory mem = node.memory();
        long src = mem.malloc(800);
        long dst = mem.malloc(800);
        long red = mem.malloc(16);
        long[] dsts = {mem.malloc(8), mem.malloc(8)};
        List<Object> out = new ArrayList<>();
        out.add(ctx.job().rank() + "/" + rank);
        Gmpi g = node.gmpi();
        node.accelerator().launch(1, 1, warp -> {
          ByteBuffer s = mem.resolve(src, 800);
          for (int i = 0; i < 100; i++) {
            s.putLong(i * 8, rank * 1000L + i);
          }
          long send = g.isend(warp, src, 100, Datatype.LONG, peer, 1);
          long recv = g.irecv(warp, dst, 100, Datatype.LONG, Gmpi.ANY, 1);
          out.add(g.await(warp, recv));
          out.add(g.lastSource(warp));
          out.add(g.lastTag(warp));
          g.await(warp, send);
          out.add(mem.resolve(dst, 800).getLong(99 * 8));
          // Waitall over two sends and two receives
          long[] h = new long[4];
          for (int t = 0; t < 2; t++) {
            mem.resolve(src + t * 8, 8).putLong(0, 7_000L * (rank + 1) + t);
            h[t] = g.isend(warp, src + t * 8, 1, Datatype.LONG, peer, 10 + t);
            h[2 + t] = g.irecv(warp, dsts[t], 1, Datatype.LONG, peer, 10 + t);
          }
          g.waitall(warp, h);
          out.add(mem.resolve(dsts[0], 8).getLong(0));
          out.add(mem.resolve(dsts[1], 8).getLong(0));
          // Allreduce in place, doubles and longs
          mem.resolve(red, 16).putDouble(0, rank + 1.0).putDouble(8, 0.5);
          g.allreduce(warp, red, 2, Datatype.DOUBLE, Gmpi.SUM);
          out.add(mem.resolve(red, 16).getDouble(0));
          out.add(mem.resolve(red, 16).getDouble(8));
          mem.resolve(red, 16).putLong(0, 10L * rank - 3).putLong(8, -rank);
          g.allreduce(warp, red, 2, Datatype.LONG, Gmpi.MAX);
          out.add(mem.resolve(red, 16).getLong(0));
          out.add(mem.resolve(red, 16).getLong(8));
          // Synchronize completes what is still open
          g.isend(warp, src, 4, Datatype.BYTE, peer, 20);
          long last = g.irecv(warp, dst, 4, Datatype.BYTE, peer, 20);
          g.synchronize(warp);
          out.add(node.daemon().served());
          // a bad handle fails the call with the host's reason
          try {
            g.await(warp, last);
            out.add("no error");
          } catch (GmpiException e) {
            out.add(e.getMessage());
          }
          out.add(mem.deviceKind());
        }, node.hostClock()).synchronize(node.hostClock(), KernelRun.Sync.STREAM, TIMEOUT);
        return out;
      }
    });
    for (int rank = 0; rank < 2; rank++) {
      List<Object> r = results.get(rank);
      int peer = 1 - rank;
      assertEquals(rank + "/" + rank, r.get(0), "job rank / communicator rank");
      assertEquals(800L, r.get(1), "received length");
      assertEquals(peer, r.get(2), "source");
      assertEquals(1, r.get(3), "tag");
      assertEquals(peer * 1000L + 99, r.get(4), "last long received");
      assertEquals(7_000L * (peer + 1), r.get(5));
      assertEquals(7_000L * (peer + 1) + 1, r.get(6));
      assertEquals(3.0, r.get(7));
      assertEquals(1.0, r.get(8));
      assertEquals(7L, r.get(9));
      assertEquals(0L, r.get(10));
      assertEquals(14L, r.get(11), "requests served before the error");
      assertTrue(((String) r.get(12)).matches("GMPI_Wait \\(ticket 14\\) failed on the host: GMPI_Wait: request handle \\d+ "
          + "is not an open request"), (String) r.get(12));
      assertEquals("tca".equals(provider) ? MemoryKind.DEVICE : MemoryKind.HOST, r.get(13), "device memory kind");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"ib", "tca"})
  void pingPongIsByteExactUpToFourMebibytesAndItsModelledLatenciesArePinned(String provider) throws Exception {
    int[] sizes = {4, 2048, 131072, 4 << 20};
    List<double[]> results = InJvmRanks.run(provider, 2, ctx -> {
      try (Communicator comm = VerbsCommunicator.open(ctx, MP)) {
        FabricTimes fabric = FabricTimes.measure(ctx, comm, DeviceMemory.kindOf(ctx), sizes, 4);
        double[] out = new double[sizes.length * 5];
        for (int i = 0; i < sizes.length; i++) {
          for (int p = 0; p < 2; p++) {
            AcceleratorCosts costs = p == 0 ? AcceleratorCosts.PAPER : AcceleratorCosts.H200;
            out[i * 5 + p * 2] =
                PingPong.hostDriven(ctx, comm, fabric, costs, sizes[i], 3, TIMEOUT).modelledHalfRoundTripNanos();
            comm.barrier();
            out[i * 5 + p * 2 + 1] =
                PingPong.gmpi(ctx, comm, fabric, costs, sizes[i], 3, TIMEOUT).modelledHalfRoundTripNanos();
            comm.barrier();
          }
          out[i * 5 + 4] = fabric.messageNanos(sizes[i]);
        }
        return out;
      }
    });
    double[] r = results.get(0);
    for (int i = 0; i < sizes.length; i++) {
      // the fabric's one-way time, plus reading device memory (ib: staged through host memory)
      long msg = (long) r[i * 5 + 4] + ("ib".equals(provider) ? AcceleratorCosts.PAPER.deviceReadNanos(sizes[i]) : 0);
      assertTrue(msg > 0, "fabric time at " + sizes[i]);
      // host-driven: launch + stream sync, then the message, on each side
      assertEquals(10_900 + msg, r[i * 5], 0.0, "paper host-driven at " + sizes[i]);
      assertEquals(8_950 + msg, r[i * 5 + 2], 0.0, "h200 host-driven at " + sizes[i]);
      // GMPI (docs/gmpi.md): rank 0's path, msg + 1.5 answers + half a 0-argument request + a
      // 6-argument request, or rank 1's four calls (4 answers, 2 six-, 1 one- and 1 zero-argument
      // requests) per round trip, whichever is longer
      assertEquals(Math.max(msg + 8_250 + 828 + 4_092, 16_951), r[i * 5 + 1], 0.0, "paper GMPI at " + sizes[i]);
      assertEquals(Math.max(msg + 1_725 + 575 + 1_150, 4_600), r[i * 5 + 3], 0.0, "h200 GMPI at " + sizes[i]);
    }
    // predicted, paper profile: figure 7 within 10 points at 2 KiB and 128 KiB on both providers
    assertEquals(0.9, r[5] / r[6], 0.1, "2 KiB");
    assertEquals(1.0, r[10] / r[11], 0.1, "128 KiB");
    assertEquals(1.0, r[15] / r[16], 0.01, "4 MiB");
    if ("ib".equals(provider)) { // and at 4 B on ib (m = 0.86 us: rank 1's four calls set the pace)
      assertEquals(0.7, r[0] / r[1], 0.1, "4 B");
    } else { // tca's longer m (3.6 us) misses the 0.7 (docs/gmpi.md): the model's ratio for that m
      assertEquals(paperRatio(r[4]), r[0] / r[1], 1e-9, "4 B on tca, m = " + r[4] + " ns");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"ib", "tca"})
  void thePingPongProgramPrintsModelledRatiosBesideThePapers(String provider) throws Exception {
    ByteArrayOutputStream report = new ByteArrayOutputStream();
    InJvmRanks.run(provider, 2, ctx -> {
      GmpiPingPongCommand cmd = new GmpiPingPongCommand();
      new CommandLine(cmd).parseArgs("--sizes", "4,16,2048,8192", "--iters", "3", "--profile", "paper");
      try (Communicator comm = VerbsCommunicator.open(ctx, MP)) {
        if (comm.rank() == 0) {
          cmd.output(new PrintStream(report, true, StandardCharsets.UTF_8));
        }
        cmd.run(ctx, comm, provider + ", fabric local");
      }
      return null;
    });
    String text = report.toString(StandardCharsets.UTF_8);
    assertTrue(text.startsWith("fabric one-way times on the node clock: 4 B: "), text);
    assertTrue(text.contains("GMPI ping-pong vs host-driven, profile paper, " + provider + ", fabric local, 3 iterations"),
        text);
    assertArrayEquals(new int[] {4, 16, 2048, 8192}, cmd(text));
    // predicted, paper profile: within 10 points of figure 7 at 2 KiB and 8 KiB (0.9, 1.0), and at
    // 4 B (0.7) on ib; tca's longer 4 B message misses it (docs/gmpi.md); 16 B gets about the 4 B
    // ratio, below the paper's 0.8
    double[] ratios = text.lines().skip(3).filter(l -> !l.isBlank()).mapToDouble(l -> Double.parseDouble(
        l.trim().split("\\s+")[3])).toArray();
    if ("ib".equals(provider)) {
      assertEquals(0.7, ratios[0], 0.1, "4 B in\n" + text);
    } else {
      assertEquals(paperRatio(fourByteNanos(text)), ratios[0], 0.002, "4 B in\n" + text);
    }
    assertEquals(ratios[0], ratios[1], 0.03, "16 B as 4 B in\n" + text);
    assertEquals(0.9, ratios[2], 0.1, "2 KiB in\n" + text);
    assertEquals(1.0, ratios[3], 0.1, "8 KiB in\n" + text);
  }

  /** @return the 4 B one-way time in ns from a report's first line ("...: 4 B: 5.08 us, ...") */
  static double fourByteNanos(String text) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("node clock: 4 B: ([0-9.]+) us").matcher(text);
    if (!m.find()) {
      throw new AssertionError("no 4 B fabric time in\n" + text);
    }
    return Double.parseDouble(m.group(1)) * 1e3;
  }

  private static int[] cmd(String text) {
    return text.lines().skip(3).filter(l -> !l.isBlank()).mapToInt(l -> Integer.parseInt(l.trim().split("\\s+")[0]))
        .toArray();
  }
}
