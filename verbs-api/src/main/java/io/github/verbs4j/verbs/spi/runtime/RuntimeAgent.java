package io.github.verbs4j.verbs.spi.runtime;

import org.agrona.concurrent.Agent;

/**
 * A device's duty cycle as the runtime runs it: an Agrona {@link Agent} plus what a thread runner
 * needs to decide how long it may sleep. {@link #doWork()} runs only under {@link #lock()}, on
 * whichever thread took it.
 */
public interface RuntimeAgent extends Agent {
  /** @return the lock every runner of this agent takes */
  AgentLock lock();

  /**
   * The time until the agent must run again although nothing arrives (its next timer), read by
   * a thread runner right after {@link #doWork()}, under the lock: the runner sleeps no longer
   * (the agent may take it as the runner's plan, and wake the runner for anything due earlier).
   *
   * @return nanoseconds, 0 if due now, {@link Long#MAX_VALUE} if nothing is timed
   */
  long untilDeadlineNanos();

  /**
   * Whether work is queued that the next {@link #doWork()} would take (any thread; checked by a
   * runner just before it sleeps, after announcing that it sleeps).
   *
   * @return true if the runner must not sleep
   */
  boolean hasPendingWork();
}
