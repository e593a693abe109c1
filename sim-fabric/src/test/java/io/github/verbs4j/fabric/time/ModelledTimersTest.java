package io.github.verbs4j.fabric.time;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.*;

import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.local.LocalFabric;
import io.github.verbs4j.fabric.testing.EmbeddedCoordinator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.DefaultEventLoop;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Scheduler timers with {@code verbs.time=modelled} outside the deterministic mode (threaded local
 * fabric and netty): they fire when the node's modelled clock reaches their deadline, in order
 * with frames, and by themselves only when nothing else can happen first: wall time never moves the
 * clock. Links: 100 ns,
 * 1000 MB/s, 968-byte payloads (1000 ns serialisation); switch topology (forward 50 ns).
 */
class ModelledTimersTest {
  private static final int PAYLOAD = 968;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private List<FabricNode> twoNodes(String fabric) throws Exception {
    Map<String, String> s = new HashMap<>(Map.of("verbs.time", "modelled", "verbs.link.latency-ns", "100", "verbs.link.forward-ns", "50",
        "verbs.link.bandwidth-mb-s", "1000"));
    List<FabricNode> nodes = new ArrayList<>();
    if (fabric.equals("local")) {
      s.put("verbs.fabric.mode", "threaded");
      LocalFabric f = LocalFabric.create(FabricOptions.from(s, Map.of()), new SimpleMeterRegistry());
      closeables.add(f);
      nodes.add(f.addNode());
      nodes.add(f.addNode());
      return nodes;
    }
    EmbeddedCoordinator c = EmbeddedCoordinator.start(Duration.ofSeconds(3));
    closeables.add(c);
    List<CompletableFuture<FabricNode>> fs = new ArrayList<>();
    for (int r = 0; r < 2; r++) {
      Map<String, String> m = new HashMap<>(c.settings(r, 2));
      m.putAll(s);
      FabricOptions o = FabricOptions.from(m, Map.of());
      fs.add(CompletableFuture.supplyAsync(() -> Fabric.open(o, new SimpleMeterRegistry()), r2 -> new Thread(r2).start()));
    }
    for (CompletableFuture<FabricNode> f : fs) {
      FabricNode n = f.get(30, TimeUnit.SECONDS);
      closeables.add(n);
      nodes.add(n);
    }
    return nodes;
  }

  private static void onFabricThread(FabricNode n, Runnable r) throws Exception {
    CompletableFuture<Void> done = new CompletableFuture<>();
    n.scheduler().execute(() -> {
      r.run();
      done.complete(null);
    });
    done.get(10, TimeUnit.SECONDS);
  }

  @ParameterizedTest
  @ValueSource(strings = {"local", "netty"})
  void timersDueBeforeAFrameFireFirstInDeadlineOrderAtTheirDeadlines(String fabric) throws Exception {
    List<FabricNode> ns = twoNodes(fabric);
    FabricNode a = ns.get(0);
    FabricNode b = ns.get(1);
    List<String> events = new CopyOnWriteArrayList<>();
    b.setReceiver((h, p) -> {
      p.release();
      events.add("frame@" + b.clock().nowNanos());
    });
    b.clock().busyProbe(() -> true); // an engine with work in hand: no timer is the next event
    List<FabricTimer> timers = new ArrayList<>();
    onFabricThread(b, () -> {
      for (long d : new long[] {3000, 1000, 2000, 20_000}) {
        timers.add(b.scheduler().schedule(d, () -> events.add("timer" + d + "@" + b.clock().nowNanos())));
      }
    });
    FabricTimer cancelled = b.scheduler().schedule(1500, () -> events.add("cancelled timer ran"));
    assertTrue(cancelled.cancel());
    assertFalse(cancelled.cancel(), "already cancelled");
    a.clock().charge(10_000);
    assertTrue(a.send(2, a.alloc().buffer().writeZero(PAYLOAD)));
    // arrival 10000 + 100 + 50 + 100 + 1000 = 11250; the timers due by then fire first, each with
    // the clock at its deadline; the one due at 20000 waits (b is busy: something may come first)
    await().atMost(10, TimeUnit.SECONDS).until(() -> events.size() >= 4);
    Thread.sleep(50);
    assertEquals(List.of("timer1000@1000", "timer2000@2000", "timer3000@3000", "frame@11250"), events);
    assertFalse(timers.get(0).cancel(), "fired");
    // a charge past 20000 on the fabric thread fires the last one when the task returns
    onFabricThread(b, () -> b.clock().charge(10_000));
    await().atMost(10, TimeUnit.SECONDS).until(() -> events.size() == 5);
    assertEquals("timer20000@21250", events.get(4), "fired at the clock's time: it cannot go back");
  }

  @ParameterizedTest
  @ValueSource(strings = {"local", "netty"})
  void aChargeOnAnotherThreadFiresATimerAtTheNextSend(String fabric) throws Exception {
    List<FabricNode> ns = twoNodes(fabric);
    FabricNode a = ns.get(0);
    ns.get(1).setReceiver((h, p) -> p.release());
    a.clock().busyProbe(() -> true); // the application thread is about to charge
    List<Long> fired = new CopyOnWriteArrayList<>();
    a.scheduler().schedule(500, () -> fired.add(a.clock().nowNanos()));
    a.clock().charge(700); // an application thread's modelled work
    assertTrue(fired.isEmpty());
    assertTrue(a.send(2, a.alloc().buffer().writeZero(8)));
    await().atMost(10, TimeUnit.SECONDS).until(() -> fired.size() == 1);
    assertEquals(700, fired.get(0));
  }

