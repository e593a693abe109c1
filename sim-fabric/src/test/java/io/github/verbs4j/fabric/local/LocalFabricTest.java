package io.github.verbs4j.fabric.local;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.*;

import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.FabricTimeoutException;
import io.github.verbs4j.fabric.FabricException;
import io.github.verbs4j.fabric.PeerListener;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LocalFabricTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private LocalFabric fabric;

  @AfterEach
  void close() {
    if (fabric != null) {
      fabric.close();
    }
  }

  private LocalFabric fabric(String mode, Map<String, String> extra) {
    Map<String, String> s = new HashMap<>(extra);
    s.put("verbs.fabric.mode", mode);
    fabric = LocalFabric.create(FabricOptions.from(s, Map.of()), registry);
    return fabric;
  }

  record Got(int src, int dst, int tag, int hops, byte[] bytes, long send, long arrival) {}

  private static void collect(FabricNode n, ConcurrentLinkedQueue<Got> out) {
    n.setReceiver((h, p) -> {
      out.add(new Got(h.src(), h.dst(), h.tag(), h.hops(), ByteBufUtil.getBytes(p), h.sendTimeNanos(), h.arrivalTimeNanos()));
      p.release();
    });
  }

  @ParameterizedTest
  @ValueSource(strings = {"threaded", "deterministic"})
  void framesArriveWholeInOrderWithHeaderFields(String mode) {
    LocalFabric f = fabric(mode, Map.of());
    LocalNode a = f.addNode();
    LocalNode b = f.addNode();
    LocalNode c = f.addNode();
    assertEquals(List.of(1, 2, 3), List.of(a.nodeId(), b.nodeId(), c.nodeId()));
    assertEquals(2, c.rank());
    assertEquals(3, a.size());
    ConcurrentLinkedQueue<Got> atB = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Got> atC = new ConcurrentLinkedQueue<>();
    collect(b, atB);
    collect(c, atC);
    Random rnd = new Random(7);
    List<byte[]> sentToB = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      byte[] p = new byte[rnd.nextInt(3000)];
      rnd.nextBytes(p);
      sentToB.add(p);
      assertTrue(a.send(b.nodeId(), i, Unpooled.wrappedBuffer(p.clone())));
    }
    assertTrue(b.send(c.nodeId(), 9, Unpooled.copiedBuffer("to c", UTF_8)));
    f.awaitIdle(Duration.ofSeconds(10));
    await().atMost(10, TimeUnit.SECONDS).until(() -> atB.size() == 200 && atC.size() == 1);
    List<Got> got = new ArrayList<>(atB);
    for (int i = 0; i < 200; i++) {
      Got g = got.get(i);
      assertArrayEquals(sentToB.get(i), g.bytes(), "frame " + i);
      assertEquals(1, g.src());
      assertEquals(2, g.dst());
      assertEquals(i, g.tag());
      assertEquals(2, g.hops(), "switch: uplink + downlink");
      assertTrue(g.arrival() > g.send());
    }
    assertEquals("to c", new String(atC.peek().bytes(), UTF_8));
    assertEquals(201, f.metrics().framesReceived());
    assertEquals(0, f.metrics().totalDrops());
  }

  @Test
  void dataPathNeverThrowsAndCountsDrops() {
    LocalFabric f = fabric("deterministic", Map.of("verbs.link.mtu", "100"));
    LocalNode a = f.addNode();
    LocalNode b = f.addNode();
    ByteBuf unknown = Unpooled.buffer().writeInt(1);
    assertFalse(a.send(77, unknown));
    assertEquals(0, unknown.refCnt(), "the fabric released the dropped payload");
    assertFalse(a.send(b.nodeId(), Unpooled.buffer().writeBytes(new byte[101])));
    assertTrue(a.send(b.nodeId(), Unpooled.buffer().writeBytes(new byte[100])));
    assertFalse(a.send(b.nodeId(), 0, 0x80, Unpooled.buffer().writeInt(1)), "an undefined header flag");
    f.runUntilIdle();
    assertEquals(1, f.metrics().drops(DropReason.BAD_FLAGS));
    assertEquals(1, f.metrics().drops(DropReason.UNKNOWN_NODE));
    assertEquals(1, f.metrics().drops(DropReason.MTU));
    assertEquals(1, f.metrics().drops(DropReason.NO_RECEIVER), "b had no receiver");
    assertEquals(101, f.metrics().droppedBytes(DropReason.MTU));
    assertEquals(1.0, registry.get("verbs4j.fabric.drops").tag("reason", "mtu").functionCounter().count());
  }

  @Test
  void aReorderedFrameIsOvertakenByTheNextOneOrLeavesWhenItsWindowEnds() {
    LocalFabric f = fabric("deterministic", Map.of("verbs.fault.script", "1-2:reorder@0;1-3:reorder@0"));
    LocalNode a = f.addNode();
    Map<Integer, List<Integer>> got = new HashMap<>();
    for (LocalNode n : List.of(f.addNode(), f.addNode())) {
      List<Integer> l = new ArrayList<>();
      got.put(n.nodeId(), l);
      n.setReceiver((h, p) -> {
        l.add(p.readInt());
        p.release();
      });
    }
    for (int i = 0; i < 3; i++) {
      assertTrue(a.send(2, Unpooled.buffer().writeInt(i)));
    }
    assertTrue(a.send(3, Unpooled.buffer().writeInt(9)));
    f.runUntilIdle();
    assertEquals(List.of(1, 0, 2), got.get(2), "frame 0 waited for frame 1");
    assertEquals(List.of(9), got.get(3), "the window (verbs.fault.reorder-ns, modelled) ended and it left");
    assertEquals(4, f.metrics().framesReceived());
  }

  @Test
  void receiverThatThrowsIsCountedAndDeliveryContinues() {
    LocalFabric f = fabric("deterministic", Map.of());
    LocalNode a = f.addNode();
    LocalNode b = f.addNode();
    List<Integer> seen = new ArrayList<>();
    b.setReceiver((h, p) -> {
      int v = p.readInt();
      p.release();
      seen.add(v);
      if (v == 1) {
        throw new IllegalStateException("test");
      }
    });
    for (int i = 0; i < 3; i++) {
      a.send(2, Unpooled.buffer().writeInt(i));
    }
    f.runUntilIdle();
    assertEquals(List.of(0, 1, 2), seen);
    assertEquals(1, f.metrics().drops(DropReason.RECEIVER_ERROR));
  }

  @Test
  void sendToSelfArrivesAtSendTimeWithZeroHops() {
    LocalFabric f = fabric("deterministic", Map.of());
    LocalNode a = f.addNode();
    ConcurrentLinkedQueue<Got> got = new ConcurrentLinkedQueue<>();
    collect(a, got);
    a.clock().advanceTo(500);
    a.send(1, Unpooled.buffer().writeByte(5));
    f.runUntilIdle();
    Got g = got.poll();
    assertNotNull(g);
    assertEquals(0, g.hops());
    assertEquals(500, g.send());
    assertEquals(500, g.arrival());
  }

  @ParameterizedTest
  @ValueSource(strings = {"threaded", "deterministic"})
  void killedNodeIsReportedDownToEveryPeerAndFramesToItAreDropped(String mode) throws Exception {
    LocalFabric f = fabric(mode, Map.of());
    LocalNode a = f.addNode();
    LocalNode b = f.addNode();
    LocalNode c = f.addNode();
    List<String> events = Collections.synchronizedList(new ArrayList<>());
    for (LocalNode n : List.of(a, b)) {
      n.addPeerListener(new PeerListener() {
        @Override
        public void onPeerDown(int id) {
          events.add(n.nodeId() + " saw " + id + " down");
        }
      });
    }
    f.kill(c.nodeId());
    if (f.deterministic()) {
      f.runUntilIdle();
    }
    await().atMost(10, TimeUnit.SECONDS).until(() -> events.size() == 2);
    assertTrue(events.containsAll(List.of("1 saw 3 down", "2 saw 3 down")), events::toString);
    assertFalse(c.isOpen());
    assertFalse(a.isWritable(3));
    assertFalse(a.send(3, Unpooled.buffer().writeInt(1)));
    assertEquals(1, f.metrics().drops(DropReason.NODE_DOWN));
    assertFalse(c.send(1, Unpooled.buffer().writeInt(1)));
    assertEquals(1, f.metrics().drops(DropReason.CLOSED));
    assertThrows(FabricException.class, () -> c.job().kvPut("k", new byte[1]));
  }

  @Test
  void peerUpIsToldWhenANodeJoins() {
    LocalFabric f = fabric("deterministic", Map.of());
    LocalNode a = f.addNode();
    List<Integer> ups = new ArrayList<>();
    a.addPeerListener(new PeerListener() {
      @Override
      public void onPeerUp(int id) {
        ups.add(id);
      }

      @Override
      public void onPeerDown(int id) {}
    });
    f.addNode();
    f.addNode();
    f.runUntilIdle();
    assertEquals(List.of(2, 3), ups);
    assertEquals(3, a.directory().nodes().size());
    assertTrue(a.directory().isUp(3));
  }

  @Test
  void backPressureMakesDestinationUnwritableThenDropsWhenFull() {
    LocalFabric f = fabric("deterministic", Map.of("verbs.fabric.queue-frames", "16"));
    LocalNode a = f.addNode();
    LocalNode b = f.addNode();
    b.setReceiver((h, p) -> p.release());
    List<String> changes = new ArrayList<>();
    a.addWritabilityListener((dst, w) -> changes.add(dst + ":" + w));
    int accepted = 0;
    for (int i = 0; i < 20; i++) {
      if (i == 11) {
        assertTrue(a.isWritable(2), "below 3/4 of the queue");
      }
      if (a.send(2, Unpooled.buffer().writeInt(i))) {
        accepted++;
      }
    }
    assertFalse(a.isWritable(2));
    assertEquals(16, accepted);
    assertEquals(4, f.metrics().drops(DropReason.BACKPRESSURE));
    f.runUntilIdle();
    assertTrue(a.isWritable(2));
    assertEquals(List.of("2:false", "2:true"), changes);
  }

  @Test
  void deterministicTimersFireInModelledTimeOrderAndAdvanceTheClock() {
    LocalFabric f = fabric("deterministic", Map.of());
    LocalNode a = f.addNode();
    List<String> order = new ArrayList<>();
    a.scheduler().schedule(3000, () -> order.add("t3000@" + a.clock().nowNanos()));
    a.scheduler().schedule(1000, () -> order.add("t1000@" + a.clock().nowNanos()));
    var cancelled = a.scheduler().schedule(2000, () -> order.add("never"));
    assertTrue(cancelled.cancel());
    a.scheduler().execute(() -> order.add("now@" + a.clock().nowNanos()));
    assertEquals(0, a.clock().nowNanos());
    f.runUntil(1500);
    assertEquals(List.of("now@0", "t1000@1000"), order);
    f.runUntilIdle();
    assertEquals(List.of("now@0", "t1000@1000", "t3000@3000"), order);
    assertEquals(3000, a.clock().nowNanos());
  }

  @Test
  void threadedReceiverAndTimersRunOnTheNodeThread() throws Exception {
    LocalFabric f = fabric("threaded", Map.of());
    LocalNode a = f.addNode();
    LocalNode b = f.addNode();
    AtomicReference<String> recvThread = new AtomicReference<>();
    AtomicReference<String> timerThread = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(2);
    b.setReceiver((h, p) -> {
      p.release();
      recvThread.set(Thread.currentThread().getName() + b.scheduler().inFabricThread());
      done.countDown();
    });
    b.scheduler().schedule(1_000_000, () -> {
      timerThread.set(Thread.currentThread().getName());
      done.countDown();
    });
    a.send(2, Unpooled.buffer().writeInt(1));
    assertTrue(done.await(10, TimeUnit.SECONDS));
    assertEquals("verbs4j-local-node-2true", recvThread.get().replaceAll("-\\d+-\\d+true$", "true"));
    assertTrue(timerThread.get().startsWith("verbs4j-local-node-2"), timerThread.get());
  }

  @Test
  void keyValueStoreAndBarrierAcrossThreads() throws Exception {
    LocalFabric f = fabric("threaded", Map.of());
    LocalNode a = f.addNode();
    LocalNode b = f.addNode();
    Thread t = new Thread(() -> {
      b.job().kvPut("qpn/1", new byte[] {7});
      b.job().barrier("ready", Duration.ofSeconds(10));
    });
    t.start();
    assertArrayEquals(new byte[] {7}, a.job().kvGet("qpn/1", Duration.ofSeconds(10)));
    a.job().barrier("ready", Duration.ofSeconds(10));
    t.join(10_000);
    a.job().kvPut("same", new byte[] {1});
    a.job().kvPut("same", new byte[] {1});
    FabricException e = assertThrows(FabricException.class, () -> b.job().kvPut("same", new byte[] {2}));
    assertTrue(e.getMessage().contains("'same'"), e.getMessage());
    FabricTimeoutException te = assertThrows(FabricTimeoutException.class, () -> a.job().kvGet("absent", Duration.ofMillis(50)));
    assertTrue(te.getMessage().contains("'absent'") && te.getMessage().contains("PT0.05S"), te.getMessage());
    FabricTimeoutException be = assertThrows(FabricTimeoutException.class, () -> a.job().barrier("lonely", Duration.ofMillis(50)));
    assertTrue(be.getMessage().contains("ranks [1] missing"), be.getMessage());
  }

  @Test
  void fabricOpenJoinsTheSharedInJvmFabricByName() {
    Map<String, String> s = Map.of("verbs.fabric", "local", "verbs.fabric.name", "open-test", "verbs.fabric.mode", "threaded");
    FabricNode a = Fabric.open(FabricOptions.from(s, Map.of()), registry);
    FabricNode b = Fabric.open(FabricOptions.from(s, Map.of()), registry);
    try {
      assertEquals(1, a.nodeId());
      assertEquals(2, b.nodeId());
      ConcurrentLinkedQueue<Got> got = new ConcurrentLinkedQueue<>();
      collect(b, got);
      a.send(2, Unpooled.copiedBuffer("x", UTF_8));
      await().atMost(10, TimeUnit.SECONDS).until(() -> got.size() == 1);
    } finally {
      a.close();
      b.close();
    }
    FabricNode c = Fabric.open(FabricOptions.from(s, Map.of()), registry);
    try {
      assertEquals(1, c.nodeId(), "the fabric went away with its last node; a new one starts at 1");
    } finally {
      c.close();
    }
  }

  @Test
  void runUntilIdleIsRefusedInThreadedMode() {
    LocalFabric f = fabric("threaded", Map.of());
    IllegalStateException e = assertThrows(IllegalStateException.class, f::runUntilIdle);
    assertTrue(e.getMessage().contains("verbs.fabric.mode=deterministic"));
  }
}
