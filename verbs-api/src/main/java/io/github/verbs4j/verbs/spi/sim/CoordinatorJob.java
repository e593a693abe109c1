package io.github.verbs4j.verbs.spi.sim;

import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.Job;
import io.github.verbs4j.verbs.VerbsException;
import java.time.Duration;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;

/**
 * {@link Job} over a coordinator's write-once key-value store and barriers (the PMI role). Keys and
 * barrier names are prefixed with a namespace when one is set, so several jobs can share one
 * coordinator. The store's failures become verbs errors: a timeout ETIMEDOUT, a refused put (the
 * key holds another value) EINVAL, any other failure of a get or barrier EIO.
 *
 * <pre>{@code
 * JobChannel ch = node.job();
 * Job job = new CoordinatorJob(new CoordinatorJob.Store(rank, size, ch::kvPut, ch::kvGet, ch::barrier),
 *     namespace, FabricException.class, FabricTimeoutException.class);
 * }</pre>
 */
public final class CoordinatorJob implements Job {
  /**
   * The coordinator as the job sees it.
   *
   * @param rank this process's rank, 0-based
   * @param size the number of ranks
   * @param put publishes a key (write-once)
   * @param get waits for a key's value
   * @param barrier waits until every rank has entered a barrier
   */
  public record Store(int rank, int size, BiConsumer<String, byte[]> put, BiFunction<String, Duration, byte[]> get,
      BiConsumer<String, Duration> barrier) {
    /** Checks the functions. */
    public Store {
      Objects.requireNonNull(put, "put");
      Objects.requireNonNull(get, "get");
      Objects.requireNonNull(barrier, "barrier");
    }
  }

  /**
   * The fabric's modelled-time steps, for a job that runs in them ({@link Job#awaitModelledStep}).
   *
   * @param step waits for and runs the node's events of the job's next instant
   * @param barrier a barrier that keeps the steps going (every process returns in the same round)
   * @param leave leaves the steps once every process has
   */
  public record Steps(Runnable step, Runnable barrier, Runnable leave) {
    /** Checks the functions. */
    public Steps {
      Objects.requireNonNull(step, "step");
      Objects.requireNonNull(barrier, "barrier");
      Objects.requireNonNull(leave, "leave");
    }
  }

  private final Store store;
  private final Steps steps; // null when the job does not run in steps
  private final String prefix;
  private final Class<? extends RuntimeException> failure;
  private final Class<? extends RuntimeException> timeout;

  /**
   * @param store the coordinator
   * @param namespace prefix of keys and barrier names, or empty
   * @param failure the exception type the store fails with
   * @param timeout its subtype for a get or barrier that timed out
   */
  public CoordinatorJob(Store store, String namespace, Class<? extends RuntimeException> failure,
      Class<? extends RuntimeException> timeout) {
    this(store, null, namespace, failure, timeout);
  }

  private CoordinatorJob(Store store, Steps steps, String namespace, Class<? extends RuntimeException> failure,
      Class<? extends RuntimeException> timeout) {
    this.store = Objects.requireNonNull(store, "store");
    this.steps = steps;
    this.prefix = namespace.isEmpty() ? "" : namespace + "/";
    this.failure = failure;
    this.timeout = timeout;
  }

  @Override
  public int rank() {
    return store.rank();
  }

  @Override
  public int size() {
    return store.size();
  }

  @Override
  public void put(String key, byte[] value) {
    try {
      store.put().accept(prefix + key, value);
    } catch (RuntimeException e) {
      throw translate(e, Errno.EINVAL, "job put key='" + key + "': ");
    }
  }

  @Override
  public byte[] get(String key, Duration timeout) {
    try {
      return store.get().apply(prefix + key, timeout);
    } catch (RuntimeException e) {
      throw translate(e, Errno.EIO, "job get key='" + key + "'" + (this.timeout.isInstance(e) ? " timed out after "
          + timeout + ": " : ": "));
    }
  }

  @Override
  public void barrier(String name, Duration timeout) {
    try {
      if (steps != null) {
        steps.barrier().run(); // a coordinator barrier would block a process the others wait for in a round
        return;
      }
      store.barrier().accept(prefix + name, timeout);
    } catch (RuntimeException e) {
      throw translate(e, Errno.EIO, "job barrier '" + name + "': ");
    }
  }

  /**
   * @param s the fabric's modelled-time steps
   * @return this job, running in them
   */
  public CoordinatorJob withSteps(Steps s) {
    return new CoordinatorJob(store, Objects.requireNonNull(s, "steps"), prefix.isEmpty() ? "" : prefix.substring(0, prefix.length() - 1),
        failure, timeout);
  }

  @Override
  public boolean awaitModelledStep() {
    if (steps == null) {
      return false;
    }
    try {
      steps.step().run();
    } catch (RuntimeException e) {
      throw translate(e, Errno.EIO, "job modelled-time step: ");
    }
    return true;
  }

  @Override
  public void leaveModelledSteps() {
    if (steps != null) {
      try {
        steps.leave().run();
      } catch (RuntimeException e) {
        throw translate(e, Errno.EIO, "job leaving the modelled-time steps: ");
      }
    }
  }

  private RuntimeException translate(RuntimeException e, Errno otherwise, String what) {
    if (!failure.isInstance(e)) {
      return e;
    }
    Errno errno = timeout.isInstance(e) && otherwise != Errno.EINVAL ? Errno.ETIMEDOUT : otherwise;
    return new VerbsException(errno, what + e.getMessage(), -1, e);
  }
}
