package io.github.verbs4j.fabric.time;

/** A scheduled task that can still be cancelled. */
public interface FabricTimer {
  /**
   * Cancels the task if it has not run yet.
   *
   * @return true if it was cancelled by this call
   */
  boolean cancel();
}
