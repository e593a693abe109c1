package io.github.verbs4j.ib;

import io.github.verbs4j.fabric.FabricException;
import io.github.verbs4j.fabric.FabricTimeoutException;
import io.github.verbs4j.fabric.JobChannel;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.Job;
import io.github.verbs4j.verbs.VerbsException;
import java.time.Duration;

/**
 * {@link Job} over the fabric coordinator's key-value store and barriers (the PMI role). Keys and
 * barrier names are prefixed with {@code verbs.ib.job} when it is set. Rank and size are the
 * job's ({@code verbs.rank}/{@code verbs.size}, Slurm, Open MPI), not node ids.
 */
final class IbJob implements Job {
  private final JobChannel job;
  private final int rank;
  private final int size;
  private final String prefix;

  IbJob(JobChannel job, int rank, int size, String namespace) {
    this.job = job;
    this.rank = rank;
    this.size = size;
    this.prefix = namespace.isEmpty() ? "" : namespace + "/";
  }

  @Override
  public int rank() {
    return rank;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public void put(String key, byte[] value) {
    try {
      job.kvPut(prefix + key, value);
    } catch (FabricException e) {
      throw new VerbsException(Errno.EINVAL, "job put key='" + key + "': " + e.getMessage(), -1, e);
    }
  }

  @Override
  public byte[] get(String key, Duration timeout) {
    try {
      return job.kvGet(prefix + key, timeout);
    } catch (FabricTimeoutException e) {
      throw new VerbsException(Errno.ETIMEDOUT, "job get key='" + key + "' timed out after " + timeout, -1, e);
    } catch (FabricException e) {
      throw new VerbsException(Errno.EIO, "job get key='" + key + "': " + e.getMessage(), -1, e);
    }
  }

  @Override
  public void barrier(String name, Duration timeout) {
    try {
      job.barrier(prefix + name, timeout);
    } catch (FabricTimeoutException e) {
      throw new VerbsException(Errno.ETIMEDOUT, "job barrier '" + name + "': " + e.getMessage(), -1, e);
    } catch (FabricException e) {
      throw new VerbsException(Errno.EIO, "job barrier '" + name + "': " + e.getMessage(), -1, e);
    }
  }
}
