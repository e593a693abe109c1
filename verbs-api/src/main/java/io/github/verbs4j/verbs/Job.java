package io.github.verbs4j.verbs;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The out-of-band channel of a verbs4j job, as PMI is for MPI: this process's rank and the job
 * size, a key-value store and a barrier, served by the fabric's coordinator. Applications use it
 * to exchange QP numbers, rkeys and addresses before the first verbs operation, where C programs
 * would use a TCP socket or rdma_cm.
 *
 * <p>Rank and size come from {@code verbs.rank}/{@code verbs.size}, or from Slurm ({@code
 * SLURM_PROCID}/{@code SLURM_NTASKS}) or Open MPI ({@code OMPI_COMM_WORLD_RANK}/{@code
 * OMPI_COMM_WORLD_SIZE}) when launched by them. Thread-safe.
 *
 * <pre>{@code
 * Job job = ctx.job();
 * job.put("qpn/" + job.rank(), Integer.toString(qp.qpNum()));
 * int peerQpn = Integer.parseInt(job.getString("qpn/" + (1 - job.rank()), Duration.ofSeconds(30)));
 * }</pre>
 */
public interface Job {
  /** @return this process's rank, 0-based */
  int rank();

  /** @return the number of ranks */
  int size();

  /**
   * Publishes {@code value} under {@code key} for every rank. Keys are write-once per job.
   *
   * @param key the key
   * @param value the value
   * @throws VerbsException EINVAL if the key was already published with another value, EIO if the
   *     coordinator cannot be reached
   */
  void put(String key, byte[] value);

  /**
   * Waits until {@code key} is published and returns its value.
   *
   * @param key the key
   * @param timeout how long to wait
   * @return the value
   * @throws VerbsException ETIMEDOUT naming the key if it is not published in time
   */
  byte[] get(String key, Duration timeout);

  /**
   * Waits until every rank has entered the barrier {@code name}.
   *
   * @param name the barrier's name (each name is used once)
   * @param timeout how long to wait
   * @throws VerbsException ETIMEDOUT naming the barrier and the ranks missing
   */
  void barrier(String name, Duration timeout);

  /**
   * In a job that runs in modelled-time steps ({@code verbs.fabric.mode=deterministic} with
   * {@code verbs.time} modelled on the netty fabric: the processes run their events in modelled-time
   * order, so a modelled run repeats exactly), lets the job's clock move: call it where a poll found
   * nothing, instead of spinning. It returns once every process has nothing to do at the current
   * modelled instant and this process has run its device's events of the next one (arrivals,
   * timers); poll again then. In any other job it returns false at once and does nothing. A
   * simulator extension; PMI has no counterpart.
   *
   * @return true if the job stepped, false if it does not run in steps
   * @throws VerbsException EIO if every process waits and nothing is pending anywhere (the ranks
   *     wait for each other forever), or the coordinator does not answer
   */
  default boolean awaitModelledStep() {
    return false;
  }

  /**
   * This process is done with the job's modelled-time steps ({@link #awaitModelledStep}): it keeps
   * running its device's events (answering what peers still send) until every process is done, then
   * returns. Call it before closing the device. Does nothing in a job that does not run in steps,
   * or when called again.
   *
   * @throws VerbsException EIO if the coordinator does not answer
   */
  default void leaveModelledSteps() {}

  /**
   * {@link #put(String, byte[])} of a UTF-8 string.
   *
   * @param key the key
   * @param value the value
   */
  default void put(String key, String value) {
    put(key, value.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * {@link #get(String, Duration)} as a UTF-8 string.
   *
   * @param key the key
   * @param timeout how long to wait
   * @return the value
   */
  default String getString(String key, Duration timeout) {
    return new String(get(key, timeout), StandardCharsets.UTF_8);
  }
}
