package io.github.verbs4j.fabric.local;

import io.netty.channel.SingleThreadEventLoop;
import io.netty.util.concurrent.RejectedExecutionHandlers;
import io.netty.util.concurrent.ThreadPerTaskExecutor;
import io.netty.util.internal.PlatformDependent;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.LockSupport;

/**
 * The thread of a threaded in-JVM node: Netty's {@code DefaultEventLoop} without its allocations.
 * {@code DefaultEventLoop} queues tasks in a {@code LinkedBlockingQueue} (a node per {@code
 * execute}) and waits in its {@code take} (a condition node each time it blocks), ~94 B per SEND
 * round trip in {@code IbPathBenchmark}. Here tasks go into a fixed-size lock-free MPSC array queue
 * and the thread parks until a task is added ({@link #wakeup} unparks it) or the next scheduled
 * task is due; scheduled tasks are Netty's, as before.
 */
final class ParkingEventLoop extends SingleThreadEventLoop {
  /**
   * Most tasks waiting at once. A node queues at most one frame-delivery task at a time (the
   * drain flag), plus one per timer or delayed frame scheduled from another thread and the odd
   * listener call; beyond it {@code execute} throws {@code RejectedExecutionException} (Netty's
   * {@code DefaultEventLoop} queue was unbounded).
   */
  static final int MAX_PENDING_TASKS = 1 << 16;

  /** Tail tasks (run after each batch of tasks): the local node adds none. */
  private static final int MAX_TAIL_TASKS = 64;

  private volatile Thread thread;

  /** @param threadFactory makes the loop's thread */
  ParkingEventLoop(ThreadFactory threadFactory) {
    super(null, new ThreadPerTaskExecutor(threadFactory), false,
        PlatformDependent.newFixedMpscQueue(MAX_PENDING_TASKS), PlatformDependent.newFixedMpscQueue(MAX_TAIL_TASKS),
        RejectedExecutionHandlers.reject());
  }

  @Override
  protected void run() {
    thread = Thread.currentThread();
    while (true) {
      runAllTasks(); // also moves the scheduled tasks that are due into the queue
      if (confirmShutdown()) {
        return;
      }
      if (hasTasks()) {
        continue;
      }
      long deadline = nextScheduledTaskDeadlineNanos();
      if (deadline == -1) {
        LockSupport.park(this);
      } else {
        long delay = deadlineToDelayNanos(deadline);
        if (delay > 0) {
          LockSupport.parkNanos(this, delay);
        }
      }
    }
  }

  /** A task was added from another thread: wake the loop (a permit if it is not parked yet). */
  @Override
  protected void wakeup(boolean inEventLoop) {
    if (!inEventLoop) {
      Thread t = thread;
      if (t != null) {
        LockSupport.unpark(t);
      }
    }
  }
}
