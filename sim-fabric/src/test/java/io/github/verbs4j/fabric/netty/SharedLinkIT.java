package io.github.verbs4j.fabric.netty;

import static io.github.verbs4j.fabric.netty.SharedLinkChildMain.get;
import static io.github.verbs4j.fabric.netty.SharedLinkChildMain.put;
import static org.junit.jupiter.api.Assertions.*;

import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.testing.ChildJvm;
import io.github.verbs4j.fabric.testing.EmbeddedCoordinator;
import io.github.verbs4j.fabric.topo.Peach2Topology;
import io.github.verbs4j.fabric.topo.Port;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three JVM processes on a PEACH2 ring of four boards (latency 100 ns, forwarding 50 ns, 1000 MB/s;
 * 1000-byte frames take 1000 ns per link): node 1 (this JVM) and node 2 both send to node 3, and
 * node 1's frames cross node 2's link 2→3. Node 2's process models that link for both, so the
 * frames are serialised on it and the queueing shows in the modelled arrival at node 3. The order
 * in which they take it is forced with the key-value store (the link is taken in the order the
 * frames reach node 2's process).
 */
class SharedLinkIT {
  private final List<ChildJvm> children = new ArrayList<>();
  private FabricNode node;
  private EmbeddedCoordinator coordinator;

  @AfterEach
  void cleanup() {
    children.forEach(ChildJvm::close);
    if (node != null) {
      node.close();
    }
    if (coordinator != null) {
      coordinator.close();
    }
  }

  @Test
  void framesOfTwoProcessesSharingARingLinkQueueOnItInModelledTime() throws Exception {
    coordinator = EmbeddedCoordinator.start(Duration.ofSeconds(5));
    Map<String, String> common = new HashMap<>(Map.of("verbs.time", "modelled", "verbs.topology", "peach2:rings=1,nodesPerRing=4",
        "verbs.link.latency-ns", "100", "verbs.link.forward-ns", "50", "verbs.link.bandwidth-mb-s", "1000",
        "verbs.fabric.join-timeout-ms", "60000"));
    for (int r = 1; r <= 2; r++) {
      Map<String, String> s = new HashMap<>(coordinator.settings(r, 3));
      s.putAll(common);
      children.add(ChildJvm.builder(SharedLinkChildMain.class).name("shared-link-rank" + r).properties(s).start());
    }
    Map<String, String> mine = new HashMap<>(coordinator.settings(0, 3));
    mine.putAll(common);
    node = Fabric.open(FabricOptions.from(mine, Map.of()), new SimpleMeterRegistry());
    assertEquals(1, node.nodeId());
    int p = SharedLinkChildMain.PAYLOAD;
    node.job().barrier("ready", Duration.ofSeconds(60));

    // Round 1: node 2's frame (sent at 0) takes 2->3 first: [0, 1000), arrives 0 + 100 + 1000.
    assertEquals("1100,1", get(node, "arrival/1/2"));
    // Node 1's frame, also sent at 0: 1->2 from 0, head at board 2 at 0 + 100 + 50 = 150; 2->3 is
    // busy until 1000 (850 ns queueing), then 1000 + 100 + 1000. Uncontended it would be 1250.
    assertTrue(node.send(3, node.alloc().directBuffer(p).writeZero(p)));
    assertEquals("2100,2", get(node, "arrival/1/1"));

    // Round 2, both clocks at 10000, node 1 first this time: 1->2 from 10000, head at board 2 at
    // 10150, 2->3 [10150, 11150), arrives 11250. Node 2's frame (head at 2->3 at 10000) reaches
    // node 2's link model after it and waits until 11150 (1150 ns), arrives 11150 + 1100 = 12250.
    node.clock().charge(10_000);
    assertTrue(node.send(3, node.alloc().directBuffer(p).writeZero(p)));
    assertEquals("11250,2", get(node, "arrival/2/1"));
    put(node, "go2", 1);
    assertEquals("12250,1", get(node, "arrival/2/2"));

    // Node 2 models 2->3: 850 + 1150 ns of queueing over 4 frames, 2 of them forwarded for node 1;
    // none of them was delivered to node 2's receiver.
    assertEquals("2000,4,2,0", get(node, "stats/2"));
    assertEquals("12250", get(node, "clock/3"));
    NettyNode me = (NettyNode) node;
    assertEquals(0, me.linkModel().queueingNanos(Peach2Topology.linkId(1, Port.E)));
    assertEquals(2, me.linkModel().frames(Peach2Topology.linkId(1, Port.E)));
    node.job().barrier("done", Duration.ofSeconds(60));
    for (ChildJvm c : children) {
      assertEquals(0, c.waitFor(Duration.ofSeconds(30)), c.output());
    }
  }
}
