package io.github.verbs4j.fabric.netty;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.*;

import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.PeerListener;
import io.github.verbs4j.fabric.testing.ChildJvm;
import io.github.verbs4j.fabric.testing.EmbeddedCoordinator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Four JVM processes — this test (rank 0, node 1) and three children — exchange checked frames over
 * the netty fabric through a coordinator embedded in this JVM; then one child is killed with
 * SIGKILL and every survivor must observe it down within a bounded time.
 */
class MultiProcessFabricIT {
  private static final int SIZE = 4;
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

  private static String drops(FabricNode n) {
    StringBuilder b = new StringBuilder();
    for (io.github.verbs4j.fabric.DropReason r : io.github.verbs4j.fabric.DropReason.values()) {
      if (n.metrics().drops(r) > 0) {
        b.append(r.tag()).append('=').append(n.metrics().drops(r)).append(' ');
      }
    }
    return b.toString();
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /**
   * @param transport {@code tcp}: coordinator started by the test helper; {@code uds}: rank 0 (this
   *     JVM) starts it itself through {@code verbs.coordinator=embedded:127.0.0.1:PORT}; {@code shm}:
   *     as uds, with {@code verbs.fabric.shm=required} (every data frame through the rings)
   */
  @ParameterizedTest
  @ValueSource(strings = {"tcp", "uds", "shm"})
  void processesExchangeFramesAndSurvivorsSeeAKilledPeerDown(String transport) throws Exception {
    String coordSpec;
    String childCoord;
    if (transport.equals("tcp")) {
      coordinator = EmbeddedCoordinator.start(Duration.ofSeconds(3));
      coordSpec = coordinator.address();
      childCoord = coordSpec;
    } else {
      int port = freePort();
      coordSpec = "embedded:127.0.0.1:" + port;
      childCoord = coordSpec; // children are not rank 0: they only connect
    }
    Map<String, String> common = Map.of("verbs.fabric", "netty", "verbs.size", Integer.toString(SIZE),
        "verbs.fabric.transport", transport.equals("shm") ? "uds" : transport,
        "verbs.fabric.shm", transport.equals("shm") ? "required" : "off", "verbs.fabric.heartbeat-ms", "100", "verbs.fabric.peer-timeout-ms", "2000",
        "verbs.fabric.join-timeout-ms", "60000");
    for (int r = 1; r < SIZE; r++) {
      children.add(ChildJvm.builder(FabricChildMain.class).name(transport + "-rank" + r).properties(common)
          .property("verbs.coordinator", childCoord).property("verbs.rank", Integer.toString(r))
          .property("org.slf4j.simpleLogger.defaultLogLevel", "info").start());
    }
    Map<String, String> mine = new HashMap<>(common);
    mine.put("verbs.coordinator", coordSpec);
    mine.put("verbs.rank", "0");
    node = Fabric.open(FabricOptions.from(mine, Map.of()), new SimpleMeterRegistry());
    assertEquals(1, node.nodeId());
    for (int id = 2; id <= SIZE; id++) {
      assertEquals(transport, ((NettyNode) node).transportTo(id));
    }
    Map<Integer, AtomicInteger> intact = new ConcurrentHashMap<>();
    List<String> downReports = new CopyOnWriteArrayList<>();
    node.setReceiver((h, p) -> {
      try {
        int kind = p.getInt(p.readerIndex());
        if (kind == FabricChildMain.HELLO && FabricChildMain.checkHello(p) == h.src()) {
          intact.computeIfAbsent(h.src(), k -> new AtomicInteger()).incrementAndGet();
        } else if (kind == FabricChildMain.DOWN) {
          downReports.add(p.getInt(p.readerIndex() + 4) + " saw " + p.getInt(p.readerIndex() + 8));
        }
      } finally {
        p.release();
      }
    });
    List<Integer> seenDown = new CopyOnWriteArrayList<>();
    node.addPeerListener(new PeerListener() {
      @Override
      public void onPeerDown(int id) {
        seenDown.add(id);
      }
    });
    node.job().barrier("ready", Duration.ofSeconds(60));
    for (int seq = 0; seq < FabricChildMain.FRAMES; seq++) {
      for (int dst = 2; dst <= SIZE; dst++) {
        int d = dst;
        int q = seq;
        assertTrue(node.send(dst, 0, FabricChildMain.hello(node, seq)), () -> "seq " + q + " to " + d + ": " + drops(node));
      }
    }
    await().atMost(60, TimeUnit.SECONDS).until(
        () -> intact.values().stream().mapToInt(AtomicInteger::get).sum() == FabricChildMain.FRAMES * (SIZE - 1));
    for (int r = 1; r < SIZE; r++) {
      String done = new String(node.job().kvGet("done/" + r, Duration.ofSeconds(60)), StandardCharsets.UTF_8);
      assertTrue(done.endsWith("corrupt=0"), "rank " + r + ": " + done);
      assertTrue(done.contains("1=" + FabricChildMain.FRAMES), "rank " + r + " got every frame from node 1: " + done);
    }

    ChildJvm victim = children.get(SIZE - 2); // rank 3, node 4
    victim.kill9();
    assertTrue(victim.process().waitFor(10, TimeUnit.SECONDS));
    // bounded: the kernel closes the victim's sockets; the heartbeat timeout (2 s) is the fallback
    await().atMost(10, TimeUnit.SECONDS).until(() -> seenDown.contains(4));
    await().atMost(10, TimeUnit.SECONDS).until(() -> downReports.containsAll(List.of("2 saw 4", "3 saw 4")));
    assertFalse(node.isWritable(4));
    assertFalse(node.send(4, node.alloc().buffer().writeInt(0)));
    if (transport.equals("shm")) {
      // The killed process could not delete its ring: the survivors did when they saw it down.
      java.nio.file.Path dir = io.github.verbs4j.fabric.shm.ShmLinks.directory(FabricOptions.from(mine, Map.of()));
      String prefix = "n-" + victim.process().pid() + "-";
      await().atMost(10, TimeUnit.SECONDS).until(() -> {
        try (var files = java.nio.file.Files.list(dir)) {
          return files.noneMatch(f -> f.getFileName().toString().startsWith(prefix));
        }
      });
    }

    for (int dst = 2; dst < SIZE; dst++) {
      node.send(dst, 0, node.alloc().buffer(4).writeInt(FabricChildMain.QUIT));
    }
    for (int r = 1; r < SIZE - 1; r++) {
      ChildJvm c = children.get(r - 1);
      assertEquals(0, c.waitFor(Duration.ofSeconds(30)), c.output());
    }
  }
}
