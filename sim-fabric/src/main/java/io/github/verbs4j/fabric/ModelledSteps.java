package io.github.verbs4j.fabric;

/**
 * Modelled-time steps, a capability a netty node offers when it was opened with {@code
 * verbs.fabric.mode=deterministic} ({@link FabricNode#steps()}): the job's processes run their
 * events in modelled-time order, as the deterministic in-JVM fabric runs its nodes' events, so a
 * modelled run gives the same figures however the machine schedules the processes.
 *
 * <p>The node holds every frame that arrives and every task or timer the provider schedules as an
 * event at its modelled time. An application thread with nothing to do calls {@link #step()}: when
 * every process of the job has called it and no frame is in flight, the coordinator names the
 * earliest held event of all, and each process runs its own events up to that instant. A
 * conservative global clock (one instant at a time), as the in-JVM {@code Lockstep} runs ranks.
 *
 * <pre>{@code
 * while (cq.poll(wc) == 0) {
 *   steps.step();          // instead of spinning: the job moves to its next instant
 * }
 * ...
 * steps.leave();           // the program is done: keep serving the others until all are
 * }</pre>
 */
public interface ModelledSteps {
  /**
   * Waits until every process has nothing to do at the current instant, then runs this node's
   * events of the job's next one (frames, tasks, timers) on the calling thread.
   *
   * @throws FabricException if every process waits and no frame, task or timer is pending
   *     anywhere (the ranks wait for each other forever), or the coordinator does not answer
   */
  void step();

  /**
   * A job barrier that keeps the steps going: this process reports itself at the barrier in its
   * rounds and runs its events meanwhile; the barrier completes for every process in the same round,
   * the first that finds all of them at it. (A barrier on the coordinator alone would block a
   * process that others wait for in a round.)
   *
   * @throws FabricException if every process waits, not all at the barrier, and nothing is pending
   */
  void barrier();

  /**
   * This node's program is done: it keeps running its events (acknowledging what peers still
   * send) until every process has left, then the node delivers at once. Idempotent.
   */
  void leave();
}
