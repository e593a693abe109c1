package io.github.verbs4j.fabric.local;

import static org.junit.jupiter.api.Assertions.*;

import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricException;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.JobChannel;
import io.github.verbs4j.fabric.coord.KvsPlacement;
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

/** {@code verbs.fabric.kvs=hashed} in one JVM: each rank's shard holds exactly the keys that hash to it. */
class LocalHashedKvsTest {
  private static final Duration T = Duration.ofSeconds(30);
  private final List<FabricNode> nodes = new ArrayList<>();
  private final String name = "kvs-" + System.nanoTime();

  @AfterEach
  void close() {
    nodes.forEach(FabricNode::close);
  }

  private FabricNode open(int rank, int size, String kvs) {
    FabricNode n = Fabric.open(Map.of("verbs.fabric", "local", "verbs.fabric.name", name, "verbs.rank", Integer.toString(rank),
        "verbs.size", Integer.toString(size), "verbs.fabric.kvs", kvs), new SimpleMeterRegistry());
    nodes.add(n);
    return n;
  }

  static byte[] value(int rank, int i) {
    byte[] v = new byte[1 + (rank * 7 + i * 13) % 61]; // 1..61 bytes, distinct per key
    for (int j = 0; j < v.length; j++) {
      v[j] = (byte) (rank * 31 + i * 17 + j);
    }
    return v;
  }

  static String key(int rank, int i) {
    return "addr/" + rank + "/" + i;
  }

  @Test
  void sixteenMembersEachHoldExactlyTheKeysThatHashToThemAndTheRootHoldsNone() throws Exception {
    int n = 16;
    int per = 10;
    for (int r = 0; r < n; r++) {
      open(r, n, "hashed");
    }
    List<CompletableFuture<Void>> all = new ArrayList<>();
    for (FabricNode node : nodes) {
      all.add(Async.run(() -> {
        for (int i = 0; i < per; i++) {
          node.job().kvPut(key(node.rank(), i), value(node.rank(), i));
        }
        for (int r = 0; r < n; r++) {
          for (int i = 0; i < per; i++) {
            assertArrayEquals(value(r, i), node.job().kvGet(key(r, i), T), "rank " + node.rank() + " got " + key(r, i));
          }
        }
      }));
    }
    for (CompletableFuture<Void> f : all) {
      f.get(60, TimeUnit.SECONDS);
    }
    LocalFabric fabric = ((LocalNode) nodes.get(0)).fabric();
    assertEquals(0, fabric.coordinatorKvsPairs());
    assertEquals(0, fabric.coordinatorKvsBytes());
    assertEquals(new JobChannel.CoordinatorKvs(0, 0, 0), nodes.get(3).job().coordinatorKvs(T));
    long[] pairs = new long[n];
    long[] bytes = new long[n];
    for (int r = 0; r < n; r++) {
      for (int i = 0; i < per; i++) {
        int h = KvsPlacement.holder(key(r, i), n);
        pairs[h]++;
        bytes[h] += key(r, i).length() + value(r, i).length + KvsPlacement.ENTRY_OVERHEAD;
      }
    }
    long total = 0;
    for (FabricNode node : nodes) {
      assertEquals(pairs[node.rank()], node.job().kvsPairs(), "pairs of rank " + node.rank());
      assertEquals(bytes[node.rank()], node.job().kvsBytes(), "bytes of rank " + node.rank());
      total += node.job().kvsPairs();
    }
    assertEquals(n * per, total);
  }

  @Test
  void aPutOfAnotherValueFailsAsWithRootAndAWaitingGetIsCompletedByALaterPut() throws Exception {
    FabricNode a = open(0, 3, "hashed");
    FabricNode b = open(1, 3, "hashed");
    FabricNode c = open(2, 3, "hashed");
    CompletableFuture<byte[]> waiting = Async.supply(() -> c.job().kvGet("late", T));
    Thread.sleep(50);
    assertFalse(waiting.isDone());
    a.job().kvPut("late", "here".getBytes(StandardCharsets.UTF_8));
    assertEquals("here", new String(waiting.get(30, TimeUnit.SECONDS), StandardCharsets.UTF_8));

    b.job().kvPut("late", "here".getBytes(StandardCharsets.UTF_8)); // the same value again: allowed
    FabricException e = assertThrows(FabricException.class, () -> b.job().kvPut("late", "else".getBytes(StandardCharsets.UTF_8)));
    assertEquals("kvPut: key 'late' already holds another value (4 bytes); keys are write-once", e.getMessage());
    assertEquals(1, nodes.stream().mapToLong(x -> x.job().kvsPairs()).sum());
    assertEquals(1, nodes.get(KvsPlacement.holder("late", 3)).job().kvsPairs());
  }

  @Test
  void withRootTheCoordinatorHoldsEveryPairAndTheMembersNone() {
    FabricNode a = open(0, 2, "root");
    FabricNode b = open(1, 2, "root");
    a.job().kvPut("x", new byte[5]);
    b.job().kvPut("yy", new byte[7]);
    LocalFabric fabric = ((LocalNode) a).fabric();
    assertEquals(2, fabric.coordinatorKvsPairs());
    assertEquals(1 + 5 + 2 + 7 + 2 * KvsPlacement.ENTRY_OVERHEAD, fabric.coordinatorKvsBytes());
    assertEquals(new JobChannel.CoordinatorKvs(2, fabric.coordinatorKvsBytes(), 0), b.job().coordinatorKvs(T));
    assertEquals(0, a.job().kvsPairs() + b.job().kvsPairs());
    assertEquals(0, a.job().kvsBytes() + b.job().kvsBytes());
  }

  @Test
  void pairsAndWaitingGetsMoveToTheirNewHolderWhenUnrankedNodesGrowTheFabric() throws Exception {
    try (LocalFabric f = LocalFabric.create(FabricOptions.from(Map.of("verbs.fabric.kvs", "hashed"), Map.of()))) {
      LocalNode a = f.addNode();
      for (int i = 0; i < 20; i++) {
        a.job().kvPut("k" + i, value(0, i));
      }
      CompletableFuture<byte[]> waiting = Async.supply(() -> a.job().kvGet("later", T));
      Thread.sleep(50);
      assertEquals(20, a.job().kvsPairs());
      List<LocalNode> all = new ArrayList<>(List.of(a));
      for (int i = 1; i < 5; i++) {
        all.add(f.addNode());
      }
      all.get(3).job().kvPut("later", new byte[] {42});
      assertArrayEquals(new byte[] {42}, waiting.get(30, TimeUnit.SECONDS));
      for (LocalNode x : all) {
        long expected = 0;
        for (int i = 0; i < 20; i++) {
          expected += KvsPlacement.holder("k" + i, 5) == x.rank() ? 1 : 0;
        }
        expected += KvsPlacement.holder("later", 5) == x.rank() ? 1 : 0;
        assertEquals(expected, x.job().kvsPairs(), "rank " + x.rank());
      }
      for (int i = 0; i < 20; i++) {
        assertArrayEquals(value(0, i), all.get(4).job().kvGet("k" + i, T));
      }
    }
  }

  @Test
  void anUnknownPlacementIsRefusedNamingTheKey() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> FabricOptions.from(Map.of("verbs.fabric.kvs", "spread"), Map.of()));
    assertEquals("verbs.fabric.kvs=spread must be one of [root, hashed]", e.getMessage());
  }
}
