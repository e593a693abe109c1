package io.github.verbs4j.tca.peach2;

/**
 * The node's clock as the board and its host see it: wall time, or modelled time that moves only
 * by charges and by arriving writes (the fabric's node clock underneath).
 */
public interface HostClock {
  /** @return nanoseconds (modelled, or wall) */
  long nowNanos();

  /**
   * Adds the modelled cost of work done on this node; no effect on a wall clock.
   *
   * @param nanos cost, at least 0
   */
  void charge(long nanos);

  /**
   * Moves a modelled clock forward to {@code t} if it is behind (the host observed something that
   * happened at {@code t}: a DMA's status word it polled); no effect on a wall clock.
   *
   * @param t modelled nanoseconds
   */
  default void advanceTo(long t) {
    long now = nowNanos();
    if (isModelled() && t > now) {
      charge(t - now);
    }
  }

  /** @return whether the clock is modelled */
  boolean isModelled();

  /**
   * Says how to learn whether the host has work in hand that may send a frame or charge the clock
   * (modelled time: while it does, no timer of the fabric is the next event). No effect on a wall
   * clock or where nothing asks.
   *
   * @param busy true while busy; cheap and thread-safe
   */
  default void busyProbe(java.util.function.BooleanSupplier busy) {}
}
