package io.github.verbs4j.fabric.netty;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.*;

import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricException;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.FrameHeader;
import io.github.verbs4j.fabric.FabricTimeoutException;
import io.github.verbs4j.fabric.PeerListener;
import io.github.verbs4j.fabric.testing.EmbeddedCoordinator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Three netty nodes in one JVM, over TCP or Unix domain sockets, epoll or NIO. */
class NettyFabricTest {
  /** Blocking calls need a thread each (the common pool may have only one thread on 2 cores). */
  private static final java.util.concurrent.Executor THREAD_PER_TASK = r -> new Thread(r).start();
  private final List<FabricNode> nodes = new ArrayList<>();
  private EmbeddedCoordinator coordinator;

  @AfterEach
  void close() {
    nodes.forEach(FabricNode::close);
    if (coordinator != null) {
      coordinator.close();
    }
  }

  private List<FabricNode> open(int n, Map<String, String> extra) throws Exception {
    coordinator = EmbeddedCoordinator.start(Duration.ofSeconds(3));
    List<CompletableFuture<FabricNode>> fs = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      Map<String, String> s = new HashMap<>(coordinator.settings(r, n));
      s.putAll(extra);
      s.put("verbs.fabric.join-timeout-ms", "20000");
      FabricOptions o = FabricOptions.from(s, Map.of());
      fs.add(CompletableFuture.supplyAsync(() -> Fabric.open(o, new SimpleMeterRegistry()), THREAD_PER_TASK));
    }
    for (CompletableFuture<FabricNode> f : fs) {
      nodes.add(f.get(30, TimeUnit.SECONDS));
    }
    return nodes;
  }

  record Got(int src, int tag, int hops, byte[] bytes) {}

  @ParameterizedTest
  @CsvSource({"tcp,auto", "uds,auto", "tcp,nio", "uds,nio"})
  void framesFlowBetweenAllPairsByteExact(String transport, String io) throws Exception {
    List<FabricNode> ns = open(3, Map.of("verbs.fabric.transport", transport, "verbs.fabric.io", io));
    Map<Integer, List<Got>> got = new ConcurrentHashMap<>();
    for (FabricNode n : ns) {
      List<Got> l = new CopyOnWriteArrayList<>();
      got.put(n.nodeId(), l);
      n.setReceiver((h, p) -> {
        l.add(new Got(h.src(), h.tag(), h.hops(), ByteBufUtil.getBytes(p)));
        p.release();
      });
      assertEquals(n.rank() + 1, n.nodeId());
      assertEquals(3, n.directory().nodes().size());
    }
    for (FabricNode n : ns) {
      for (FabricNode m : ns) {
        if (n != m) {
          assertEquals(transport, ((NettyNode) n).transportTo(m.nodeId()), "transport " + n.nodeId() + "->" + m.nodeId());
        }
      }
    }
    Random rnd = new Random(5);
    Map<String, List<byte[]>> sent = new HashMap<>();
    int[] sizes = {0, 1, 8, 100, 8192, 8193, 65536, 300_000};
    for (int round = 0; round < sizes.length; round++) {
      for (FabricNode n : ns) {
        for (FabricNode m : ns) {
          byte[] p = new byte[sizes[round]];
          rnd.nextBytes(p);
          sent.computeIfAbsent(n.nodeId() + ">" + m.nodeId(), k -> new ArrayList<>()).add(p);
          ByteBuf b = n.alloc().directBuffer(p.length).writeBytes(p);
          assertTrue(n.send(m.nodeId(), round, b));
        }
      }
    }
    await().atMost(20, TimeUnit.SECONDS).until(() -> got.values().stream().mapToInt(List::size).sum() == 9 * sizes.length);
    for (FabricNode m : ns) {
      for (FabricNode n : ns) {
        List<Got> from = got.get(m.nodeId()).stream().filter(g -> g.src() == n.nodeId()).toList();
        List<byte[]> exp = sent.get(n.nodeId() + ">" + m.nodeId());
        assertEquals(exp.size(), from.size());
        for (int i = 0; i < exp.size(); i++) {
          assertArrayEquals(exp.get(i), from.get(i).bytes(), n.nodeId() + "->" + m.nodeId() + " #" + i);
          assertEquals(i, from.get(i).tag(), "in order");
          assertEquals(n == m ? 0 : 2, from.get(i).hops());
        }
      }
      assertEquals(0, m.metrics().totalDrops());
    }
  }

  @Test
  void keyValueBarrierAndPeerDownWhenANodeCloses() throws Exception {
    List<FabricNode> ns = open(3, Map.of());
    FabricNode a = ns.get(0);
    FabricNode c = ns.get(2);
    CompletableFuture<Void> bar = CompletableFuture.runAsync(() -> ns.get(1).job().barrier("x", Duration.ofSeconds(10)), THREAD_PER_TASK);
    c.job().kvPut("qpn/2", new byte[] {42});
    assertArrayEquals(new byte[] {42}, a.job().kvGet("qpn/2", Duration.ofSeconds(10)));
    CompletableFuture<Void> bar2 = CompletableFuture.runAsync(() -> c.job().barrier("x", Duration.ofSeconds(10)), THREAD_PER_TASK);
    a.job().barrier("x", Duration.ofSeconds(10));
    bar.get(10, TimeUnit.SECONDS);
    bar2.get(10, TimeUnit.SECONDS);
    FabricTimeoutException t = assertThrows(FabricTimeoutException.class, () -> a.job().kvGet("nope", Duration.ofMillis(100)));
    assertTrue(t.getMessage().contains("'nope'"), t.getMessage());
    List<Integer> down = new CopyOnWriteArrayList<>();
    a.addPeerListener(new PeerListener() {
      @Override
      public void onPeerDown(int nodeId) {
        down.add(nodeId);
      }
    });
    c.close();
    await().atMost(10, TimeUnit.SECONDS).until(() -> down.contains(3));
    assertFalse(a.isWritable(3));
    assertFalse(a.send(3, a.alloc().buffer().writeInt(1)));
    assertEquals(1, a.metrics().drops(DropReason.NODE_DOWN));
    assertFalse(a.send(99, a.alloc().buffer().writeInt(1)));
    assertEquals(1, a.metrics().drops(DropReason.UNKNOWN_NODE));
    assertThrows(FabricException.class, () -> c.job().kvPut("k", new byte[0]));
    assertFalse(c.send(1, a.alloc().buffer().writeInt(1)));
  }

  @Test
  void embeddedCoordinatorSchemeAndModelledTime() throws Exception {
    // rank 0 runs the coordinator: a single-rank job with verbs.coordinator empty
    Map<String, String> s = Map.of("verbs.fabric", "netty", "verbs.time", "modelled", "verbs.topology", "peach2:rings=1,nodesPerRing=4",
        "verbs.link.latency-ns", "100", "verbs.link.forward-ns", "50", "verbs.link.bandwidth-mb-s", "1000");
    FabricNode n = Fabric.open(FabricOptions.from(s, Map.of()), new SimpleMeterRegistry());
    nodes.add(n);
    assertNotNull(((NettyNode) n).embeddedCoordinator());
    assertEquals(1, n.nodeId());
    List<Long> arrivals = new CopyOnWriteArrayList<>();
    n.setReceiver((h, p) -> {
      arrivals.add(h.arrivalTimeNanos());
      p.release();
    });
    n.clock().charge(1000);
    n.send(1, n.alloc().buffer().writeZero(968));
    await().atMost(10, TimeUnit.SECONDS).until(() -> arrivals.size() == 1);
    assertEquals(1000, arrivals.get(0), "to self: arrival = send time");
    n.job().kvPut("k", new byte[] {1});
    n.job().barrier("solo", Duration.ofSeconds(5));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Fabric.open(FabricOptions.from(Map.of("verbs.fabric", "netty", "verbs.size", "2"), Map.of()), new SimpleMeterRegistry()));
    assertTrue(e.getMessage().contains("verbs.coordinator"), e.getMessage());
  }

  @Test
  void modelledArrivalOnARingAndFaultsAtTheSender() throws Exception {
    List<FabricNode> ns = open(3, Map.of("verbs.time", "modelled", "verbs.topology", "peach2:rings=1,nodesPerRing=4",
        "verbs.link.latency-ns", "100", "verbs.link.forward-ns", "50", "verbs.link.bandwidth-mb-s", "1000",
        "verbs.fault.script", "1-3:drop@1"));
    List<Long> arrivals = new CopyOnWriteArrayList<>();
    List<Integer> hops = new CopyOnWriteArrayList<>();
    ns.get(2).setReceiver((h, p) -> {
      arrivals.add(h.arrivalTimeNanos());
      hops.add(h.hops());
      p.release();
    });
    for (int i = 0; i < 3; i++) {
      assertTrue(ns.get(0).send(3, ns.get(0).alloc().buffer().writeZero(968)));
    }
    await().atMost(10, TimeUnit.SECONDS).until(() -> arrivals.size() == 2);
    // node 1 -> 3 on a ring of 4: 2 hops east; 0 + 2x100 + 50 + 1000 = 1250; frame #1 is dropped at
    // the sender and occupies no link; frame #2 queues behind #0 on the first link (busy until
    // 1000): 1000 + 100 + 50 + 100 + 1000 = 2250
    assertEquals(List.of(1250L, 2250L), arrivals);
    assertEquals(List.of(2, 2), hops);
    assertEquals(2250, ns.get(2).clock().nowNanos());
    assertEquals(1, ns.get(0).metrics().drops(DropReason.FAULT_DROP));
    assertEquals(2, ns.get(1).metrics().framesForwarded(), "board 2 forwarded both frames");
    assertEquals(0, ns.get(1).metrics().framesReceived());
  }

  @Test
  void theSenderLosesAnUncheckedFrameItWasToCorruptAndCorruptsACheckedOne() throws Exception {
    List<FabricNode> ns = open(2, Map.of("verbs.fault.script", "1-2:corrupt@0,1"));
    assertTrue(ns.get(0).mayCorrupt(), "the script corrupts frames node 1 sends");
    List<Long> got = new CopyOnWriteArrayList<>();
    List<String> tags = new CopyOnWriteArrayList<>();
    ns.get(1).setReceiver((h, p) -> {
      got.add(p.getLong(p.readerIndex()));
      tags.add(h.tag() + "/" + h.flags());
      p.release();
    });
    assertTrue(ns.get(0).send(2, 7, FrameHeader.FLAG_UNCHECKED, ns.get(0).alloc().buffer().writeLong(0)));
    assertTrue(ns.get(0).send(2, 7, ns.get(0).alloc().buffer().writeLong(0)));
    assertTrue(ns.get(0).send(2, 7, FrameHeader.FLAG_UNCHECKED, ns.get(0).alloc().buffer().writeLong(0)));
    await().atMost(10, TimeUnit.SECONDS).until(() -> got.size() == 2);
    assertEquals(1, Long.bitCount(got.get(0)), "the checked frame arrives with one bit flipped: " + got);
    assertEquals(0L, got.get(1), "the frame after the script arrives intact");
    assertEquals(List.of("7/0", "7/" + FrameHeader.FLAG_UNCHECKED), tags);
    assertEquals(1, ns.get(0).metrics().drops(DropReason.UNCHECKED_CORRUPT));
  }

  @Test
  void aReorderedFrameIsOvertakenByTheNextOneOrLeavesWhenItsWindowEnds() throws Exception {
    // A 2 s window: long enough that the next send always comes first, short enough to wait for.
    List<FabricNode> ns = open(3, Map.of("verbs.fault.script", "1-2:reorder@0;1-3:reorder@0",
        "verbs.fault.reorder-ns", "2000000000"));
    Map<Integer, List<Integer>> got = new ConcurrentHashMap<>();
    for (FabricNode n : ns.subList(1, 3)) {
      List<Integer> l = new CopyOnWriteArrayList<>();
      got.put(n.nodeId(), l);
      n.setReceiver((h, p) -> {
        l.add(p.readInt());
        p.release();
      });
    }
    FabricNode a = ns.get(0);
    for (int i = 0; i < 3; i++) {
      assertTrue(a.send(2, a.alloc().buffer().writeInt(i)));
    }
    assertTrue(a.send(3, a.alloc().buffer().writeInt(9)), "held: nothing follows it to node 3");
    await().atMost(10, TimeUnit.SECONDS).until(() -> got.get(2).size() == 3 && got.get(3).size() == 1);
    assertEquals(List.of(1, 0, 2), got.get(2), "frame 0 waited for frame 1");
    assertEquals(List.of(9), got.get(3), "the window ended and the held frame left");
    assertEquals(2, ((NettyNode) a).faults().injected(io.github.verbs4j.fabric.fault.FaultAction.REORDER));
    assertEquals(4, a.metrics().framesSent());
  }

  @Test
  void switchLinkToANodeIsModelledByThatNodeSoTwoSendersQueueOnIt() throws Exception {
    List<FabricNode> ns = open(3, Map.of("verbs.time", "modelled", "verbs.link.latency-ns", "100", "verbs.link.forward-ns", "50",
        "verbs.link.bandwidth-mb-s", "1000"));
    List<Long> arrivals = new CopyOnWriteArrayList<>();
    ns.get(2).setReceiver((h, p) -> {
      arrivals.add(h.arrivalTimeNanos());
      assertEquals(2, h.hops());
      p.release();
    });
    assertTrue(ns.get(0).send(3, ns.get(0).alloc().buffer().writeZero(968)));
    assertTrue(ns.get(1).send(3, ns.get(1).alloc().buffer().writeZero(968)));
    await().atMost(10, TimeUnit.SECONDS).until(() -> arrivals.size() == 2);
    // Both heads reach the switch's link to node 3 at 0 + 100 + 50 = 150, whichever process sent
    // first: one takes it [150, 1150) and arrives 150 + 100 + 1000 = 1250, the other waits 1000 ns.
    assertEquals(List.of(1250L, 2250L), arrivals.stream().sorted().toList());
    int downlink = ns.get(2).topology().route(1, 3).link(1);
    assertEquals(1000, ((NettyNode) ns.get(2)).linkModel().queueingNanos(downlink));
    assertEquals(0, ((NettyNode) ns.get(0)).linkModel().queueingNanos(downlink), "the sender does not model it");
    assertEquals(0, ns.get(0).metrics().framesForwarded());
  }

  @Test
  void largeFramesForwardedThroughAnIntermediateBoardArriveByteExactInOrder() throws Exception {
    List<FabricNode> ns = open(3, Map.of("verbs.topology", "peach2:rings=1,nodesPerRing=4", "verbs.fabric.transport", "uds"));
    List<byte[]> got = new CopyOnWriteArrayList<>();
    ns.get(2).setReceiver((h, p) -> {
      got.add(ByteBufUtil.getBytes(p));
      p.release();
    });
    Random rnd = new Random(7);
    List<byte[]> sent = new ArrayList<>();
    for (int size : new int[] {1, 8193, 300_000, 1 << 20, 70_000}) {
      byte[] p = new byte[size];
      rnd.nextBytes(p);
      sent.add(p);
      assertTrue(ns.get(0).send(3, ns.get(0).alloc().directBuffer(size).writeBytes(p)));
    }
    await().atMost(20, TimeUnit.SECONDS).until(() -> got.size() == sent.size());
    for (int i = 0; i < sent.size(); i++) {
      assertArrayEquals(sent.get(i), got.get(i), "frame #" + i);
    }
    assertEquals(sent.size(), ns.get(1).metrics().framesForwarded(), "every frame went 1 -> 2 -> 3");
    assertEquals(0, ns.get(1).metrics().framesReceived());
    for (FabricNode n : ns) {
      assertEquals(0, n.metrics().totalDrops());
    }
  }

  @ParameterizedTest
  @CsvSource({"uds", "tcp"})
  void aSenderThatRespectsIsWritableAlwaysGetsThroughAsThePathFlipsThousandsOfTimes(String transport) throws Exception {
    // Small water marks: the outbox's writability bit turns on and off every few frames, set by the
    // sending thread and cleared by the event loop's drains; it must never stay set with nothing
    // queued.
    List<FabricNode> ns = open(2, Map.of("verbs.fabric.transport", transport, "verbs.fabric.high-water-bytes", "16384",
        "verbs.fabric.max-pending-bytes", "1048576"));
    FabricNode a = ns.get(0);
    java.util.concurrent.atomic.AtomicInteger got = new java.util.concurrent.atomic.AtomicInteger();
    ns.get(1).setReceiver((h, p) -> {
      p.release();
      got.incrementAndGet();
    });
    int frames = 20_000;
    for (int i = 0; i < frames; i++) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!a.isWritable(2)) {
        assertTrue(System.nanoTime() < deadline, "frame " + i + ": the path stayed unwritable for 10 s");
        Thread.onSpinWait();
      }
      assertTrue(a.send(2, a.alloc().directBuffer(2048).writeZero(2048)), "frame " + i);
    }
    await().atMost(30, TimeUnit.SECONDS).until(() -> got.get() == frames);
    await().atMost(10, TimeUnit.SECONDS).until(() -> a.isWritable(2));
    assertEquals(0, a.metrics().drops(DropReason.BACKPRESSURE));
  }

  @ParameterizedTest
  @CsvSource({"uds", "tcp"})
  void aStalledReceiverMakesThePathUnwritableThenDropsBeyondTheHardLimitAndRecovers(String transport) throws Exception {
    List<FabricNode> ns = open(2, Map.of("verbs.fabric.transport", transport, "verbs.fabric.high-water-bytes", "1048576",
        "verbs.fabric.max-pending-bytes", "4194304"));
    FabricNode a = ns.get(0);
    FabricNode b = ns.get(1);
    java.util.concurrent.CountDownLatch stall = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.atomic.AtomicInteger got = new java.util.concurrent.atomic.AtomicInteger();
    b.setReceiver((h, p) -> {
      p.release();
      got.incrementAndGet();
      try {
        stall.await(20, TimeUnit.SECONDS); // the first frame stalls node 2's event loop
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    List<Boolean> events = new CopyOnWriteArrayList<>();
    a.addWritabilityListener((dst, w) -> {
      if (dst == 2) {
        events.add(w);
      }
    });
    // A sender that respects isWritable is never refused; the path turns unwritable and stays so.
    int ok = 0;
    long unwritableSince = 0;
    for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15); System.nanoTime() < deadline; ) {
      if (a.isWritable(2)) {
        unwritableSince = 0;
        assertTrue(a.send(2, a.alloc().directBuffer(256 * 1024).writeZero(256 * 1024)), "frame " + ok);
        ok++;
      } else if (unwritableSince == 0) {
        unwritableSince = System.nanoTime();
      } else if (System.nanoTime() - unwritableSince > TimeUnit.MILLISECONDS.toNanos(200)) {
        break;
      } else {
        Thread.sleep(1);
      }
    }
    assertFalse(a.isWritable(2), "the stalled receiver made the path unwritable after " + ok + " frames");
    await().atMost(10, TimeUnit.SECONDS).until(() -> events.contains(false));
    assertEquals(0, a.metrics().drops(DropReason.BACKPRESSURE));
    // A sender that ignores it is refused once the hard limit is reached: nothing buffers without bound.
    int more = 0;
    int refused = 0;
    while (refused < 3 && more < 1000) {
      if (a.send(2, a.alloc().directBuffer(256 * 1024).writeZero(256 * 1024))) {
        more++;
      } else {
        refused++;
      }
    }
    assertEquals(3, refused);
    assertEquals(3, a.metrics().drops(DropReason.BACKPRESSURE));
    assertTrue(more <= 16, more + " more frames (256 KiB) accepted beyond the high-water mark; the hard limit is 4 MiB");
    stall.countDown();
    int sent = ok + more;
    await().atMost(20, TimeUnit.SECONDS).until(() -> got.get() == sent);
    await().atMost(10, TimeUnit.SECONDS).until(() -> a.isWritable(2) && events.get(events.size() - 1));
  }
}
