package io.github.verbs4j.fabric.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.topo.Peach2Topology;
import io.github.verbs4j.fabric.topo.Port;
import io.github.verbs4j.fabric.topo.SwitchTopology;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A node's own port ({@code FabricNode.links()}) on the in-JVM fabric, switch and PEACH2 rings. */
class LocalNodeLinksTest {
  private static LocalFabric fabric(String topology) {
    return LocalFabric.create(FabricOptions.from(Map.of("verbs.fabric.mode", "deterministic", "verbs.topology", topology),
        Map.of()), new SimpleMeterRegistry());
  }

  /** Adds n nodes, each recording the link-state changes it is told of and the frames it gets. */
  private static List<List<String>> nodes(LocalFabric f, int n) {
    List<List<String>> seen = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      LocalNode node = f.addNode();
      List<String> s = new ArrayList<>();
      seen.add(s);
      node.links().addListener(up -> s.add(up ? "up" : "down"));
      node.setReceiver((h, p) -> {
        s.add("frame from " + h.src());
        p.release();
      });
    }
    return seen;
  }

  @Test
  void switchPortGoesDownAloneAndCutsBothDirections() {
    try (LocalFabric f = fabric("switch")) {
      List<List<String>> seen = nodes(f, 3);
      LocalNode a = f.node(1);
      LocalNode b = f.node(2);
      a.links().takeDown();
      a.links().takeDown(); // already down: no second event
      f.runUntilIdle();
      assertFalse(a.links().isUp());
      assertTrue(b.links().isUp(), "a peer behind the switch keeps its port");
      assertFalse(a.send(2, Unpooled.buffer().writeInt(1)));
      assertFalse(b.send(1, Unpooled.buffer().writeInt(2)));
      assertTrue(b.send(3, Unpooled.buffer().writeInt(3)));
      f.runUntilIdle();
      assertEquals(2, f.metrics().drops(DropReason.LINK_DOWN));
      a.links().bringUp();
      assertTrue(b.send(1, Unpooled.buffer().writeInt(4)));
      f.runUntilIdle();
      assertTrue(a.links().isUp());
      assertEquals(List.of("down", "up", "frame from 2"), seen.get(0));
      assertEquals(List.of(), seen.get(1));
      assertEquals(List.of("frame from 2"), seen.get(2));
    }
  }

  @Test
  void switchDownlinkAloneTakesThePortDown() {
    try (LocalFabric f = fabric("switch")) {
      List<List<String>> seen = nodes(f, 2);
      f.faults().linkDown(SwitchTopology.downlink(2));
      f.runUntilIdle();
      assertFalse(f.node(2).links().isUp());
      f.faults().linkUp(SwitchTopology.downlink(2));
      f.runUntilIdle();
      assertEquals(List.of(), seen.get(0));
      assertEquals(List.of("down", "up"), seen.get(1));
    }
  }

  @Test
  void peach2CableDownTakesDownTheBoardsAtBothEnds() {
    try (LocalFabric f = fabric("peach2:rings=1,nodesPerRing=4")) {
      List<List<String>> seen = nodes(f, 4);
      f.faults().linkDown(Peach2Topology.linkId(1, Port.E)); // the cable 1E -> 2W
      f.runUntilIdle();
      assertEquals(List.of(false, false, true, true), states(f, 4));
      f.faults().linkUp(Peach2Topology.linkId(1, Port.E));
      f.runUntilIdle();
      assertEquals(List.of("down", "up"), seen.get(0));
      assertEquals(List.of("down", "up"), seen.get(1));
      f.node(1).links().takeDown(); // every cable of board 1: its E and W neighbours go down too
      f.runUntilIdle();
      assertEquals(List.of(false, false, true, false), states(f, 4));
      f.node(1).links().bringUp();
      f.runUntilIdle();
      assertEquals(List.of(true, true, true, true), states(f, 4));
      assertEquals(List.of("down", "up", "down", "up"), seen.get(0));
      assertEquals(List.of("down", "up", "down", "up"), seen.get(1));
      assertEquals(List.of(), seen.get(2), "board 3 is cabled to 2 and 4 only");
      assertEquals(List.of("down", "up"), seen.get(3));
    }
  }

  @Test
  void nodePairFaultsChangeNoPort() {
    try (LocalFabric f = fabric("switch")) {
      List<List<String>> seen = nodes(f, 2);
      f.faults().link(1, 2).down();
      assertFalse(f.node(1).send(2, Unpooled.buffer().writeInt(1)));
      f.faults().link(1, 2).up();
      f.runUntilIdle();
      assertTrue(f.node(1).links().isUp());
      assertEquals(List.of(), seen.get(0));
      assertEquals(List.of(), seen.get(1));
    }
  }

  @Test
  void aNodeJoiningWhileItsLinkIsDownStartsDown() {
    try (LocalFabric f = fabric("switch")) {
      f.faults().linkDown(SwitchTopology.uplink(1));
      LocalNode a = f.addNode();
      assertFalse(a.links().isUp());
      List<String> seen = new ArrayList<>();
      a.links().addListener(up -> seen.add(up ? "up" : "down"));
      f.faults().linkUp(SwitchTopology.uplink(1));
      f.runUntilIdle();
      assertEquals(List.of("up"), seen);
    }
  }

  private static List<Boolean> states(LocalFabric f, int n) {
    List<Boolean> l = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      l.add(f.node(i).links().isUp());
    }
    return l;
  }
}
