package io.github.verbs4j.examples.himeno;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.mp.MpConfig;
import io.github.verbs4j.examples.mp.VerbsCommunicator;
import io.github.verbs4j.examples.testing.InJvmJob;
import io.github.verbs4j.tca.peach2.Peach2Params;
import io.github.verbs4j.verbs.MemoryKind;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Rank placement for Himeno ({@code --placement}, issue 18; seed 000 §5.2): the grid positions'
 * nodes on the PEACH2 ring decide which halo exchanges share a PCIe link, so two placements give
 * different modelled halo times and the same residual. The ranks run in lockstep on the
 * deterministic fabric, so each figure is exact.
 */
class HimenoPlacementTest {
  /** A ring of four, grid positions in node order: (0,0)-(1,0) and (0,1)-(1,1) are two hops, through the same links. */
  static final String SHARED = "peach2:rings=1,nodesPerRing=4";
  /** The same ring, the 2 × 2 grid laid around it: every halo neighbour one cable away. */
  static final String AROUND = "peach2:rings=1,nodesPerRing=4/1,2,4,3";

  @Test
  void aPlacementNamesTheNodeOfEachGridPosition() {
    Placement p = Placement.parse(AROUND);
    assertEquals("peach2:rings=1,nodesPerRing=4", p.topology());
    assertArrayEquals(new int[] {0, 1, 3, 2}, p.rankOfPosition(4));
    assertEquals(AROUND, p.toString());
    assertArrayEquals(new int[] {0, 1, 2, 3}, Placement.parse(SHARED).rankOfPosition(4));
    // position 2 = (1,0) runs on rank 3: its neighbours are position 0 (rank 0) and position 3 (rank 2)
    Decomposition d = Decomposition.of(HimenoSize.TINY, 2, 2, 2).placed(p.rankOfPosition(4));
    assertEquals(1, d.px());
    assertEquals(0, d.py());
    assertEquals(0, d.left());
    assertEquals(2, d.up());
    assertEquals(-1, d.right());
    assertEquals(-1, d.down());
  }

  @Test
  void aMalformedPlacementIsRefusedNamingTheOptionAndValue() {
    for (String bad : new String[] {"peach3:rings=1", "peach2:rings=1,nodesPerRing=4/1,2,2,3",
        "peach2:rings=1,nodesPerRing=4/1,2,x,3", "peach2:rings=1,nodesPerRing=2/1,2,3,4"}) {
      HimenoCommand cmd = new HimenoCommand();
      new CommandLine(cmd).parseArgs("--placement", bad);
      CommandLine.ParameterException e = assertThrows(CommandLine.ParameterException.class, cmd::validateOptions, bad);
      assertTrue(e.getMessage().contains("--placement=" + bad), e.getMessage());
    }
    HimenoCommand cmd = new HimenoCommand();
    new CommandLine(cmd).parseArgs("--memory", "gpu");
    CommandLine.ParameterException e = assertThrows(CommandLine.ParameterException.class, cmd::validateOptions);
    assertTrue(e.getMessage().contains("--memory=gpu"), e.getMessage());
  }

  @Test
  void thePlacementSetsTheTopologyAndMustAgreeWithOneSetOtherwise() {
    HimenoCommand cmd = new HimenoCommand();
    new CommandLine(cmd).parseArgs("--placement", AROUND);
    VerbsConfig c = cmd.withPlacement(VerbsConfig.of(Map.of("verbs.provider", "tca")));
    assertEquals("peach2:rings=1,nodesPerRing=4", c.explicitSettings().get("verbs.topology"));
    VerbsConfig same = cmd.withPlacement(VerbsConfig.of(Map.of("verbs.topology", "peach2:nodesPerRing=4")));
    assertEquals("peach2:rings=1,nodesPerRing=4", same.explicitSettings().get("verbs.topology"));
    CommandLine.ParameterException e = assertThrows(CommandLine.ParameterException.class,
        () -> cmd.withPlacement(VerbsConfig.of(Map.of("verbs.topology", "peach2:rings=2,nodesPerRing=2"))));
    assertTrue(e.getMessage().contains("verbs.topology=peach2:rings=2,nodesPerRing=2"), e.getMessage());
  }

