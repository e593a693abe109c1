package io.github.verbs4j.fabric.netty;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.testing.EmbeddedCoordinator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.Unpooled;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A netty node's own port ({@code FabricNode.links()}): faults are per process, cut both ways. */
class NettyNodeLinksTest {
  private final List<FabricNode> nodes = new ArrayList<>();
  private EmbeddedCoordinator coordinator;

  @AfterEach
  void close() {
    nodes.forEach(FabricNode::close);
    if (coordinator != null) {
      coordinator.close();
    }
  }

  private void open(int n) throws Exception {
    coordinator = EmbeddedCoordinator.start(Duration.ofSeconds(3));
    List<CompletableFuture<FabricNode>> fs = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      Map<String, String> s = new HashMap<>(coordinator.settings(r, n));
      s.put("verbs.fabric.join-timeout-ms", "20000");
      FabricOptions o = FabricOptions.from(s, Map.of());
      CompletableFuture<FabricNode> f = new CompletableFuture<>();
      new Thread(() -> {
        try {
          f.complete(Fabric.open(o, new SimpleMeterRegistry()));
        } catch (RuntimeException e) {
          f.completeExceptionally(e);
        }
      }).start();
      fs.add(f);
    }
    for (CompletableFuture<FabricNode> f : fs) {
      nodes.add(f.get(30, TimeUnit.SECONDS));
    }
  }

  @Test
  void ownLinksDownCutTheNodeOffInBothDirectionsAndTellOnlyIt() throws Exception {
    open(2);
    FabricNode a = nodes.get(0);
    FabricNode b = nodes.get(1);
    List<String> seenA = new CopyOnWriteArrayList<>();
    List<String> seenB = new CopyOnWriteArrayList<>();
    a.links().addListener(up -> seenA.add(up ? "up" : "down"));
    b.links().addListener(up -> seenB.add(up ? "up" : "down"));
    a.setReceiver((h, p) -> {
      seenA.add("frame " + p.readInt());
      p.release();
    });
    b.setReceiver((h, p) -> {
      seenB.add("frame " + p.readInt());
      p.release();
    });
    a.links().takeDown();
    assertFalse(a.links().isUp());
    assertTrue(b.links().isUp(), "b's process is not told: faults are per process");
    assertFalse(a.send(2, Unpooled.buffer().writeInt(1)), "dropped at the sender");
    assertTrue(b.send(1, Unpooled.buffer().writeInt(2)), "b's process does not know");
    await().atMost(10, TimeUnit.SECONDS).until(() -> a.metrics().drops(DropReason.LINK_DOWN) == 2);
    a.links().bringUp();
    assertTrue(a.links().isUp());
    assertTrue(b.send(1, Unpooled.buffer().writeInt(3)));
    assertTrue(a.send(2, Unpooled.buffer().writeInt(4)));
    await().atMost(10, TimeUnit.SECONDS).until(() -> seenA.size() == 3 && seenB.size() == 1);
    // link events come on the node's fabric thread, frames on the I/O thread: no order between them
    assertEquals(List.of("down", "up"), seenA.stream().filter(e -> !e.startsWith("frame")).toList());
    assertEquals(List.of("frame 3"), seenA.stream().filter(e -> e.startsWith("frame")).toList());
    assertEquals(List.of("frame 4"), seenB);
  }
}
