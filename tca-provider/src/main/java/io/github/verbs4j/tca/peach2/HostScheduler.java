package io.github.verbs4j.tca.peach2;

/**
 * Runs host tasks and timers on the node's link thread (the thread that also lands incoming
 * writes), so work triggered by writes, timers and posts never races within a node. In the
 * deterministic in-JVM fabric, delays are modelled nanoseconds.
 */
public interface HostScheduler {
  /** A scheduled task that may be cancelled. */
  @FunctionalInterface
  interface Cancellable {
    /** Cancels the task if it has not run. */
    void cancel();
  }

  /**
   * One task's timer, armed again and again by its owner (under the owner's lock), so that a timer
   * on the hot path makes no handle of its own each time it is armed.
   */
  interface Timer {
    /**
     * Runs the task once after {@code delayNanos}. The owner arms it only when it is not armed
     * (it cancels first, or the task has run).
     *
     * @param delayNanos delay, at least 0
     */
    void arm(long delayNanos);

    /** Cancels the armed run if it has not run; nothing if none is armed. */
    void cancel();
  }

  /**
   * @param delayNanos delay, at least 0
   * @param task the task
   * @return a handle
   */
  Cancellable schedule(long delayNanos, Runnable task);

  /**
   * @param task what the timer runs
   * @return a timer for it, made once by its owner; this default arms through {@link #schedule}
   */
  default Timer timer(Runnable task) {
    return new Timer() {
      private Cancellable armed;

      @Override
      public void arm(long delayNanos) {
        armed = schedule(delayNanos, task);
      }

      @Override
      public void cancel() {
        if (armed != null) {
          armed.cancel();
          armed = null;
        }
      }
    };
  }

  /** @param task runs as soon as possible on the link thread */
  void execute(Runnable task);

  /** @return whether the caller is the link thread */
  boolean inLinkThread();

  /**
   * @return whether the calling thread may wait for the link thread to make progress: false on the
   *     link thread itself and on the deterministic in-JVM fabric, where nothing moves while the
   *     caller waits
   */
  default boolean canWait() {
    return !inLinkThread();
  }
}
