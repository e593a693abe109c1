package io.github.verbs4j.verbs.spi.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.junit.jupiter.api.Test;

/** An engine thread runs its agents' queued work, sleeps when idle, and is woken by new work. */
class EngineThreadTest {
  /** Counts the items it takes from a queue; remembers the thread that took the last. */
  private static final class QueueAgent implements RuntimeAgent {
    final AgentLock lock = new AgentLock();
    final ConcurrentLinkedQueue<Integer> queue = new ConcurrentLinkedQueue<>();
    final AtomicInteger taken = new AtomicInteger();
    volatile Thread lastRunner;

    @Override
    public AgentLock lock() {
      return lock;
    }

    @Override
    public long untilDeadlineNanos() {
      return Long.MAX_VALUE;
    }

    @Override
    public boolean hasPendingWork() {
      return !queue.isEmpty();
    }

    @Override
    public int doWork() {
      int n = 0;
      while (queue.poll() != null) {
        n++;
      }
      if (n > 0) {
        taken.addAndGet(n);
        lastRunner = Thread.currentThread();
      }
      return n;
    }

    @Override
    public String roleName() {
      return "test";
    }
  }

  private static void await(AtomicInteger v, int expected) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (v.get() < expected && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    assertEquals(expected, v.get());
  }

  /** Parks for seconds when idle: only a wake-up makes it run new work soon. */
  private static BackoffIdleStrategy longSleeps() {
    long s = TimeUnit.SECONDS.toNanos(5);
    return new BackoffIdleStrategy(0, 0, s, s);
  }

  private static void awaitSleeping(Thread t) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (t.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    assertEquals(Thread.State.TIMED_WAITING, t.getState());
  }

  @Test
  void aSleepingThreadIsWokenForNewWorkAndRunsItOnItsOwnThread() throws InterruptedException {
    QueueAgent a = new QueueAgent();
    EngineThread t = new EngineThread(longSleeps(), TimeUnit.SECONDS.toNanos(5), "engine-test", Thread::new, a);
    try {
      assertEquals("engine-test", t.thread().getName());
      awaitSleeping(t.thread());
      a.queue.add(1);
      t.wake();
      await(a.taken, 1);
      assertSame(t.thread(), a.lastRunner);
    } finally {
      Thread th = t.thread();
      t.close();
      th.join(10_000);
      assertFalse(th.isAlive(), "close stops the thread");
    }
  }

  @Test
  void anAgentHeldByAnotherThreadIsSkippedAndItsWorkStaysQueued() throws InterruptedException {
    QueueAgent a = new QueueAgent();
    assertTrue(a.lock.tryAcquire()); // another runner holds it
    EngineThread t = new EngineThread(longSleeps(), TimeUnit.SECONDS.toNanos(5), "engine-test2", Thread::new, a);
    try {
      a.queue.add(1);
      t.wake();
      Thread.sleep(50);
      assertEquals(0, a.taken.get(), "not run while held");
      a.lock.releaseFully();
      t.wake();
      await(a.taken, 1);
    } finally {
      t.close();
    }
  }

  @Test
  void theSharedThreadRunsEveryMemberAndStopsWhenTheLastLeaves() throws InterruptedException {
    QueueAgent a = new QueueAgent();
    QueueAgent b = new QueueAgent();
    EngineThread ta = EngineThread.joinShared(a, longSleeps(), TimeUnit.SECONDS.toNanos(5), "shared-test", Thread::new);
    EngineThread tb = EngineThread.joinShared(b, longSleeps(), TimeUnit.SECONDS.toNanos(5), "other", Thread::new);
    assertSame(ta, tb, "one thread for the JVM");
    Thread th = ta.thread();
    a.queue.add(1);
    b.queue.add(2);
    ta.wake();
    await(a.taken, 1);
    await(b.taken, 1);
    assertSame(th, a.lastRunner);
    assertSame(th, b.lastRunner);
    ta.leave(a);
    assertTrue(th.isAlive(), "b still runs on it");
    b.queue.add(3);
    tb.wake();
    await(b.taken, 2);
    tb.leave(b);
    th.join(10_000);
    assertFalse(th.isAlive(), "the last leaves: the thread stops");
  }
}