  @ParameterizedTest
  @ValueSource(strings = {"local", "netty"})
  void withNothingElseToHappenTheEarliestTimerIsTheNextEventAndTheClockMovesToIt(String fabric) throws Exception {
    List<FabricNode> ns = twoNodes(fabric);
    FabricNode a = ns.get(0);
    List<Long> fired = new CopyOnWriteArrayList<>();
    onFabricThread(a, () -> { // both queued before the watch looks
      a.scheduler().schedule(2_000_000_000L, () -> fired.add(a.clock().nowNanos())); // 2 s modelled
      a.scheduler().schedule(4000, () -> fired.add(a.clock().nowNanos()));
    });
    // event to event: no wall time passes between them in the model, however long the watch takes
    await().atMost(10, TimeUnit.SECONDS).until(() -> fired.size() == 2);
    assertEquals(List.of(4000L, 2_000_000_000L), fired);
    assertEquals(2_000_000_000L, a.clock().nowNanos());
  }

  @ParameterizedTest
  @ValueSource(strings = {"local", "netty"})
  void aBusyEngineKeepsTheClockFromMovingToATimerHoweverLongItTakes(String fabric) throws Exception {
    List<FabricNode> ns = twoNodes(fabric);
    FabricNode a = ns.get(0);
    AtomicBoolean busy = new AtomicBoolean(true);
    a.clock().busyProbe(busy::get);
    List<Long> fired = new CopyOnWriteArrayList<>();
    a.scheduler().schedule(67_108_864, () -> fired.add(a.clock().nowNanos())); // a 2^14 x 4.096 us timeout
    Thread.sleep(200); // 200 wall ms, far past the old 1 ms safety net
    assertEquals(List.of(), fired, "wall time never moves the modelled clock");
    assertEquals(0, a.clock().nowNanos());
    a.clock().charge(1000); // the engine's work, then idle
    busy.set(false);
    await().atMost(10, TimeUnit.SECONDS).until(() -> fired.size() == 1);
    assertEquals(List.of(67_108_864L), fired);
  }

  @Test
  void onTheLocalFabricAFrameInFlightAndAnotherNodesEarlierTimerComeFirst() throws Exception {
    List<FabricNode> ns = twoNodes("local");
    FabricNode a = ns.get(0);
    FabricNode b = ns.get(1);
    List<String> events = new CopyOnWriteArrayList<>();
    a.setReceiver((h, p) -> {
      p.release();
      events.add("a:frame@" + a.clock().nowNanos());
    });
    b.setReceiver((h, p) -> p.release());
    // a waits for a timeout at 50 us; b's timer at 20 us sends a frame that reaches a first
    AtomicBoolean settingUp = new AtomicBoolean(true); // no timer is the next event until both are queued
    a.clock().busyProbe(settingUp::get);
    a.scheduler().schedule(50_000, () -> events.add("a:timer@" + a.clock().nowNanos()));
    b.scheduler().schedule(20_000, () -> {
      events.add("b:timer@" + b.clock().nowNanos());
      b.send(1, b.alloc().buffer().writeZero(PAYLOAD));
    });
    settingUp.set(false);
    await().atMost(10, TimeUnit.SECONDS).until(() -> events.size() == 3);
    // 20000 + 100 + 50 + 100 + 1000 = 21250
    assertEquals(List.of("b:timer@20000", "a:frame@21250", "a:timer@50000"), events);
  }

  @Test
  void cancelledTimersArePurgedInBulk() throws Exception {
    DefaultEventLoop loop = new DefaultEventLoop();
    closeables.add(() -> loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly());
    NodeClock clock = NodeClock.modelled();
    List<Integer> ran = new CopyOnWriteArrayList<>();
    ModelledTimers t = new ModelledTimers(clock, loop, new Quiescence() {
      @Override
      public long activity() {
        return 0;
      }

      @Override
      public boolean idleUntil(long deadline) {
        return false; // never the next event by itself: only the clock fires them here
      }
    }, 1, Runnable::run);
    for (int i = 0; i < 1000; i++) {
      int k = i;
      FabricTimer x = t.schedule(1_000_000 + i, () -> ran.add(k));
      if (i % 10 != 0) {
        assertTrue(x.cancel());
      }
    }
    int queued = loop.submit(t::queued).get(10, TimeUnit.SECONDS);
    assertTrue(queued < 1000, "cancelled timers purged: " + queued + " queued");
    clock.advanceTo(2_000_000);
    loop.submit(t::runDue).get(10, TimeUnit.SECONDS);
    assertEquals(100, ran.size());
    for (int i = 0; i < 100; i++) {
      assertEquals(i * 10, ran.get(i), "deadline order");
    }
    assertEquals(0, (int) loop.submit(t::queued).get(10, TimeUnit.SECONDS));
  }
}
