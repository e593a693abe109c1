package io.github.verbs4j.fabric.time;

import static org.junit.jupiter.api.Assertions.*;

import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.local.LocalFabric;
import io.github.verbs4j.fabric.local.LocalNode;
import io.github.verbs4j.fabric.topo.Peach2Topology;
import io.github.verbs4j.fabric.topo.Port;
import io.github.verbs4j.fabric.topo.Route;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.Unpooled;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Modelled-time arithmetic on a PEACH2 ring. Links: latency 100 ns, forward 50 ns, 1000 MB/s (1
 * byte/ns); payload 968 B + 32 B header = 1000 B, so serialisation is 1000 ns per link.
 */
class ModelledTimeTest {
  private static final int PAYLOAD = 968;

  private static LocalFabric ring(String mode) {
    Map<String, String> s = new HashMap<>();
    s.put("verbs.fabric.mode", mode);
    s.put("verbs.time", "modelled");
    s.put("verbs.topology", "peach2:rings=1,nodesPerRing=8");
    s.put("verbs.link.latency-ns", "100");
    s.put("verbs.link.forward-ns", "50");
    s.put("verbs.link.bandwidth-mb-s", "1000");
    return LocalFabric.create(FabricOptions.from(s, Map.of()), new SimpleMeterRegistry());
  }

  @Test
  void threeHopPathWithoutContentionCostsLatenciesForwardsAndOneSerialisation() {
    try (LocalFabric f = ring("deterministic")) {
      LocalNode[] n = new LocalNode[9];
      for (int i = 1; i <= 8; i++) {
        n[i] = f.addNode();
      }
      Route r = f.topology().route(1, 4);
      assertEquals(3, r.hops());
      assertArrayEquals(new int[] {Peach2Topology.linkId(1, Port.E), Peach2Topology.linkId(2, Port.E), Peach2Topology.linkId(3, Port.E)},
          new int[] {r.link(0), r.link(1), r.link(2)});
      long[] arrival = new long[1];
      n[4].setReceiver((h, p) -> {
        p.release();
        arrival[0] = h.arrivalTimeNanos();
      });
      n[1].send(4, Unpooled.buffer().writeZero(PAYLOAD));
      int events = 0;
      for (int w; (w = f.doWork()) > 0; ) {
        events += w;
      }
      assertEquals(4, events, "three hops and one delivery");
      // 0 + 3 x 100 (latency) + 2 x 50 (forwarding at boards 2 and 3) + 1000 (serialisation)
      assertEquals(1400, arrival[0]);
      assertEquals(1400, n[4].clock().nowNanos());
      assertEquals(0, n[1].clock().nowNanos(), "sending does not advance the sender's clock");
    }
  }

  @Test
  void framesSharingALinkAreSerialisedOnItInModelledTimeOrder() {
    try (LocalFabric f = ring("deterministic")) {
      LocalNode[] n = new LocalNode[9];
      for (int i = 1; i <= 8; i++) {
        n[i] = f.addNode();
      }
      Map<Integer, Long> arrivals = new HashMap<>();
      Map<Integer, Integer> hops = new HashMap<>();
      n[4].setReceiver((h, p) -> {
        p.release();
        arrivals.put(h.src(), h.arrivalTimeNanos());
        hops.put(h.src(), h.hops());
      });
      // A: 1 -> 4 over 1->2, 2->3, 3->4.  B: 2 -> 4 over 2->3, 3->4, sent at the same modelled time 0.
      n[1].send(4, Unpooled.buffer().writeZero(PAYLOAD));
      n[2].send(4, Unpooled.buffer().writeZero(PAYLOAD));
      f.runUntilIdle();
      // B takes 2->3 at t=0 (busy until 1000), reaches 3->4 at 150, arrives 150 + 100 + 1000 = 1250.
      assertEquals(1250, arrivals.get(2));
      // A's head reaches 2->3 at 150 but waits until 1000 (850 ns queueing), reaches 3->4 at 1150
      // (B freed it at 1150), arrives 1150 + 100 + 1000 = 2250 = 1400 + 850.
      assertEquals(2250, arrivals.get(1));
      assertEquals(3, hops.get(1));
      assertEquals(2, hops.get(2));
      int shared = Peach2Topology.linkId(2, Port.E);
      assertEquals(850, f.linkModel().queueingNanos(shared));
      assertEquals(2, f.linkModel().frames(shared));
      assertEquals(1, f.linkModel().queueDepth(shared), "A found B on the link");
      assertEquals(0, f.linkModel().queueingNanos(Peach2Topology.linkId(3, Port.E)));
      assertEquals(2250, n[4].clock().nowNanos());
    }
  }

  @Test
  void receivingAdvancesTheClockToMaxOfOwnAndArrival() {
    try (LocalFabric f = ring("deterministic")) {
      LocalNode a = f.addNode();
      LocalNode b = f.addNode();
      b.setReceiver((h, p) -> p.release());
      b.clock().charge(5000);
      a.send(2, Unpooled.buffer().writeZero(PAYLOAD));
      f.runUntilIdle();
      assertEquals(5000, b.clock().nowNanos(), "arrival 1100 is behind b's own clock");
      a.clock().charge(10_000);
      a.send(2, Unpooled.buffer().writeZero(PAYLOAD));
      f.runUntilIdle();
      assertEquals(10_000 + 100 + 1000, b.clock().nowNanos());
    }
  }

  @Test
  void sameProgramGivesSameModelledTimesInBothModes() throws Exception {
    for (String mode : new String[] {"deterministic", "threaded"}) {
      try (LocalFabric f = ring(mode)) {
        LocalNode a = f.addNode();
        LocalNode b = f.addNode();
        long[] last = new long[1];
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(10);
        b.setReceiver((h, p) -> {
          p.release();
          last[0] = h.arrivalTimeNanos();
          done.countDown();
        });
        for (int i = 0; i < 10; i++) {
          a.send(2, Unpooled.buffer().writeZero(PAYLOAD));
        }
        if (f.deterministic()) {
          f.runUntilIdle();
        }
        assertTrue(done.await(10, java.util.concurrent.TimeUnit.SECONDS));
        // ten back-to-back frames on one link: the last starts at 9000 and arrives 9000 + 100 + 1000
        assertEquals(10_100, last[0], mode);
      }
    }
  }

  @Test
  void clockRulesAndWallClock() {
    NodeClock m = NodeClock.modelled();
    assertEquals(0, m.nowNanos());
    assertEquals(100, m.advanceTo(100));
    assertEquals(100, m.advanceTo(50), "never backwards");
    assertEquals(150, m.charge(50));
    assertThrows(IllegalArgumentException.class, () -> m.charge(-1));
    NodeClock w = NodeClock.wall();
    assertFalse(w.isModelled());
    long t = w.nowNanos();
    assertTrue(w.nowNanos() >= t);
    assertEquals(1000, new LinkParams(0, 1000, 100, 0).serializationNanos(1000));
    assertEquals(1, new LinkParams(0, 12500, 100, 0).serializationNanos(1), "rounds up");
  }
}