  /**
   * Middle, 2 × 2: the i planes (65 × 256 floats = 66,560 B) of positions (0,0)→(1,0) and
   * (0,1)→(1,1) cross the same two ring links when the grid sits on the ring in node order, so one
   * of them waits for the other: the model predicts one more plane's wire time per iteration.
   */
  @Test
  void sharingALinkMakesTheHaloSlowerByAPlanesWireTime() throws Exception {
    Result shared = run(SHARED, MemoryKind.HOST, Map.of());
    Result around = run(AROUND, MemoryKind.HOST, Map.of());
    assertEquals(Float.floatToRawIntBits(around.gosa), Float.floatToRawIntBits(shared.gosa), "the same residual");
    assertEquals(around.calc, shared.calc, "the same computation");
    double predicted = Peach2Params.defaults().wireNs(PLANE_BYTES) / 1e3;
    double extra = shared.halo - around.halo;
    // one plane's wire time, plus the extra hops of the control packets (RTS, CTS, FIN) that share the link
    assertTrue(extra >= predicted && extra <= 1.3 * predicted, "shared " + shared + ", around " + around
        + ": " + extra + " µs more, predicted " + predicted + " plus hops");
  }

  /**
   * Halos in device memory: PEACH2 reads each plane out of GPU memory at the device read rate
   * (870 MB/s, seed 001's prototype) instead of the link's, one j and one i plane per iteration in
   * turn; the residual is the same bits.
   */
  @Test
  void halosInDeviceMemoryAreReadAtTheDeviceRate() throws Exception {
    Result host = run(AROUND, MemoryKind.HOST, Map.of());
    Result device = run(AROUND, MemoryKind.DEVICE, Map.of());
    assertEquals(Float.floatToRawIntBits(host.gosa), Float.floatToRawIntBits(device.gosa), "the same residual");
    double predicted = 2 * Peach2Params.defaults().deviceReadExcessNs(PLANE_BYTES) / 1e3;
    double extra = device.halo - host.halo;
    assertEquals(predicted, extra, 0.1 * predicted, "device " + device + ", host " + host + ": µs more");
  }

  @Test
  void deviceMemoryOnAProviderWithoutItIsRefusedNamingOptionAndProvider() throws Exception {
    HimenoCommand cmd = new HimenoCommand();
    new CommandLine(cmd).parseArgs("--memory", "device");
    InJvmJob.on("ib", 1, Map.of(), ctx -> {
      CommandLine.ParameterException e = assertThrows(CommandLine.ParameterException.class,
          () -> cmd.checkMemory(ctx));
      assertTrue(e.getMessage().contains("--memory=device") && e.getMessage().contains("provider ib"),
          e.getMessage());
      return null;
    });
  }

  /** Bytes of one Middle halo plane on 2 × 2 ranks: 65 × 256 floats either way. */
  static final int PLANE_BYTES = 65 * 256 * Float.BYTES;

  /** One rank's figures: residual, modelled µs per iteration of calculation and halo exchange. */
  record Result(float gosa, double calc, double halo) {}

  static final int ITERATIONS = 4;

  static Result run(String placement, MemoryKind memory, Map<String, String> settings) throws Exception {
    Placement p = Placement.parse(placement);
    Map<String, String> m = new java.util.HashMap<>(settings);
    m.put("verbs.fabric.mode", "deterministic"); // ranks in lockstep: exact figures
    m.put("verbs.topology", p.topology());
    int[] ranks = p.rankOfPosition(4);
    List<Result> all = InJvmJob.on("tca", 4, m, ctx -> {
      try (VerbsCommunicator comm = VerbsCommunicator.open(ctx, MpConfig.defaults())) {
        HimenoSolver solver = new HimenoSolver(comm, HimenoSize.MIDDLE, 2, 2, true, 132.8, ranks, memory);
        solver.run(2);
        comm.barrier();
        HimenoResult r = solver.run(ITERATIONS);
        comm.barrier();
        return new Result(r.gosa(), r.calcModelNanos() / 1e3 / ITERATIONS, r.haloModelNanos() / 1e3 / ITERATIONS);
      }
    });
    double halo = 0;
    for (Result r : all) {
      halo = Math.max(halo, r.halo);
    }
    return new Result(all.get(0).gosa, all.get(0).calc, halo);
  }
}
