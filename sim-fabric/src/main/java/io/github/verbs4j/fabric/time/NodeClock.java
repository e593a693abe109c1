package io.github.verbs4j.fabric.time;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.BooleanSupplier;

/**
 * A node's clock, in nanoseconds. With {@code verbs.time=wall} it reads {@link System#nanoTime()}
 * and {@link #advanceTo}/{@link #charge} do nothing. With {@code verbs.time=modelled} (and always in
 * the local deterministic mode) it is a counter that starts at 0 and only moves forward: receiving
 * a frame advances it to {@code max(now, arrival)}, and a provider charges the modelled cost of its
 * own work ({@link #charge}). Thread-safe and lock-free; reading allocates nothing.
 *
 * <p>A modelled clock also counts activity ({@link #activity()}: charges, advances, frames the
 * node sent or received) and asks its owner whether it is busy ({@link #busy()}), so that the
 * node's timers ({@link ModelledTimers}) move the clock to a deadline only when nothing else can
 * happen first — a discrete-event clock that wall time never advances.
 */
public final class NodeClock {
  private static final VarHandle NOW;
  private static final VarHandle ACTIVITY;
  private static final BooleanSupplier NEVER_BUSY = () -> false;

  static {
    try {
      NOW = MethodHandles.lookup().findVarHandle(NodeClock.class, "now", long.class);
      ACTIVITY = MethodHandles.lookup().findVarHandle(NodeClock.class, "activity", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final boolean modelled;
  @SuppressWarnings("unused") // accessed through NOW
  private volatile long now;
  @SuppressWarnings("unused") // accessed through ACTIVITY
  private volatile long activity;
  private volatile BooleanSupplier busy = NEVER_BUSY;

  private NodeClock(boolean modelled) {
    this.modelled = modelled;
  }

  /** @return a wall clock */
  public static NodeClock wall() {
    return new NodeClock(false);
  }

  /** @return a modelled clock at 0 */
  public static NodeClock modelled() {
    return new NodeClock(true);
  }

  /** @return true if modelled */
  public boolean isModelled() {
    return modelled;
  }

  /** @return the current time in nanoseconds (modelled, or {@link System#nanoTime()}) */
  public long nowNanos() {
    return modelled ? (long) NOW.getVolatile(this) : System.nanoTime();
  }

  /**
   * Moves a modelled clock forward to {@code t} if it is behind; never backwards.
   *
   * @param t a time in nanoseconds
   * @return the clock's value afterwards
   */
  public long advanceTo(long t) {
    if (!modelled) {
      return System.nanoTime();
    }
    long cur = (long) NOW.getVolatile(this);
    while (cur < t) {
      if (NOW.compareAndSet(this, cur, t)) {
        ACTIVITY.getAndAdd(this, 1L);
        return t;
      }
      cur = (long) NOW.getVolatile(this);
    }
    return cur;
  }

  /**
   * Adds the modelled cost of work this node did (a DMA descriptor fetch, software per-packet cost).
   *
   * @param nanos the cost, not negative
   * @return the clock's value afterwards
   * @throws IllegalArgumentException if {@code nanos} is negative
   */
  public long charge(long nanos) {
    if (nanos < 0) {
      throw new IllegalArgumentException("charge nanos=" + nanos + " must not be negative");
    }
    if (!modelled) {
      return System.nanoTime();
    }
    ACTIVITY.getAndAdd(this, 1L);
    return (long) NOW.getAndAdd(this, nanos) + nanos;
  }

  /** Counts an event of the node that may not move the clock (a frame sent or received). */
  public void touch() {
    if (modelled) {
      ACTIVITY.getAndAdd(this, 1L);
    }
  }

  /**
   * @return a counter that changes whenever the node does something in modelled time (a charge, an
   *     advance, a frame sent or received); 0 on a wall clock
   */
  public long activity() {
    return (long) ACTIVITY.getVolatile(this);
  }

  /**
   * Says how to learn whether the node's owner (a provider's engine) has work in hand that may
   * send a frame or charge the clock: while it does, the node's timers wait instead of moving the
   * clock to their deadlines.
   *
   * @param probe true while busy (called from the fabric thread; must be cheap and thread-safe)
   */
  public void busyProbe(BooleanSupplier probe) {
    this.busy = probe == null ? NEVER_BUSY : probe;
  }

  /** @return whether the owner says it has work in hand ({@link #busyProbe}) */
  public boolean busy() {
    return busy.getAsBoolean();
  }

  @Override
  public String toString() {
    return modelled ? "NodeClock{modelled, now=" + nowNanos() + "}" : "NodeClock{wall}";
  }
}
