package io.github.verbs4j.examples.gmpi;

/**
 * One actor's modelled time in nanoseconds (a warp, the host thread, the host daemon): it moves
 * forward by charged costs and to the times of events it waits for. Owned by one thread; the
 * accelerator's costs are charged here because the verbs API exposes a context's clock read-only
 * ({@code Context.nowNanos()}), so the fabric's node clock cannot carry them.
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
