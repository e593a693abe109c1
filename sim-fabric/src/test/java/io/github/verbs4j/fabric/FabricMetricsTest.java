package io.github.verbs4j.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

class FabricMetricsTest {
  @Test
  void countsReachTheRegistryAndCloseRemovesThemSoASuccessorOfTheSameNameStartsAtZero() {
    CompositeMeterRegistry registry = new CompositeMeterRegistry();
    registry.add(new SimpleMeterRegistry());
    FabricMetrics first = new FabricMetrics(registry, "netty-rank-0-1");
    first.sent(100);
    first.sent(20);
    first.drop(DropReason.MTU, 7);
    assertEquals(2.0, registry.get("verbs4j.fabric.frames.sent").tag("fabric", "netty-rank-0-1").functionCounter().count());
    assertEquals(120.0, registry.get("verbs4j.fabric.bytes.sent").functionCounter().count());
    assertEquals(1.0, registry.get("verbs4j.fabric.drops").tag("reason", DropReason.MTU.tag()).functionCounter().count());
    first.close();
    assertNull(registry.find("verbs4j.fabric.frames.sent").functionCounter(), "removed with the node");
    FabricMetrics second = new FabricMetrics(registry, "netty-rank-0-1");
    second.sent(5);
    assertEquals(1.0, registry.get("verbs4j.fabric.frames.sent").functionCounter().count(), "the new node's count");
    assertEquals(2, first.framesSent(), "a closed node's own accessors still read its counts");
    second.close();
  }
}
