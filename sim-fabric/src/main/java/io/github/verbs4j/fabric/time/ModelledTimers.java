package io.github.verbs4j.fabric.time;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Timers on a modelled clock for a node whose fabric thread is an event loop (netty, threaded
 * local); the deterministic local fabric orders timers in its own event queue instead. Used by the
 * fabric's {@link FabricScheduler}s, not by providers.
 *
 * <p>A timer scheduled at clock time {@code t} with delay {@code d} is due at {@code t + d}
 * (modelled). It fires on the fabric thread, in deadline order (ties in scheduling order):
 *
 * <ul>
 *   <li>before a frame whose modelled arrival is at or after its deadline is delivered ({@link
 *       #runUntil}: the clock is advanced to each deadline in turn, then the frame is delivered, as
 *       the deterministic mode orders them);
 *   <li>when the clock passes the deadline otherwise (a charge): after the current receiver call
 *       or task returns ({@link #runDue}), or, for a charge on another thread, when that thread
 *       next sends ({@link #poke});
 *   <li>as a safety net, when nothing has moved the clock to the deadline after {@code max(d,
 *       minWall)} of wall time: the clock jumps to the deadline and the timer fires. Without it, a
 *       node waiting for a timer with no traffic would wait forever.
 * </ul>
 *
 * <p>The safety net is the only place wall time enters: a frame still on its way (in wall time)
 * whose modelled arrival is before the deadline may then be delivered after the timer fired.
 * Thread-safe: {@link #schedule}, {@link FabricTimer#cancel} and {@link #poke} from any thread; the
 * others on the fabric thread.
 */
public final class ModelledTimers {
  private static final int PENDING = 0;
  private static final int FIRED = 1;
  private static final int CANCELLED = 2;

  private final NodeClock clock;
  private final EventExecutor loop;
  private final long minWallNanos;
  private final Consumer<Runnable> runner;
  private final PriorityQueue<Entry> queue = new PriorityQueue<>();
  private final AtomicLong seq = new AtomicLong();
  private final Runnable runDueTask = this::runDue;
  private final AtomicInteger poked = new AtomicInteger();
  private final AtomicInteger cancelled = new AtomicInteger();
  private volatile long nextDeadline = Long.MAX_VALUE;

  /**
   * @param clock the node's modelled clock
   * @param loop the node's fabric thread
   * @param minWallNanos the least wall time before the safety net fires a timer
   * @param runner runs a task on the fabric thread (catching what it throws)
   */
  public ModelledTimers(NodeClock clock, EventExecutor loop, long minWallNanos, Consumer<Runnable> runner) {
    if (!clock.isModelled()) {
      throw new IllegalArgumentException("ModelledTimers needs a modelled clock, not " + clock);
    }
    this.clock = clock;
    this.loop = loop;
    this.minWallNanos = minWallNanos;
    this.runner = runner;
  }

  /** One timer: its own safety-net task and its handle. */
  private final class Entry extends AtomicInteger implements FabricTimer, Comparable<Entry>, Runnable {
    private static final long serialVersionUID = 1L;
    final long deadline;
    final long order;
    final transient Runnable task;
    transient volatile ScheduledFuture<?> safety;

    Entry(long deadline, long order, Runnable task) {
      this.deadline = deadline;
      this.order = order;
      this.task = task;
    }

    @Override
    public boolean cancel() {
      if (!compareAndSet(PENDING, CANCELLED)) {
        return false;
      }
      cancelled.incrementAndGet();
      ScheduledFuture<?> s = safety;
      if (s != null) {
        s.cancel(false);
      }
      return true;
    }

    /** Enqueues on the fabric thread. */
    @Override
    public void run() {
      enqueue(this);
    }

    /** The wall-clock safety net. */
    void expire() {
      if (get() == PENDING) {
        runUntil(deadline);
      }
    }

    @Override
    public int compareTo(Entry o) {
      int c = Long.compare(deadline, o.deadline);
      return c != 0 ? c : Long.compare(order, o.order);
    }

    @Override
    public boolean equals(Object o) {
      return this == o;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(this);
    }
  }

  /**
   * Schedules a task {@code delayNanos} modelled nanoseconds after the clock's current value.
   *
   * @param delayNanos the delay, at least 0
   * @param task the task
   * @return its handle
   */
  public FabricTimer schedule(long delayNanos, Runnable task) {
    long now = clock.nowNanos();
    long deadline = delayNanos > Long.MAX_VALUE - now ? Long.MAX_VALUE : now + delayNanos;
    Entry e = new Entry(deadline, seq.getAndIncrement(), task);
    if (loop.inEventLoop()) {
      enqueue(e);
    } else {
      loop.execute(e);
    }
    e.safety = loop.schedule(e::expire, Math.max(delayNanos, minWallNanos), TimeUnit.NANOSECONDS);
    if (e.get() == CANCELLED) {
      e.safety.cancel(false);
    }
    return e;
  }

  private void enqueue(Entry e) {
    if (e.get() != PENDING) {
      return;
    }
    purgeIfMostlyCancelled();
    queue.add(e);
    nextDeadline = queue.peek().deadline;
    if (e.deadline <= clock.nowNanos()) {
      loop.execute(runDueTask); // not re-entrant: after the caller's task returns
    }
  }

  private void purgeIfMostlyCancelled() {
    // Cancelled timers (a retransmission timer per packet, cancelled by the ACK) stay queued until
    // their deadline; drop them in bulk once they are most of the queue (amortised O(log n)).
    if (queue.size() >= 64 && cancelled.get() * 2 > queue.size()) {
      queue.removeIf(x -> x.get() == CANCELLED);
      cancelled.set(0);
    }
  }

  /**
   * Fabric thread: fires, in deadline order, every timer due at or before {@code limit}, advancing
   * the clock to each deadline before its task runs. Called before delivering a frame that arrives
   * at {@code limit}.
   *
   * @param limit a modelled time
   */
  public void runUntil(long limit) {
    Entry e;
    while ((e = queue.peek()) != null && e.deadline <= Math.max(limit, clock.nowNanos())) {
      queue.poll();
      if (e.get() == CANCELLED && cancelled.get() > 0) {
        cancelled.decrementAndGet();
      }
      if (e.compareAndSet(PENDING, FIRED)) {
        ScheduledFuture<?> s = e.safety;
        if (s != null) {
          s.cancel(false);
        }
        clock.advanceTo(e.deadline);
        runner.accept(e.task);
      }
    }
    nextDeadline = e == null ? Long.MAX_VALUE : e.deadline;
  }

  /** Fabric thread: fires every timer the clock has reached. */
  public void runDue() {
    poked.set(0);
    if (clock.nowNanos() >= nextDeadline) {
      runUntil(clock.nowNanos());
    }
  }

  /**
   * Fabric thread: true if a timer is due at or before {@code t} (one volatile read).
   *
   * @param t a modelled time
   * @return true if {@link #runUntil} has work
   */
  public boolean dueBy(long t) {
    return t >= nextDeadline;
  }

  /** Any thread: if the clock has reached a deadline, has the fabric thread fire it soon. */
  public void poke() {
    if (clock.nowNanos() >= nextDeadline && poked.compareAndSet(0, 1)) {
      loop.execute(runDueTask);
    }
  }

  /** @return timers queued (cancelled ones not yet purged included); fabric thread or tests */
  public int queued() {
    return queue.size();
  }
}
