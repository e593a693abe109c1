package io.github.verbs4j.verbs.spi.runtime;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The try-lock every runner of an agent takes (the kernel rxe driver's task states): {@code IDLE}
 * (nobody runs the agent), {@code BUSY} (one thread runs it), {@code ARMED} (it runs, and another
 * thread found work meanwhile: the runner must go round once more before it lets go). A thread that
 * finds the agent busy never waits; it either arms the runner ({@link #acquireOrArm}) or leaves the
 * work queued for a runner that checks its queues before it sleeps ({@link #tryAcquire}).
 */
public final class AgentLock {
  private static final int IDLE = 0;
  private static final int BUSY = 1;
  private static final int ARMED = 2;

  private final AtomicInteger state = new AtomicInteger();

  /** @return true if this thread now runs the agent ({@code IDLE → BUSY}) */
  public boolean tryAcquire() {
    return state.get() == IDLE && state.compareAndSet(IDLE, BUSY);
  }

  /**
   * Takes the agent, or, if another thread runs it, arms that thread to go round once more.
   *
   * @return true if this thread now runs the agent; false if the running thread will take the work
   */
  public boolean acquireOrArm() {
    while (true) {
      int s = state.get();
      if (s == IDLE) {
        if (state.compareAndSet(IDLE, BUSY)) {
          return true;
        }
      } else if (s == BUSY) {
        if (state.compareAndSet(BUSY, ARMED)) {
          return false;
        }
      } else {
        return false;
      }
    }
  }

  /**
   * Lets go of the agent unless it was armed meanwhile.
   *
   * @return true if released; false if armed: the caller still holds it ({@code BUSY}) and runs
   *     the agent again
   */
  public boolean release() {
    if (state.compareAndSet(BUSY, IDLE)) {
      return true;
    }
    state.set(BUSY); // ARMED: take the arm, go round once more
    return false;
  }

  /** Lets go whatever the state (a runner that failed). */
  public void releaseFully() {
    state.set(IDLE);
  }

  /** @return whether a thread runs the agent now (a racy hint) */
  public boolean isHeld() {
    return state.get() != IDLE;
  }
}
