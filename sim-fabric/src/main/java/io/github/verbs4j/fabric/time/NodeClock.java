package io.github.verbs4j.fabric.time;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A node's clock, in nanoseconds. With {@code verbs.time=wall} it reads {@link System#nanoTime()}
 * and {@link #advanceTo}/{@link #charge} do nothing. With {@code verbs.time=modelled} (and always in
 * the local deterministic mode) it is a counter that starts at 0 and only moves forward: receiving
 * a frame advances it to {@code max(now, arrival)}, and a provider charges the modelled cost of its
 * own work ({@link #charge}). Thread-safe and lock-free; reading allocates nothing.
 */
public final class NodeClock {
  private static final VarHandle NOW;

  static {
    try {
      NOW = MethodHandles.lookup().findVarHandle(NodeClock.class, "now", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final boolean modelled;
  @SuppressWarnings("unused") // accessed through NOW
  private volatile long now;

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
    return (long) NOW.getAndAdd(this, nanos) + nanos;
  }

  @Override
  public String toString() {
    return modelled ? "NodeClock{modelled, now=" + nowNanos() + "}" : "NodeClock{wall}";
  }
}
