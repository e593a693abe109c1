package io.github.verbs4j.ib.engine;

/**
 * When the device must run next, told to its port at the end of each duty cycle (under the agent):
 * a port timer at the nearest deadline of the {@link TimerList} when no engine thread looks for it
 * ({@code invoker} mode), or always with a modelled clock, where the timer is an event of the clock;
 * and, with a modelled clock, whether a requester awaits a reply — then its deadline is not the
 * clock's next event (the busy probe's claim, which lapses after {@link #AWAIT_WALL_LIMIT_NANOS} of
 * wall time without a duty cycle doing work).
 */
final class WakeTimer {
  /** How long a reply the HCA waits for holds its modelled timers back without any work, wall ns. */
  static final long AWAIT_WALL_LIMIT_NANOS = 10_000_000_000L;

  private final PacketPort port;
  private final TimerList timers;
  private final DeviceRunners runners;
  private final Runnable task = this::onFire;
  private boolean scheduled;
  private long deadline;
  private PacketPort.Timer timer;
  private volatile boolean fired; // set on the port's timer thread; the next duty cycle forgets the timer
  private volatile boolean awaitingReply; // modelled time: set at the end of each duty cycle
  private volatile long lastWorkWallNanos;

  WakeTimer(PacketPort port, TimerList timers, DeviceRunners runners) {
    this.port = port;
    this.timers = timers;
    this.runners = runners;
  }

  /** @return whether the timer fired and no duty cycle has run since (any thread) */
  boolean fired() {
    return fired;
  }

  /** A duty cycle starts: a timer that fired is gone. */
  void cycleStarts() {
    if (fired) {
      fired = false;
      scheduled = false;
    }
  }

  /** A duty cycle did work: a claimed reply's wall-time limit starts again. */
  void worked() {
    if (awaitingReply) {
      lastWorkWallNanos = System.nanoTime();
    }
  }

  /** @return modelled time: a requester awaits a reply and the claim has not lapsed (any thread) */
  boolean awaitsReply() {
    return awaitingReply && System.nanoTime() - lastWorkWallNanos < AWAIT_WALL_LIMIT_NANOS;
  }

  /**
   * At the end of a duty cycle: arms, moves or cancels the port timer for the timers' nearest
   * deadline.
   *
   * @param t the cycle's time
   * @param closed whether the device is closed (nothing more is armed)
   */
  void plan(long t, boolean closed) {
    boolean modelled = port.modelledTime();
    if (modelled && timers.any()) {
      // The wake timer is an event of the modelled clock: it must be a deadline still armed (an
      // ACK disarms the retransmission timer), never a stale one the clock would be moved to.
      timers.refresh();
      boolean a = timers.awaitingReply();
      if (a && !awaitingReply) {
        lastWorkWallNanos = System.nanoTime();
      }
      awaitingReply = a;
    } else if (modelled && awaitingReply) {
      awaitingReply = false;
    }
    if (!timers.any() || closed) {
      if (modelled && scheduled && !fired) {
        timer.cancel();
        scheduled = false;
      }
      return;
    }
    if (!runners.needsPortTimer() && !modelled) {
      return;
    }
    long next = timers.nextDeadline();
    if (scheduled && (modelled ? next == deadline : next - deadline >= 0)) {
      return;
    }
    if (scheduled && timer != null) {
      timer.cancel();
    }
    scheduled = true;
    deadline = next;
    timer = port.schedule(Math.max(0, next - t), task);
  }

  private void onFire() {
    fired = true;
    runners.wake();
  }

  /** The device closes: the timer will not run. */
  void cancel() {
    if (timer != null) {
      timer.cancel();
    }
  }
}
