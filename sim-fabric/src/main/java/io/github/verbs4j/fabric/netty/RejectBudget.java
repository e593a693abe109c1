package io.github.verbs4j.fabric.netty;

/**
 * How many frames that fail their checks on arrival one connection may send: a token bucket of
 * {@link #BURST} frames, refilled at {@link #PER_MILLI} frames per millisecond. A connection whose
 * budget is spent is neither read nor decoded until it has {@link #RESUME} frames of budget again,
 * so a member that writes garbage (a bug, or an attacker holding the job secret) costs the node a
 * bounded share of a core, and TCP flow control holds the writer back, while its well-formed
 * frames still arrive, later. The rate is far above what fault injection's corruption produces on a
 * healthy link. Times are in nanoseconds of the event loop's ticker; not thread-safe (one event loop).
 */
final class RejectBudget {
  /** Rejected frames a connection may send at once. */
  static final int BURST = 256;
  /** Rejected frames per millisecond a connection may send for as long as it likes. */
  static final int PER_MILLI = 32;
  /** Budget a spent connection must have again before it is read again. */
  static final int RESUME = 64;
  private static final long NANOS_PER_FRAME = 1_000_000L / PER_MILLI;

  /** Frames of budget left; negative after a batch decoded before the budget was looked at. */
  private long frames = BURST;
  /** When {@link #frames} was last brought up to date. */
  private long stamp;

  /** @param now the ticker's time, ns */
  RejectBudget(long now) {
    stamp = now;
  }

  /**
   * One frame failed its checks.
   *
   * @param now the ticker's time, ns
   */
  void reject(long now) {
    refill(now);
    frames--;
  }

  /**
   * @param now the ticker's time, ns
   * @return whether the connection has no budget left
   */
  boolean spent(long now) {
    refill(now);
    return frames <= 0;
  }

  /**
   * @param now the ticker's time, ns
   * @return how long until the budget is back at {@link #RESUME}, ns (0 if it is)
   */
  long nanosToResume(long now) {
    refill(now);
    return frames >= RESUME ? 0 : (RESUME - frames) * NANOS_PER_FRAME - (now - stamp);
  }

  private void refill(long now) {
    long earned = (now - stamp) / NANOS_PER_FRAME;
    if (earned <= 0) {
      return;
    }
    if (frames + earned >= BURST) {
      frames = BURST;
      stamp = now;
    } else {
      frames += earned;
      stamp += earned * NANOS_PER_FRAME;
    }
  }
}
