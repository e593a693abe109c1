package io.github.verbs4j.tca.peach2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.fabric.topo.Peach2Topology;
import io.github.verbs4j.fabric.topo.Port;
import io.github.verbs4j.fabric.topo.Route;
import io.github.verbs4j.fabric.topo.RouteRegister;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AddressMapTest {
  private final Peach2Topology topo = new Peach2Topology(2, 4, 35);
  private final GlobalAddressMap window = new GlobalAddressMap(8, 35);

  /** Forwards an address board by board, each deciding only by its own registers. */
  private List<Integer> walk(int src, long address) {
    List<Integer> path = new ArrayList<>();
    int at = src;
    path.add(at);
    for (int guard = 0; guard < 16; guard++) {
      Port p = AddressMap.forBoard(topo, window, at).route(address);
      if (p == Port.N) {
        return path;
      }
      at = topo.neighbour(at, p);
      path.add(at);
    }
    throw new AssertionError("no delivery from " + src + " to 0x" + Long.toHexString(address) + ": " + path);
  }

  @Test
  void everyPairOfAnEightNodeTwoRingSubClusterIsReachableInAtMostThreeHops() {
    int worst = 0;
    for (int s = 1; s <= 8; s++) {
      for (int d = 1; d <= 8; d++) {
        // host memory, a device and the interrupt register of d are all routed to d
        for (long a : new long[] {window.hostBase(d) + 4096, window.deviceBase(d, 1) + 8, window.interruptRegister(d)}) {
          List<Integer> path = walk(s, a);
          assertEquals(d, path.get(path.size() - 1));
          int hops = path.size() - 1;
          assertTrue(hops <= 3, s + "->" + d + " took " + hops + " hops: " + path);
          Route r = topo.route(s, d);
          assertEquals(r.hops(), hops, "register routing agrees with the fabric's route " + r);
          worst = Math.max(worst, hops);
        }
      }
    }
    assertEquals(3, worst, "an 8-node sub-cluster has pairs 3 hops apart (seed 001 §3.2)");
  }

  @Test
  void registersMatchTheFabricsProgrammingAndUseTheSliceMask() {
    for (int n = 1; n <= 8; n++) {
      List<AddressMap.Register> mine = AddressMap.forBoard(topo, window, n).registers();
      List<RouteRegister> fabric = topo.registers(n);
      assertEquals(fabric.size(), mine.size());
      assertEquals(Port.N, mine.get(0).port());
      for (int i = 0; i < mine.size(); i++) {
        assertEquals(fabric.get(i).port(), mine.get(i).port());
        assertEquals(fabric.get(i).low(), mine.get(i).low());
        assertEquals(fabric.get(i).high(), mine.get(i).high());
        assertEquals(-1L << 35, mine.get(i).mask());
      }
    }
  }

  @Test
  void addressesOutsideTheWindowHaveNoRoute() {
    AddressMap m = AddressMap.forBoard(topo, window, 3);
    assertNull(m.route(window.windowSize()));
    assertNull(m.route(-1L));
  }

  @Test
  void theWindowHasAHostAndTwoDeviceSubSlicesAndRegistersPerNode() {
    assertEquals(512L << 30, new GlobalAddressMap(16, 35).windowSize(), "16 × 32 GiB = the 512 GiB BAR (seed 001 §3.4)");
    long base = window.nodeBase(5);
    assertEquals(4L << 35, base);
    assertEquals(5, window.nodeOf(base));
    assertEquals(5, window.nodeOf(base + window.sliceSize() - 1));
    assertEquals(6, window.nodeOf(base + window.sliceSize()));
    assertEquals(0, window.nodeOf(window.windowSize()));
    assertEquals(GlobalAddressMap.Region.HOST, window.region(window.localOffset(5, window.hostBase(5) + 123)));
    assertEquals(GlobalAddressMap.Region.DEVICE, window.region(window.localOffset(5, window.deviceBase(5, 0))));
    assertEquals(1, window.deviceOf(window.localOffset(5, window.deviceBase(5, 1) + 99)));
    assertEquals(GlobalAddressMap.Region.REGISTERS, window.region(window.localOffset(5, window.interruptRegister(5))));
    assertEquals(GlobalAddressMap.Region.UNMAPPED, window.region(window.sliceSize() * 3 / 4));
  }
}
