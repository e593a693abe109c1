package io.github.verbs4j.fabric.coord;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.*;

import io.github.verbs4j.fabric.FabricException;
import io.github.verbs4j.fabric.FabricTimeoutException;
import io.github.verbs4j.fabric.NodeDirectory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CoordinatorTest {
  /** Blocking calls need a thread each (the common pool may have only one thread on 2 cores). */
  private static final java.util.concurrent.Executor THREAD_PER_TASK = r -> new Thread(r).start();
  private static final Duration T = Duration.ofSeconds(10);
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  static final class Recorder implements CoordinatorClient.Events {
    final AtomicReference<NodeDirectory> dir = new AtomicReference<>();
    final List<Integer> down = new CopyOnWriteArrayList<>();

    @Override
    public void onDirectory(NodeDirectory d) {
      dir.set(d);
    }

    @Override
    public void onPeerDown(int nodeId) {
      down.add(nodeId);
    }

    @Override
    public void onCoordinatorLost(Throwable cause) {}
  }

  private Coordinator coordinator(Duration peerTimeout) {
    Coordinator c = Coordinator.start("127.0.0.1", 0, peerTimeout);
    closeables.add(c);
    return c;
  }

  private CoordinatorClient client(Coordinator c, Recorder r, Duration heartbeat) {
    CoordinatorClient cl = CoordinatorClient.connect("127.0.0.1", c.port(), T, heartbeat, r);
    closeables.add(cl);
    return cl;
  }

  @Test
  void joinAssignsNodeIdsAndPublishesTheDirectory() {
    Coordinator c = coordinator(Duration.ofSeconds(5));
    Recorder r0 = new Recorder();
    Recorder r1 = new Recorder();
    CoordinatorClient a = client(c, r0, Duration.ofMillis(100));
    CoordinatorClient b = client(c, r1, Duration.ofMillis(100));
    assertEquals(new CoordinatorClient.Welcome(2, 2, "switch"), b.hello(1, 2, "tcp:x:1", "h", "switch", T));
    assertEquals(new CoordinatorClient.Welcome(1, 2, "switch"), a.hello(0, 2, "tcp:x:2", "h", "switch", T));
    await().atMost(10, TimeUnit.SECONDS).until(() -> r1.dir.get() != null && r1.dir.get().nodes().size() == 2);
    assertEquals("tcp:x:2", r1.dir.get().node(1).address());
    assertTrue(r1.dir.get().isUp(1));
  }

  @Test
  void concurrentJoinsLeaveEveryNodeWithTheFullDirectory() throws Exception {
    // Regression: two joins handled at once could deliver an older directory snapshot after a
    // newer one, so a node waited for a rank that had joined (seen in CI as a join timeout).
    int n = 12;
    for (int round = 0; round < 10; round++) {
      Coordinator c = coordinator(Duration.ofSeconds(5));
      List<Recorder> rs = new ArrayList<>();
      List<CoordinatorClient> cls = new ArrayList<>();
      for (int r = 0; r < n; r++) {
        Recorder rec = new Recorder();
        rs.add(rec);
        cls.add(client(c, rec, Duration.ofMillis(100)));
      }
      java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
      List<CompletableFuture<CoordinatorClient.Welcome>> fs = new ArrayList<>();
      for (int r = 0; r < n; r++) {
        int rank = r;
        fs.add(CompletableFuture.supplyAsync(() -> {
          try {
            go.await();
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
          return cls.get(rank).hello(rank, n, "tcp:x:" + rank, "h", "switch", T);
        }, THREAD_PER_TASK));
      }
      go.countDown();
      for (CompletableFuture<CoordinatorClient.Welcome> f : fs) {
        f.get(10, TimeUnit.SECONDS);
      }
      for (int r = 0; r < n; r++) {
        Recorder rec = rs.get(r);
        await("round " + round + " rank " + r).atMost(10, TimeUnit.SECONDS)
            .until(() -> rec.dir.get() != null && rec.dir.get().nodes().size() == n);
      }
      // Nothing older arrives later: the last directory each node holds stays complete.
      Thread.sleep(20);
      for (Recorder rec : rs) {
        assertEquals(n, rec.dir.get().nodes().size());
      }
    }
  }

  @Test
  void refusesConflictingSizeTopologyAndDuplicateRank() {
    Coordinator c = coordinator(Duration.ofSeconds(5));
    client(c, new Recorder(), Duration.ofMillis(100)).hello(0, 3, "a", "h", "switch", T);
    FabricException e = assertThrows(FabricException.class,
        () -> client(c, new Recorder(), Duration.ofMillis(100)).hello(1, 4, "a", "h", "switch", T));
    assertTrue(e.getMessage().contains("verbs.size=4"), e.getMessage());
    e = assertThrows(FabricException.class,
        () -> client(c, new Recorder(), Duration.ofMillis(100)).hello(1, 3, "a", "h", "peach2:rings=1,nodesPerRing=8,sliceBits=35", T));
    assertTrue(e.getMessage().contains("verbs.topology="), e.getMessage());
    e = assertThrows(FabricException.class, () -> client(c, new Recorder(), Duration.ofMillis(100)).hello(0, 3, "a", "h", "switch", T));
    assertTrue(e.getMessage().contains("verbs.rank=0 already joined"), e.getMessage());
  }

  @Test
  void keyValueGetWaitsForPutAndTimesOutClearly() throws Exception {
    Coordinator c = coordinator(Duration.ofSeconds(5));
    CoordinatorClient a = client(c, new Recorder(), Duration.ofMillis(100));
    CoordinatorClient b = client(c, new Recorder(), Duration.ofMillis(100));
    a.hello(0, 2, "a", "h", "switch", T);
    b.hello(1, 2, "b", "h", "switch", T);
    CompletableFuture<byte[]> pending = CompletableFuture.supplyAsync(() -> b.get("rkey/0", T), THREAD_PER_TASK);
    Thread.sleep(50);
    a.put("rkey/0", new byte[] {1, 2, 3}, T);
    assertArrayEquals(new byte[] {1, 2, 3}, pending.get(10, TimeUnit.SECONDS));
    a.put("rkey/0", new byte[] {1, 2, 3}, T);
    FabricException e = assertThrows(FabricException.class, () -> b.put("rkey/0", new byte[] {9}, T));
    assertTrue(e.getMessage().contains("'rkey/0'"), e.getMessage());
    FabricTimeoutException t = assertThrows(FabricTimeoutException.class, () -> b.get("never", Duration.ofMillis(100)));
    assertTrue(t.getMessage().contains("kvGet key='never' timed out after PT0.1S"), t.getMessage());
  }

  @Test
  void barrierReleasesAllRanksAndTimeoutNamesMissingRanks() throws Exception {
    Coordinator c = coordinator(Duration.ofSeconds(5));
    List<CoordinatorClient> cl = new ArrayList<>();
    for (int r = 0; r < 3; r++) {
      CoordinatorClient x = client(c, new Recorder(), Duration.ofMillis(100));
      x.hello(r, 3, "a" + r, "h", "switch", T);
      cl.add(x);
    }
    FabricTimeoutException t = assertThrows(FabricTimeoutException.class, () -> cl.get(0).barrier("b0", Duration.ofMillis(100)));
    assertTrue(t.getMessage().contains("ranks [1, 2] missing"), t.getMessage());
    List<CompletableFuture<Void>> f = new ArrayList<>();
    for (CoordinatorClient x : cl) {
      f.add(CompletableFuture.runAsync(() -> x.barrier("b1", T), THREAD_PER_TASK));
    }
    CompletableFuture.allOf(f.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
  }

  @Test
  void peersAreToldWhenANodeLeavesOrStopsHeartbeating() {
    Coordinator c = coordinator(Duration.ofMillis(400));
    Recorder r0 = new Recorder();
    CoordinatorClient a = client(c, r0, Duration.ofMillis(50));
    a.hello(0, 3, "a", "h", "switch", T);
    CoordinatorClient b = client(c, new Recorder(), Duration.ofMillis(50));
    b.hello(1, 3, "b", "h", "switch", T);
    // rank 2 heartbeats only once an hour: the coordinator must declare it down after 400 ms
    CoordinatorClient silent = client(c, new Recorder(), Duration.ofHours(1));
    silent.hello(2, 3, "c", "h", "switch", T);
    b.close();
    await().atMost(10, TimeUnit.SECONDS).until(() -> r0.down.contains(2));
    await().atMost(10, TimeUnit.SECONDS).until(() -> r0.down.contains(3));
    assertEquals(List.of(2, 3), r0.down);
    assertFalse(r0.dir.get().isUp(3));
  }
}
