package io.github.verbs4j.fabric.local;

import static org.junit.jupiter.api.Assertions.*;

import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricTimeoutException;
import io.github.verbs4j.fabric.testing.Async;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The in-JVM fabric honours verbs.rank and verbs.size as the netty coordinator does. */
class LocalRanksTest {
  private final List<FabricNode> nodes = new ArrayList<>();
  private final String name = "ranks-" + System.nanoTime();

  @AfterEach
  void close() {
    nodes.forEach(FabricNode::close);
  }

  private FabricNode open(int rank, int size) {
    FabricNode n = Fabric.open(Map.of("verbs.fabric", "local", "verbs.fabric.name", name, "verbs.rank", Integer.toString(rank),
        "verbs.size", Integer.toString(size)), new SimpleMeterRegistry());
    nodes.add(n);
    return n;
  }

  @Test
  void nodeIdsFollowRanksWhateverTheOpenOrderAndBarriersWaitForTheWholeJob() throws Exception {
    FabricNode r2 = open(2, 3);
    FabricNode r0 = open(0, 3);
    assertEquals(3, r2.nodeId());
    assertEquals(2, r2.rank());
    assertEquals(1, r0.nodeId());
    assertEquals(3, r0.size());
    // Two of three ranks in the barrier: it must wait for rank 1.
    CompletableFuture<Void> b2 = Async.run(() -> r2.job().barrier("all", Duration.ofSeconds(60)));
    assertThrows(FabricTimeoutException.class, () -> r0.job().barrier("all", Duration.ofMillis(300)));
    assertFalse(b2.isDone());
    FabricNode r1 = open(1, 3);
    assertEquals(2, r1.nodeId());
    CompletableFuture<Void> b1 = Async.run(() -> r1.job().barrier("all", Duration.ofSeconds(60)));
    b1.get(60, TimeUnit.SECONDS);
    b2.get(60, TimeUnit.SECONDS);
    r1.job().kvPut("k", "v".getBytes(StandardCharsets.UTF_8));
    assertEquals("v", new String(r2.job().kvGet("k", Duration.ofSeconds(10)), StandardCharsets.UTF_8));
  }

  @Test
  void aDuplicateRankOrAnotherSizeIsRefusedNamingTheValue() {
    FabricNode r0 = open(0, 2);
    IllegalArgumentException dup = assertThrows(IllegalArgumentException.class, () -> open(0, 2));
    assertTrue(dup.getMessage().contains("verbs.rank=0 already joined"), dup.getMessage());
    IllegalArgumentException size = assertThrows(IllegalArgumentException.class, () -> open(1, 3));
    assertTrue(size.getMessage().contains("verbs.size=3 differs from the size 2"), size.getMessage());
    assertEquals(1, r0.directory().nodes().size());
    // A closed rank may come back (a restarted process); it keeps its node id.
    FabricNode r1 = open(1, 2);
    r1.close();
    assertEquals(2, open(1, 2).nodeId());
  }
}
