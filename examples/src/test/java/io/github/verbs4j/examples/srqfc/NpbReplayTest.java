package io.github.verbs4j.examples.srqfc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.Main;
import io.github.verbs4j.examples.srqfc.NpbTrace.Kind;
import io.github.verbs4j.examples.srqfc.NpbTrace.Op;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The NPB trace replay of seed 002 §4.2 on a small case: SP class A on 4 processes, one time step,
 * on the deterministic in-JVM fabric. Modelled time is exact there (one event loop), so the run
 * times are pinned to the nanosecond and a second run must give the same figures.
 */
class NpbReplayTest {
  private static NpbReplay.Result run(int depth, NpbReplay.Mechanism m) throws Exception {
    return NpbReplay.run(new NpbReplay.Setup(NpbBench.SP, 4, 1, depth, m, 2.0, SrqFcParameters.T_POLL_NANOS,
        SrqFcParameters.T_INT_NANOS, SrqFcParameters.T_SETEV_NANOS));
  }

  @Test
  void everySendHasItsReceiveAndTheSizesFollowTheBenchmarks() {
    for (NpbBench b : NpbBench.values()) {
      for (int procs : new int[] {4, 9, 100, 196}) {
        List<String> sends = new ArrayList<>();
        List<String> recvs = new ArrayList<>();
        int q = NpbTrace.cells(procs);
        for (int r = 0; r < procs; r++) {
          int n = 0;
          for (Op op : NpbTrace.step(b, procs, r, 2.0)) {
            if (op.kind() == Kind.ISEND) {
              sends.add(r + ">" + op.peer() + "#" + op.tag());
              n++;
            } else if (op.kind() == Kind.IRECV) {
              recvs.add(op.peer() + ">" + r + "#" + op.tag());
            }
          }
          assertEquals(6 + 3 * 2 * (q - 1), n, b + " " + procs + " rank " + r + ": six faces, 2(q-1) stages a sweep");
        }
        Collections.sort(sends);
        Collections.sort(recvs);
        assertEquals(sends, recvs, b + " " + procs);
      }
    }
    // BT at 196 (q = 14, MAX_CELL_DIM 5): 5^2 x 30 doubles forward, 5^2 x 5 back
    List<Integer> bt = NpbTrace.step(NpbBench.BT, 196, 0, 2.0).stream().filter(o -> o.kind() == Kind.ISEND && o.tag() >= 7)
        .map(Op::bytes).distinct().sorted().toList();
    assertEquals(List.of(1000, 6000), bt);
    assertThrows(IllegalArgumentException.class, () -> NpbTrace.cells(50));
  }

  @Test
  void smallSpRunIsExactAndEachMechanismActs() throws Exception {
    NpbReplay.Result unlimited = run(64, NpbReplay.Mechanism.STOP_RESEND);
    NpbReplay.Result stop = run(1, NpbReplay.Mechanism.STOP_RESEND);
    NpbReplay.Result rnr = run(1, NpbReplay.Mechanism.RNR);
    String text = unlimited + "\n" + stop + "\n" + rnr;
    assertEquals(0, unlimited.stops() + unlimited.rnrNaks(), text);
    assertEquals(180, unlimited.pieces(), text);
    assertTrue(stop.stops() > 0 && stop.rnrNaks() == 0, text);
    assertTrue(rnr.rnrNaks() > 0 && rnr.limitEvents() > 0 && rnr.stops() == 0, text);
    assertTrue(stop.runNanos() > unlimited.runNanos() && rnr.runNanos() > stop.runNanos(), text);
    assertEquals(UNLIMITED_NANOS, unlimited.runNanos(), text);
    assertEquals(STOP_1_NANOS, stop.runNanos(), text);
    assertEquals(RNR_1_NANOS, rnr.runNanos(), text);
    assertEquals(stop, withWall(run(1, NpbReplay.Mechanism.STOP_RESEND), stop), "a second run is the same");
  }

  // Since the ib HCA sends and receives on separate timelines (-32.6 / -27.2 / -31.1 us) and each
  // received packet is processed at its own arrival, its answers sent by the responder's engine
  // (-1.0 / -1.0 / -14.1 us), against the figures before (26,664,812 / 26,669,804 / 26,715,297;
  // with packet trains 26,665,364 / 26,693,930 / 26,800,433; docs/srq-flow-control.md)
  private static final long UNLIMITED_NANOS = 26_631_241;
  private static final long STOP_1_NANOS = 26_641_612;
  private static final long RNR_1_NANOS = 26_670_117;

  /** @return {@code r} with {@code like}'s wall time and memory (which vary), to compare the rest */
  private static NpbReplay.Result withWall(NpbReplay.Result r, NpbReplay.Result like) {
    return new NpbReplay.Result(r.runNanos(), r.stops(), r.rnrNaks(), r.limitEvents(), r.pieces(), like.wallNanos(),
        like.heapBytes(), like.residentBytes());
  }

  @Test
  void theCommandPrintsTheTableAndTheSmallestSizes() {
    CommandLine cl = Main.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    assertEquals(0, cl.execute("srq-fc", "npb", "--bench", "sp", "--procs", "4", "--steps", "1", "--sizes", "1,4",
        "--unlimited", "64"), err.toString());
    String text = out.toString();
    assertTrue(text.contains("smallest SRQ with increase <= 0.10 %"), text);
    assertTrue(text.lines().anyMatch(l -> l.trim().startsWith("1 ")) && text.lines().anyMatch(l -> l.trim().startsWith("4 ")),
        text);
    assertEquals(2, cl.execute("srq-fc", "npb", "--procs", "50"), "not a square");
    assertTrue(err.toString().contains("--procs=50"), err.toString());
  }
}
