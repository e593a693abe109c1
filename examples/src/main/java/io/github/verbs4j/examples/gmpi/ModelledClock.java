package io.github.verbs4j.examples.gmpi;

/**
 * One actor's modelled time in nanoseconds (a warp, the host thread, the host daemon): it moves
 * forward by charged costs and to the times of events it waits for. Owned by one thread. The
 * accelerator's costs are kept here rather than charged to the node clock ({@code
 * Context.chargeNanos}): a rank's actors would share that one clock, which the fabric moves to a
 * frame's arrival when the frame is delivered, not when an actor waits for it, so the figures would
 * depend on thread interleaving ({@code docs/gmpi.md}, <i>Modelled time</i>). Message times come
 * from the fabric's node clock through {@link FabricTimes}.
 */
public final class ModelledClock {
  private long now;

  /** @param start the starting time */
  public ModelledClock(long start) {
    this.now = start;
  }

  /** @return the current modelled time */
  public long now() {
    return now;
  }

  /**
   * @param nanos a cost, not negative
   * @return the time afterwards
   */
  public long charge(long nanos) {
    if (nanos < 0) {
      throw new IllegalArgumentException("nanos=" + nanos + " must not be negative");
    }
    now += nanos;
    return now;
  }

  /**
   * Waits (in modelled time) for an event at {@code t}: never moves backwards.
   *
   * @param t the event's time
   * @return the time afterwards
   */
  public long advanceTo(long t) {
    if (t > now) {
      now = t;
    }
    return now;
  }
}
