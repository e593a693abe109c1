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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Scheduler timers with {@code verbs.time=modelled} outside the deterministic mode (threaded local
 * fabric and netty): they fire when the node's modelled clock reaches their deadline, in order
 * with frames, and by the wall-clock safety net only when nothing moves the clock. Links: 100 ns,
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

  private List<FabricNode> twoNodes(String fabric, long wallMinMicros) throws Exception {
    Map<String, String> s = new HashMap<>(Map.of("verbs.time", "modelled", "verbs.link.latency-ns", "100", "verbs.link.forward-ns", "50",
        "verbs.link.bandwidth-mb-s", "1000", "verbs.fabric.timer-wall-min-us", Long.toString(wallMinMicros)));
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
    List<FabricNode> ns = twoNodes(fabric, 60_000_000); // safety net 60 s: never within this test
    FabricNode a = ns.get(0);
    FabricNode b = ns.get(1);
    List<String> events = new CopyOnWriteArrayList<>();
    b.setReceiver((h, p) -> {
      p.release();
      events.add("frame@" + b.clock().nowNanos());
    });
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
    // the clock at its deadline; the one due at 20000 waits (nothing moves the clock there)
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
    List<FabricNode> ns = twoNodes(fabric, 60_000_000);
    FabricNode a = ns.get(0);
    ns.get(1).setReceiver((h, p) -> p.release());
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
  void withNothingMovingTheClockTheSafetyNetFiresAndTheClockJumpsToTheDeadline(String fabric) throws Exception {
    List<FabricNode> ns = twoNodes(fabric, 1000); // 1 ms
    FabricNode a = ns.get(0);
    List<Long> fired = new CopyOnWriteArrayList<>();
    a.scheduler().schedule(2_000_000_000L, () -> fired.add(a.clock().nowNanos())); // 2 s modelled: safety net 2 s
    a.scheduler().schedule(4000, () -> fired.add(a.clock().nowNanos()));
    await().atMost(10, TimeUnit.SECONDS).until(() -> fired.size() == 1);
    assertEquals(List.of(4000L), fired);
    assertEquals(4000, a.clock().nowNanos());
  }

  @Test
  void cancelledTimersArePurgedInBulk() throws Exception {
    DefaultEventLoop loop = new DefaultEventLoop();
    closeables.add(() -> loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly());
    NodeClock clock = NodeClock.modelled();
    List<Integer> ran = new CopyOnWriteArrayList<>();
    ModelledTimers t = new ModelledTimers(clock, loop, 60_000_000_000L, Runnable::run);
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
