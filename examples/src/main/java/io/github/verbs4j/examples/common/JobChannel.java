package io.github.verbs4j.examples.common;

import io.github.verbs4j.verbs.Job;
import java.time.Duration;

/**
 * A program's view of the job's out-of-band channel: keys and barrier names under one namespace,
 * and barriers numbered in the order every rank calls them (the job's barrier names are single
 * use). Not thread-safe.
 */
public final class JobChannel {
  private final Job job;
  private final String namespace;
  private final Duration timeout;
  private int barriers;

  /**
   * @param job the job
   * @param namespace the prefix of every key and barrier, e.g. {@code perftest/send_lat}
   * @param timeout how long a get or barrier may wait
   */
  public JobChannel(Job job, String namespace, Duration timeout) {
    this.job = job;
    this.namespace = namespace;
    this.timeout = timeout;
  }

  /** @return this rank */
  public int rank() {
    return job.rank();
  }

  /** @return the number of ranks */
  public int size() {
    return job.size();
  }

  /**
   * Publishes this rank's value of {@code name}.
   *
   * @param name the key under the namespace
   * @param value the value
   */
  public void publish(String name, String value) {
    job.put(namespace + "/" + name + "/" + job.rank(), value);
  }

  /**
   * Waits for {@code rank}'s value of {@code name}.
   *
   * @param name the key under the namespace
   * @param rank the publishing rank
   * @return the value
   */
  public String lookup(String name, int rank) {
    return job.getString(namespace + "/" + name + "/" + rank, timeout);
  }

  /** Waits until every rank reaches its next barrier. */
  public void barrier() {
    job.barrier(namespace + "/barrier/" + (barriers++), timeout);
  }
}
