package io.github.verbs4j.fabric.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.fabric.FabricOptions;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.Unpooled;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Beyond {@link LocalFabric#NODE_THREADS} nodes, a threaded local fabric's nodes share delivery
 * threads: every node still gets its frames and timers, on one thread per node, and a node that
 * closes leaves the thread running for the others that share it.
 */
class LocalSharedThreadsTest {
  private static final int NODES = LocalFabric.NODE_THREADS + 8;

  private LocalFabric fabric;

  @AfterEach
  void close() {
    if (fabric != null) {
      fabric.close();
    }
  }

  private static Set<Thread> localNodeThreads() {
    Set<Thread> s = ConcurrentHashMap.newKeySet();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive() && t.getName().startsWith("verbs4j-local-node-")) {
        s.add(t);
      }
    }
    return s;
  }

  @Test
  void nodesBeyondTheLimitShareThreadsAndEachGetsItsFrames() throws Exception {
    int before = localNodeThreads().size();
    fabric = LocalFabric.create(FabricOptions.from(Map.of("verbs.fabric.mode", "threaded"), Map.of()),
        new SimpleMeterRegistry());
    LocalNode[] n = new LocalNode[NODES + 1];
    Thread[] seenOn = new Thread[NODES + 1];
    AtomicInteger got = new AtomicInteger();
    CountDownLatch all = new CountDownLatch(NODES);
    for (int i = 1; i <= NODES; i++) {
      n[i] = fabric.addNode();
      int id = i;
      n[i].setReceiver((h, p) -> {
        assertEquals(id, h.dst());
        assertEquals(id * 3, p.readInt());
        p.release();
        seenOn[id] = Thread.currentThread();
        got.incrementAndGet();
        all.countDown();
      });
    }
    for (int i = 1; i <= NODES; i++) {
      assertTrue(n[i % NODES + 1].send(i, Unpooled.buffer().writeInt(i * 3)));
    }
    assertTrue(all.await(30, TimeUnit.SECONDS), "frames delivered: " + got.get() + " of " + NODES);
    assertEquals(LocalFabric.NODE_THREADS, localNodeThreads().size() - before, "one thread per slot, no more");
    // node id and id + NODE_THREADS share a thread; ids within one run of NODE_THREADS do not
    assertEquals(seenOn[1], seenOn[1 + LocalFabric.NODE_THREADS]);
    assertTrue(seenOn[1] != seenOn[2]);

    // closing node 1 + NODE_THREADS keeps the thread for node 1: its frames and timers still come
    n[1 + LocalFabric.NODE_THREADS].close();
    CountDownLatch again = new CountDownLatch(2);
    n[1].setReceiver((h, p) -> {
      p.release();
      again.countDown();
    });
    assertTrue(n[2].send(1, Unpooled.buffer().writeInt(0)));
    n[1].scheduler().schedule(1_000_000, again::countDown);
    assertTrue(again.await(30, TimeUnit.SECONDS), "node 1 still gets frames and timers");
    assertTrue(seenOn[1].isAlive());

    // closing the last node on a thread ends it
    n[1].close();
    seenOn[1].join(TimeUnit.SECONDS.toMillis(30));
    assertTrue(!seenOn[1].isAlive(), "the thread of nodes 1 and " + (1 + LocalFabric.NODE_THREADS) + " ended");
  }
}
