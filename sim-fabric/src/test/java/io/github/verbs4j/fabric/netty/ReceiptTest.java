package io.github.verbs4j.fabric.netty;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.FrameHeader;
import io.github.verbs4j.fabric.testing.EmbeddedCoordinator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Receipts ({@link FrameHeader#TYPE_RECEIPT}): bytes a node wrote to a peer count as unsent
 * ({@link FabricNode#unsentBytes}) until the peer has decoded them, also once they have left this
 * node's buffers for the sockets, and stop counting once the peer's receipt comes.
 */
class ReceiptTest {
  private static final java.util.concurrent.Executor THREAD_PER_TASK = r -> new Thread(r).start();
  private final List<FabricNode> nodes = new ArrayList<>();
  private EmbeddedCoordinator coordinator;
  private final CountDownLatch release = new CountDownLatch(1);

  @AfterEach
  void close() {
    release.countDown();
    nodes.forEach(FabricNode::close);
    if (coordinator != null) {
      coordinator.close();
    }
  }

  private void open(String transport) throws Exception {
    coordinator = EmbeddedCoordinator.start(Duration.ofSeconds(3));
    List<CompletableFuture<FabricNode>> fs = new ArrayList<>();
    for (int r = 0; r < 2; r++) {
      Map<String, String> s = new HashMap<>(coordinator.settings(r, 2));
      s.put("verbs.fabric.transport", transport);
      s.put("verbs.fabric.join-timeout-ms", "20000");
      FabricOptions o = FabricOptions.from(s, Map.of());
      fs.add(CompletableFuture.supplyAsync(() -> Fabric.open(o, new SimpleMeterRegistry()), THREAD_PER_TASK));
    }
    for (CompletableFuture<FabricNode> f : fs) {
      nodes.add(f.get(30, TimeUnit.SECONDS));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"tcp", "uds"})
  void bytesThePeerHasNotDecodedCountAsUnsentUntilItsReceipt(String transport) throws Exception {
    open(transport);
    FabricNode a = nodes.get(0);
    FabricNode b = nodes.get(1);
    AtomicInteger atA = new AtomicInteger();
    a.setReceiver((h, p) -> {
      atA.incrementAndGet();
      p.release();
    });
    AtomicInteger atB = new AtomicInteger();
    b.setReceiver((h, p) -> {
      p.release();
      if (atB.incrementAndGet() == 1) {
        try {
          release.await(20, TimeUnit.SECONDS); // B's event loop decodes nothing meanwhile
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    });
    int frames = 16;
    int size = 64 << 10;
    long total = frames * (long) (FrameHeader.LENGTH + size);
    for (int i = 0; i < frames; i++) {
      assertTrue(a.send(b.nodeId(), i, a.alloc().directBuffer(size).writeZero(size)));
    }
    await().atMost(20, TimeUnit.SECONDS).until(() -> atB.get() == 1 && a.unsentBytes(b.nodeId()) == total);
    Thread.sleep(100);
    assertEquals(total, a.unsentBytes(b.nodeId()), "all of it, wherever it waits, while B decodes nothing");
    release.countDown();
    await().atMost(20, TimeUnit.SECONDS).until(() -> atB.get() == frames);
    await().atMost(20, TimeUnit.SECONDS).until(() -> a.unsentBytes(b.nodeId()) == 0);
    assertEquals(0, atA.get(), "receipts are not delivered");
    assertEquals(0, a.metrics().totalDrops());
    assertEquals(0, b.metrics().totalDrops());
  }

  @Test
  void aReceiptIsAHeaderWithoutPayload() {
    ByteBuf r = Unpooled.buffer(FrameHeader.LENGTH + 1);
    FrameHeader.write(r, FrameHeader.TYPE_RECEIPT, 0, 0, 2, 1, 0, 0, 1 << 20, 1 << 20);
    assertNull(FrameHeader.check(r, 0, 1024, 1));
    r.setInt(FrameHeader.LENGTH_OFFSET, 1);
    assertEquals(DropReason.TOO_LONG, FrameHeader.check(r, 0, 1024, 1));
  }
}
