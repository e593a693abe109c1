package io.github.verbs4j.fabric.netty;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.*;

import io.github.verbs4j.fabric.CallerProgress;
import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.testing.EmbeddedCoordinator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * {@code verbs.fabric.progress=caller}: a thread that calls {@link CallerProgress#progress} runs the
 * node's I/O itself ({@link SharedIoEventLoop}); the background thread runs it when nobody does.
 */
class CallerProgressTest {
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

  private List<FabricNode> open(String io, String leaseUs) throws Exception {
    coordinator = EmbeddedCoordinator.start(Duration.ofSeconds(3));
    List<CompletableFuture<FabricNode>> fs = new ArrayList<>();
    for (int r = 0; r < 2; r++) {
      Map<String, String> s = new HashMap<>(coordinator.settings(r, 2));
      s.put("verbs.fabric.progress", "caller");
      s.put("verbs.fabric.progress-lease-us", leaseUs);
      s.put("verbs.fabric.io", io);
      s.put("verbs.fabric.join-timeout-ms", "20000");
      FabricOptions o = FabricOptions.from(s, Map.of());
      fs.add(CompletableFuture.supplyAsync(() -> Fabric.open(o, new SimpleMeterRegistry()), THREAD_PER_TASK));
    }
    for (CompletableFuture<FabricNode> f : fs) {
      nodes.add(f.get(30, TimeUnit.SECONDS));
    }
    return nodes;
  }

  /**
   * Polls until this thread gets the loop once (the background thread, which drives at start, has
   * stepped back); with a long lease it then stays this thread's.
   */
  private static void takeLoop(FabricNode n) {
    AtomicBoolean held = new AtomicBoolean();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!held.get()) {
      cp(n).progress(() -> {
        held.set(n.scheduler().inFabricThread());
        return held.get() ? 1 : 0; // got it: as a caller that found work, it keeps the lease
      });
      assertTrue(System.nanoTime() < until, "the caller never got the loop");
    }
  }

  private static CallerProgress cp(FabricNode n) {
    return n.callerProgress().orElseThrow();
  }

  /** {@code n}'s receiver keeps each frame's int and the thread that delivered the last one. */
  private static void record(FabricNode n, ConcurrentLinkedQueue<Integer> values, AtomicReference<Thread> deliveredOn) {
    n.setReceiver((h, p) -> {
      deliveredOn.set(Thread.currentThread());
      values.add(p.readInt());
      p.release();
    });
  }

  private static ByteBuf frame(FabricNode n, int value) {
    return n.alloc().directBuffer(4).writeInt(value);
  }

  @ParameterizedTest
  @ValueSource(strings = {"auto", "nio"})
  void aPollingCallerRunsTheIoOnItsOwnThreadAndItsSendsLeaveAtOnce(String io) throws Exception {
    List<FabricNode> ns = open(io, "5000000"); // 5 s: the background thread stays out while we poll, on a loaded host too
    FabricNode a = ns.get(0);
    FabricNode b = ns.get(1);
    ConcurrentLinkedQueue<Integer> atA = new ConcurrentLinkedQueue<>();
    AtomicReference<Thread> deliveredOn = new AtomicReference<>();
    record(a, atA, deliveredOn);
    // b echoes from whatever thread runs its I/O (its background thread: nobody polls b).
    b.setReceiver((h, p) -> b.send(h.src(), p));

    Thread me = Thread.currentThread();
    AtomicInteger sentInLoop = new AtomicInteger();
    int rounds = 200;
    for (int i = 0; i < rounds; i++) {
      int v = i;
      cp(a).progress(() -> {
        if (a.scheduler().inFabricThread()) {
          sentInLoop.incrementAndGet();
        }
        assertTrue(a.send(b.nodeId(), frame(a, v)));
        return 1;
      });
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (atA.size() <= i) {
        cp(a).progress(() -> 1); // "found work": a preemption while it spins does not hand the loop over
        Thread.onSpinWait();
        assertTrue(System.nanoTime() < deadline, "echo " + i + " did not come back");
      }
    }
    List<Integer> got = new ArrayList<>(atA);
    for (int i = 0; i < rounds; i++) {
      assertEquals(i, got.get(i));
    }
    // After the first round or two (the background thread may hold the loop when we start), the
    // poller is the loop: echoes are delivered on it, and its sends run as the fabric thread.
    assertSame(me, deliveredOn.get());
    assertTrue(sentInLoop.get() >= rounds - 2, "sends made as the fabric thread: " + sentInLoop.get());
  }

  @Test
  void withNoCallerTheBackgroundThreadDeliversAndRunsTasksAndTimers() throws Exception {
    List<FabricNode> ns = open("auto", "200");
    FabricNode a = ns.get(0);
    FabricNode b = ns.get(1);
    CountDownLatch got = new CountDownLatch(50);
    AtomicReference<String> thread = new AtomicReference<>();
    b.setReceiver((h, p) -> {
      thread.set(Thread.currentThread().getName());
      p.release();
      got.countDown();
    });
    for (int i = 0; i < 50; i++) {
      assertTrue(a.send(b.nodeId(), frame(a, i))); // from a plain thread: queued for the loop
    }
    assertTrue(got.await(10, TimeUnit.SECONDS), "frames left: " + got.getCount());
    assertTrue(thread.get().startsWith("verbs4j-fabric-rank"), thread.get());

    CountDownLatch ran = new CountDownLatch(2);
    a.scheduler().execute(ran::countDown);
    a.scheduler().schedule(TimeUnit.MILLISECONDS.toNanos(5), ran::countDown);
    assertTrue(ran.await(10, TimeUnit.SECONDS));
  }

  @Test
  void aCallerTakesTheLoopOverFromTheBlockedBackgroundThread() throws Exception {
    List<FabricNode> ns = open("auto", "1000");
    FabricNode a = ns.get(0);
    Thread.sleep(50); // nobody has polled for 50 ms: the background thread is blocked in the selector
    Thread me = Thread.currentThread();
    AtomicInteger asLoop = new AtomicInteger();
    int calls = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (asLoop.get() == 0) {
      cp(a).progress(() -> {
        if (a.scheduler().inFabricThread()) {
          asLoop.incrementAndGet();
        }
        return 0;
      });
      calls++;
      assertTrue(System.nanoTime() < deadline, "the caller never got the loop");
    }
    assertTrue(calls >= 1);
    // Nested calls run only the work, on the same thread, still as the loop. (The outer call may
    // find the loop back with the background thread if the lease ran out meanwhile on a loaded
    // machine: then try again.)
    AtomicInteger nested = new AtomicInteger();
    while (nested.get() == 0) {
      cp(a).progress(() -> {
        boolean outer = a.scheduler().inFabricThread();
        return cp(a).progress(() -> {
          assertSame(me, Thread.currentThread());
          if (outer) {
            nested.set(a.scheduler().inFabricThread() ? 1 : 2);
          }
          return 0;
        });
      });
      assertTrue(System.nanoTime() < deadline, "the caller never got the loop again");
    }
    assertEquals(1, nested.get());
  }

  @Test
  void aCallerThatYieldsHandsTheIoToTheBackgroundThreadBeforeTheLeaseEnds() throws Exception {
    List<FabricNode> ns = open("auto", "60000000"); // a one-minute lease
    FabricNode a = ns.get(0);
    FabricNode b = ns.get(1);
    CountDownLatch got = new CountDownLatch(1);
    AtomicReference<String> thread = new AtomicReference<>();
    a.setReceiver((h, p) -> {
      thread.set(Thread.currentThread().getName());
      p.release();
      got.countDown();
    });
    for (int i = 0; i < 100; i++) {
      cp(a).progress(() -> 0); // a polls: the background thread now stays out for the lease
    }
    cp(a).yieldProgress();
    cp(b).progress(() -> b.send(a.nodeId(), frame(b, 7)) ? 1 : 0);
    cp(b).yieldProgress();
    assertTrue(got.await(10, TimeUnit.SECONDS), "the frame waited for the lease");
    assertTrue(thread.get().startsWith("verbs4j-fabric-rank"), thread.get());
  }

  @Test
  void aCallerThatOnlySendsSkipsTheSocketsButItsFramesLeaveAtOnce() throws Exception {
    List<FabricNode> ns = open("auto", "60000000"); // a one-minute lease: only callers drive a
    FabricNode a = ns.get(0);
    FabricNode b = ns.get(1);
    ConcurrentLinkedQueue<Integer> atA = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Integer> atB = new ConcurrentLinkedQueue<>();
    a.setReceiver((h, p) -> {
      atA.add(p.readInt());
      p.release();
    });
    b.setReceiver((h, p) -> {
      atB.add(p.readInt());
      p.release();
    });
    takeLoop(a); // from now on only this thread runs a's I/O
    assertTrue(b.send(a.nodeId(), frame(b, 7)));
    AtomicInteger inLoop = new AtomicInteger();
    for (int i = 0; i < 20; i++) {
      int v = i;
      cp(a).progress(() -> {
        if (a.scheduler().inFabricThread()) {
          inLoop.incrementAndGet();
        }
        assertTrue(a.send(b.nodeId(), frame(a, v)));
        return 1;
      }, false);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> atB.size() == 20);
    assertEquals(20, inLoop.get(), "the sends ran as the fabric thread");
    Thread.sleep(100);
    assertTrue(atA.isEmpty(), "send-only passes do not read the sockets");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (atA.isEmpty()) {
      cp(a).progress(() -> 0);
      assertTrue(System.nanoTime() < deadline, "a poll reads what arrived");
    }
    assertEquals(7, atA.peek());
  }

  @Test
  void whenCallersStopTheBackgroundThreadRunsTheTakeoverTaskOncePerTakeover() throws Exception {
    List<FabricNode> ns = open("auto", "60000000"); // a one-minute lease
    FabricNode a = ns.get(0);
    AtomicInteger runs = new AtomicInteger();
    AtomicReference<Thread> on = new AtomicReference<>();
    cp(a).onCallersIdle(() -> {
      on.set(Thread.currentThread());
      runs.incrementAndGet();
    });
    takeLoop(a); // a caller polls: the background thread stays out for the lease
    int before = runs.get();
    Thread.sleep(200);
    assertEquals(before, runs.get(), "no takeover within the lease");
    cp(a).yieldProgress();
    await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() == before + 1);
    assertNotEquals(Thread.currentThread(), on.get(), "on the background thread");
    Thread.sleep(200);
    assertEquals(before + 1, runs.get(), "once per takeover, not per pass");
    cp(a).progress(() -> 0);
    cp(a).yieldProgress();
    await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() == before + 2);
  }

  @Test
  void eachTakeoverByTheBackgroundThreadIsCountedInTheFabricMetrics() throws Exception {
    List<FabricNode> ns = open("auto", "60000000"); // a one-minute lease
    FabricNode a = ns.get(0);
    AtomicInteger runs = new AtomicInteger();
    cp(a).onCallersIdle(runs::incrementAndGet);
    takeLoop(a);
    io.micrometer.core.instrument.FunctionCounter takeovers = a.metrics().registry().find("verbs4j.fabric.progress")
        .tag("kind", "takeover").functionCounter();
    assertNotNull(takeovers);
    assertNotNull(a.metrics().registry().find("verbs4j.fabric.progress").tag("kind", "caller_missed").functionCounter());
    double before = takeovers.count();
    int hooks = runs.get();
    Thread.sleep(100);
    assertEquals(before, takeovers.count(), "no takeover within the lease");
    cp(a).yieldProgress();
    await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() == hooks + 1);
    assertEquals(before + 1, takeovers.count(), "one per takeover, with its hook");
  }

  /**
   * A caller that waits in the loop ({@link CallerProgress#awaitIo}) takes it from the background
   * thread, blocks in the selector, and the frame that ends its wait is delivered on it; meanwhile
   * the background thread, though the lease is short, does not take the loop over.
   */
  @Test
  void aWaitingCallerBlocksInTheLoopAndTheFrameThatEndsItsWaitIsDeliveredOnIt() throws Exception {
    List<FabricNode> ns = open("auto", "50000"); // 50 ms: gaps between this thread's calls stay shorter
    FabricNode a = ns.get(0);
    FabricNode b = ns.get(1);
    ConcurrentLinkedQueue<Integer> atA = new ConcurrentLinkedQueue<>();
    AtomicReference<Thread> deliveredOn = new AtomicReference<>();
    record(a, atA, deliveredOn);
    Thread.sleep(100); // nobody has polled for two leases: a's background thread blocks in the selector
    io.micrometer.core.instrument.FunctionCounter takeovers = a.metrics().registry().find("verbs4j.fabric.progress")
        .tag("kind", "takeover").functionCounter();
    Thread me = Thread.currentThread();
    AtomicInteger workAsLoop = new AtomicInteger();
    // Take the loop with a first, short wait, then wait for b's frame.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!cp(a).awaitIo(null, () -> true, TimeUnit.MILLISECONDS.toNanos(100))) {
      assertTrue(System.nanoTime() < deadline, "the waiting caller never got the loop");
    }
    double takeoversBefore = takeovers.count();
    CompletableFuture.runAsync(() -> {
      try {
        Thread.sleep(500); // ten leases
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      assertTrue(b.send(a.nodeId(), frame(b, 42)));
    }, THREAD_PER_TASK);
    while (atA.isEmpty()) {
      assertTrue(cp(a).awaitIo(() -> {
        if (a.scheduler().inFabricThread()) {
          workAsLoop.incrementAndGet();
        }
        return 0;
      }, () -> !atA.isEmpty(), TimeUnit.SECONDS.toNanos(10)), "the loop stayed with the waiting caller");
      assertTrue(System.nanoTime() < deadline + TimeUnit.SECONDS.toNanos(10), "the frame never came");
    }
    assertEquals(42, atA.peek());
    assertSame(me, deliveredOn.get());
    assertTrue(workAsLoop.get() >= 1);
    assertEquals(takeoversBefore, takeovers.count(), "the background thread stayed out while the caller waited");
  }

  @Test
  void aWaitEndsWhenAnotherThreadMakesItReadyAndWakesIt() throws Exception {
    List<FabricNode> ns = open("auto", "200");
    FabricNode a = ns.get(0);
    AtomicBoolean ready = new AtomicBoolean();
    CompletableFuture.runAsync(() -> {
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      ready.set(true);
      cp(a).wakeAwaiting();
    }, THREAD_PER_TASK);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!ready.get()) {
      cp(a).awaitIo(null, ready::get, TimeUnit.SECONDS.toNanos(1));
      assertTrue(System.nanoTime() < deadline, "never ready");
    }
    AtomicInteger ran = new AtomicInteger();
    while (!cp(a).awaitIo(ran::incrementAndGet, ready::get, TimeUnit.SECONDS.toNanos(1))) {
      assertTrue(System.nanoTime() < deadline, "the caller never got the loop");
    }
    assertEquals(1, ran.get(), "a wait that is ready at once still runs its work once");
  }

  @Test
  void aNodeWithoutCallerProgressDoesNotOfferIt() throws Exception {
    coordinator = EmbeddedCoordinator.start(Duration.ofSeconds(3));
    Map<String, String> s = new HashMap<>(coordinator.settings(0, 1));
    FabricNode n = Fabric.open(FabricOptions.from(s, Map.of()), new SimpleMeterRegistry());
    nodes.add(n);
    assertTrue(n.callerProgress().isEmpty(), "verbs.fabric.progress=thread: the node's own thread runs its I/O");
  }

  @Test
  void closeStopsTheBackgroundThreads() throws Exception {
    java.util.Set<Thread> before = Thread.getAllStackTraces().keySet();
    List<FabricNode> ns = open("auto", "200");
    List<Thread> loops = Thread.getAllStackTraces().keySet().stream()
        .filter(t -> !before.contains(t) && t.getName().startsWith("verbs4j-fabric-rank")).toList();
    assertEquals(2, loops.size(), loops.toString());
    ns.forEach(FabricNode::close);
    nodes.clear();
    await().atMost(Duration.ofSeconds(10)).until(() -> loops.stream().noneMatch(Thread::isAlive));
  }

  /**
   * A task queued by a task runs on the loop's next pass, after the sockets: Netty continues a read
   * it cut short (one read per connection per turn) in such a task, and one connection's backlog
   * must not be read whole before the other connections are looked at again.
   */
  @Test
  void aTaskQueuedByATaskWaitsForTheNextPassAfterTheSockets() throws Exception {
    List<FabricNode> ns = open("auto", "60000000"); // a one-minute lease: this thread keeps the loop
    FabricNode a = ns.get(0);
    takeLoop(a);
    List<String> ran = new java.util.concurrent.CopyOnWriteArrayList<>();
    a.scheduler().execute(() -> {
      ran.add("first");
      a.scheduler().execute(() -> ran.add("second"));
    });
    cp(a).progress(null);
    assertEquals(List.of("first"), ran);
    cp(a).progress(null);
    assertEquals(List.of("first", "second"), ran);
  }
}
