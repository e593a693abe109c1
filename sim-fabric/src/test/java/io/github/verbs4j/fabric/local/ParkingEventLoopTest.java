package io.github.verbs4j.fabric.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link ParkingEventLoop}: tasks in order on its thread, timers, wake-ups from a park, shutdown. */
class ParkingEventLoopTest {
  private static ParkingEventLoop loop() {
    return new ParkingEventLoop(new DefaultThreadFactory("parking-test", true));
  }

  @Test
  void tasksFromOtherThreadsRunInOrderOnTheLoopThread() throws Exception {
    ParkingEventLoop l = loop();
    try {
      List<Integer> seen = new ArrayList<>();
      List<Boolean> onLoop = new ArrayList<>();
      CountDownLatch done = new CountDownLatch(1);
      for (int i = 0; i < 10_000; i++) {
        int k = i;
        l.execute(() -> {
          seen.add(k);
          onLoop.add(l.inEventLoop());
        });
        if (i % 1000 == 0) {
          Thread.sleep(2); // let the loop park between bursts: each burst must wake it
        }
      }
      l.execute(done::countDown);
      assertTrue(done.await(10, TimeUnit.SECONDS), "the loop ran every task");
      assertEquals(10_000, seen.size());
      for (int i = 0; i < seen.size(); i++) {
        assertEquals(i, seen.get(i));
        assertTrue(onLoop.get(i));
      }
    } finally {
      l.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  @Test
  void aScheduledTaskFiresWhileTheLoopIsParkedAndAnEarlierOneScheduledLaterFiresFirst() throws Exception {
    ParkingEventLoop l = loop();
    try {
      List<String> order = new ArrayList<>();
      CountDownLatch both = new CountDownLatch(2);
      long t0 = System.nanoTime();
      l.schedule(() -> {
        order.add("late");
        both.countDown();
      }, 300, TimeUnit.MILLISECONDS);
      Thread.sleep(20); // the loop is parked until the 300 ms deadline
      l.schedule(() -> {
        order.add("early");
        both.countDown();
      }, 10, TimeUnit.MILLISECONDS);
      assertTrue(both.await(5, TimeUnit.SECONDS));
      assertEquals(List.of("early", "late"), order);
      assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(300), "not before its deadline");
    } finally {
      l.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  @Test
  void shutdownEndsTheThreadAndLaterTasksAreRejected() {
    ParkingEventLoop l = loop();
    l.execute(() -> { });
    assertTrue(l.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS));
    assertTrue(l.isTerminated());
    assertThrows(RejectedExecutionException.class, () -> l.execute(() -> { }));
  }
}
