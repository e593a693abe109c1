package io.github.verbs4j.fabric.time;

import io.netty.util.concurrent.EventExecutor;
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
 * <p>A discrete-event clock: a timer scheduled at clock time {@code t} with delay {@code d} is due
 * at {@code t + d} (modelled) and fires on the fabric thread, in deadline order (ties in
 * scheduling order), only when modelled time has reached it:
 *
 * <ul>
 *   <li>before a frame whose modelled arrival is at or after its deadline is delivered ({@link
 *       #runUntil}: the clock is advanced to each deadline in turn, then the frame is delivered, as
 *       the deterministic mode orders them);
 *   <li>when the clock passes the deadline otherwise (a charge): after the current receiver call
 *       or task returns ({@link #runDue}), or, for a charge on another thread, when that thread
 *       next sends ({@link #poke});
 *   <li>when the earliest timer is the next event: a watch in wall time (every {@link
 *       #WATCH_NANOS}) finds, {@code quietChecks} times in a row, no activity and {@link
 *       Quiescence#idleUntil} true — no frame on its way, no engine busy, no earlier timer
 *       elsewhere. Only then does the clock move to the deadline. Without this, a node waiting
 *       for a timer with no traffic (a retransmission after a drop, an RNR retry) would wait
 *       forever.
 * </ul>
 *
 * <p>Wall time decides only <em>when</em> the watch looks, never how far the clock moves: a slow
 * peer delays a timer in wall time but cannot make it fire before an event that comes first in
 * modelled time, as far as the transport can see it ({@link Quiescence}). Thread-safe: {@link
 * #schedule}, {@link FabricTimer#cancel} and {@link #poke} from any thread; the others on the
 * fabric thread.
 */
public final class ModelledTimers {
  private static final int PENDING = 0;
  private static final int FIRED = 1;
  private static final int CANCELLED = 2;

  /** How often, in wall time, the watch looks for a quiet node while timers are pending. */
  public static final long WATCH_NANOS = 1_000_000;

  private final NodeClock clock;
  private final EventExecutor loop;
  private final Quiescence quiescence;
  private final int quietChecks;
  private final Consumer<Runnable> runner;
  private final Runnable watchTask = this::watch;
  private boolean watching; // fabric thread
  private int quiet; // fabric thread: consecutive quiet looks
  private long lastActivity; // fabric thread
  private final PriorityQueue<Entry> queue = new PriorityQueue<>();
  private final AtomicLong seq = new AtomicLong();
  private final Runnable runDueTask = this::runDue;
  private final AtomicInteger poked = new AtomicInteger();
  private final AtomicInteger cancelled = new AtomicInteger();
  private volatile long nextDeadline = Long.MAX_VALUE;
  /** Timers scheduled from another thread, not yet queued on the fabric thread. */
  private final AtomicInteger handedOff = new AtomicInteger();

  /**
   * @param clock the node's modelled clock
   * @param loop the node's fabric thread
   * @param quiescence what the transport sees of events still to come
   * @param quietChecks how many watches in a row must find the node quiet before the earliest
   *     timer fires (at least 1)
   * @param runner runs a task on the fabric thread (catching what it throws)
   */
  public ModelledTimers(NodeClock clock, EventExecutor loop, Quiescence quiescence, int quietChecks,
      Consumer<Runnable> runner) {
    if (!clock.isModelled()) {
      throw new IllegalArgumentException("ModelledTimers needs a modelled clock, not " + clock);
    }
    if (quietChecks < 1) {
      throw new IllegalArgumentException("quietChecks=" + quietChecks + " must be at least 1");
    }
    this.clock = clock;
    this.loop = loop;
    this.quiescence = quiescence;
    this.quietChecks = quietChecks;
    this.runner = runner;
  }

  /** One timer and its handle. */
  private final class Entry extends AtomicInteger implements FabricTimer, Comparable<Entry>, Runnable {
    private static final long serialVersionUID = 1L;
    final long deadline;
    final long order;
    final transient Runnable task;

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
      return true;
    }

    /** Enqueues on the fabric thread. */
    @Override
    public void run() {
      enqueue(this);
      handedOff.decrementAndGet();
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
      handedOff.incrementAndGet();
      try {
        loop.execute(e);
      } catch (RuntimeException rejected) {
        handedOff.decrementAndGet(); // the loop is shut down: the timer never runs
        throw rejected;
      }
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
    if (!watching) {
      watching = true;
      quiet = 0;
      lastActivity = quiescence.activity();
      loop.schedule(watchTask, WATCH_NANOS, TimeUnit.NANOSECONDS);
    }
  }

  /**
   * The wall-time watch: fires what the clock has reached; if the node has stayed quiet and the
   * earliest timer is the next event, moves the clock to its deadline and fires it.
   */
  private void watch() {
    // One watch at a time: `watching` stays set while this look runs, so a timer that a fired task
    // schedules (a replay timer re-armed) does not start a second watch beside this one. Two
    // watches would share the quiet count and take their looks twice as often; every timer fired
    // by a look would add one more, until a node took ten looks in a fraction of a millisecond and
    // fired timers back to back while a peer's reply was a few milliseconds away.
    runDue();
    Entry e = firstPending();
    if (e == null) {
      watching = false;
      return;
    }
    long a = quiescence.activity();
    if (a == lastActivity && quiescence.idleUntil(e.deadline)) {
      if (++quiet >= quietChecks) {
        quiet = 0;
        runUntil(e.deadline);
        a = quiescence.activity();
      }
    } else {
      quiet = 0;
    }
    lastActivity = a;
    if (firstPending() != null && !loop.isShuttingDown()) {
      try {
        loop.schedule(watchTask, WATCH_NANOS, TimeUnit.NANOSECONDS);
      } catch (java.util.concurrent.RejectedExecutionException closing) {
        watching = false;
      }
    } else {
      watching = false;
    }
  }

  /** @return the earliest timer not cancelled (cancelled ones before it are dropped), or null */
  private Entry firstPending() {
    Entry e;
    while ((e = queue.peek()) != null && e.get() == CANCELLED) {
      queue.poll();
      if (cancelled.get() > 0) {
        cancelled.decrementAndGet();
      }
    }
    nextDeadline = e == null ? Long.MAX_VALUE : e.deadline;
    return e;
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

  /**
   * @return the earliest deadline queued (cancelled timers may be counted until purged), {@link
   *     Long#MIN_VALUE} while a timer scheduled from another thread is still on its way to the queue
   *     (its deadline may be earlier than any other node's), or {@link Long#MAX_VALUE}; any thread
   */
  public long nextDeadline() {
    return handedOff.get() > 0 ? Long.MIN_VALUE : nextDeadline;
  }

  /** @return timers queued (cancelled ones not yet purged included); fabric thread or tests */
  public int queued() {
    return queue.size();
  }
}
