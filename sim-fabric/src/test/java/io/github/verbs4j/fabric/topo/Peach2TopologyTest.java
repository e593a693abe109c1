package io.github.verbs4j.fabric.topo;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;

class Peach2TopologyTest {

  @Test
  void eightNodesInTwoRingsAreAtMostThreeHopsApart() {
    Peach2Topology t = new Peach2Topology(2, 4, 35);
    int max = 0;
    for (int s = 1; s <= 8; s++) {
      for (int d = 1; d <= 8; d++) {
        max = Math.max(max, t.hops(s, d));
      }
    }
    assertEquals(3, max, "seed 001: with 8 nodes every node is at most 3 hops away");
    assertEquals(1, t.hops(1, 5), "S link pairs node i of ring 0 with node i of ring 1");
    assertEquals(Port.S.value(), t.route(1, 5).outPort(0));
    assertEquals(0, t.hops(3, 3));
  }

  @Test
  void singleRingOfSixteenRoutesTheShortWayRound() {
    Peach2Topology t = new Peach2Topology(1, 16, 35);
    assertEquals(8, t.hops(1, 9));
    assertEquals(Port.E.value(), t.route(1, 9).outPort(0), "ties go east");
    assertEquals(1, t.hops(1, 16));
    assertEquals(Port.W.value(), t.route(1, 16).outPort(0));
    assertEquals(32, t.links(16).size());
  }

  @Test
  void linksAreCabledEToWAndSToS() {
    Peach2Topology t = new Peach2Topology(2, 4, 35);
    Link e = t.links(8).stream().filter(l -> l.id() == Peach2Topology.linkId(4, Port.E)).findFirst().orElseThrow();
    assertEquals(new Link(Peach2Topology.linkId(4, Port.E), 4, Port.E.value(), 1, Port.W.value()), e, "ring wraps");
    assertEquals(Peach2Topology.linkId(2, Port.S), t.linkBetween(2, 6));
    assertEquals(-1, t.linkBetween(1, 3));
  }

  @Test
  void addressRegistersRouteEveryAddressHopByHopToItsOwner() {
    for (Peach2Topology t : List.of(new Peach2Topology(2, 8, 35), new Peach2Topology(1, 7, 20), new Peach2Topology(2, 2, 30))) {
      int n = t.maxNodes();
      for (int src = 1; src <= n; src++) {
        for (int dst = 1; dst <= n; dst++) {
          for (long off : new long[] {0, 4096, (1L << t.sliceBits()) - 4}) {
            long addr = t.baseAddress(dst) + off;
            assertEquals(dst, t.nodeOf(addr));
            Route r = t.route(src, dst);
            int at = src;
            for (int hop = 0; hop < r.hops(); hop++) {
              Port p = t.portFor(at, addr);
              assertEquals(Port.fromValue(r.outPort(hop)), p, t.spec() + " at " + at + " for " + dst);
              at = t.neighbour(at, p);
            }
            assertEquals(dst, at);
            assertEquals(Port.N, t.portFor(at, addr), "the owner sends it out by N");
          }
        }
      }
      assertNull(t.portFor(1, (long) n << t.sliceBits()), "outside the window: no route");
      assertEquals(0, t.nodeOf((long) n << t.sliceBits()));
    }
  }

  @Test
  void registersAreFewContiguousRangesPerPort() {
    Peach2Topology t = new Peach2Topology(1, 8, 35);
    List<RouteRegister> r = t.registers(1);
    assertEquals(new RouteRegister(Port.N, -1L << 35, 0, 0), r.get(0));
    // node 1 of 8: 2..5 east (5 is the tie), 6..8 west
    assertEquals(new RouteRegister(Port.E, -1L << 35, 1L << 35, 4L << 35), r.get(1));
    assertEquals(new RouteRegister(Port.W, -1L << 35, 5L << 35, 7L << 35), r.get(2));
    assertEquals(3, r.size());
  }

  @Test
  void specParsingNamesTheKey() {
    assertEquals("peach2:rings=2,nodesPerRing=4,sliceBits=35", TopologySpec.parse("peach2:rings=2,nodesPerRing=4").toString());
    assertEquals("switch", TopologySpec.parse("switch").toString());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TopologySpec.parse("peach2:rings=3"));
    assertTrue(e.getMessage().contains("verbs.topology") && e.getMessage().contains("rings=3"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> TopologySpec.parse("peach2:nodesPerRing=17"));
    assertThrows(IllegalArgumentException.class, () -> TopologySpec.parse("torus"));
    assertThrows(IllegalArgumentException.class, () -> new Peach2Topology(1, 4, 35).route(1, 5));
  }

  @Test
  void switchRoutesAreTwoHopsThroughNodeZero() {
    SwitchTopology s = new SwitchTopology();
    Route r = s.route(3, 7);
    assertEquals(2, r.hops());
    assertEquals(SwitchTopology.uplink(3), r.link(0));
    assertEquals(SwitchTopology.downlink(7), r.link(1));
    assertSame(r, s.route(3, 7), "routes are cached");
    assertEquals(SwitchTopology.uplink(3), s.linkBetween(3, 0));
  }
}
