package io.github.verbs4j.tca.peach2;

import io.github.verbs4j.fabric.time.FabricTimer;

/**
 * Runs host tasks and timers on the node's link thread (the thread that also lands incoming
 * writes), so work triggered by writes, timers and posts never races within a node. In the
 * deterministic in-JVM fabric, delays are modelled nanoseconds.
 */
public interface HostScheduler {
  /**
   * @param delayNanos delay, at least 0
   * @param task the task
   * @return a handle to cancel it (the fabric's own, so that scheduling makes no handle of its own)
   */
  FabricTimer schedule(long delayNanos, Runnable task);

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
