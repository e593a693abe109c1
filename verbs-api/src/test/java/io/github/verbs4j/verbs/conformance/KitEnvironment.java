package io.github.verbs4j.verbs.conformance;

import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Where the conformance kit runs: which provider and fabric, and whether the two ranks of a
 * two-sided scenario share this JVM or run in separate processes. A provider module implements one
 * environment per setup it supports and returns it from every kit subclass.
 *
 * <p>The kit is SPMD like MPI or perftest: a two-sided scenario is one body method run by rank 0
 * and rank 1 of a job, each with its own {@link io.github.verbs4j.verbs.Context} opened with
 * {@code Verbs.open(config(rank, 2, jobId))}. One-sided scenarios open a single context with
 * {@code config(0, 1, jobId)}. Every invocation gets a fresh {@code jobId} (a UUID); the contexts
 * of one job must share a coordinator so that {@link io.github.verbs4j.verbs.Job} put/get work
 * between them and the ranks can reach each other's LIDs.
 *
 * <pre>{@code
 * public final class IbLocal implements KitEnvironment {
 *   public String name() { return "ib/local"; }
 *   public VerbsConfig config(int rank, int size, String jobId) {
 *     return VerbsConfig.of(Map.of("verbs.provider", "ib", "verbs.fabric", "local",
 *         "verbs.rank", Integer.toString(rank), "verbs.size", Integer.toString(size),
 *         "verbs.ib.job", jobId));               // whatever the provider needs to group a job
 *   }
 *   public boolean peersInProcesses() { return false; }
 * }
 * }</pre>
 *
 * <p>When {@link #peersInProcesses()} is true, rank 1 runs in a child JVM started by the kit
 * ({@link KitPeerMain}). The child creates a new instance of the concrete test class with its
 * no-arg constructor and calls {@code environment().config(1, 2, jobId)} there, so an environment
 * that needs state from the parent (a coordinator address, say) passes it through {@link
 * #childSystemProperties(String)} (set in the child for that scenario only: a child JVM serves
 * many scenarios in turn). The child also receives every {@code verbs.*} system property of the
 * parent and {@code -Dverbs4j.kit.peer=true}.
 */
public interface KitEnvironment {
  /**
   * A short name for messages and logs.
   *
   * @return e.g. {@code ib/local} or {@code ib/netty-2proc}
   */
  String name();

  /**
   * The configuration for one rank of a job.
   *
   * @param rank 0-based rank
   * @param size number of ranks (1 for one-sided scenarios, 2 for two-sided)
   * @param jobId unique per test invocation; both ranks of a job get the same id
   * @return the configuration the kit passes to {@code Verbs.open}
   */
  VerbsConfig config(int rank, int size, String jobId);

  /**
   * Whether rank 1 runs in a child JVM.
   *
   * @return false: both ranks are threads of this JVM; true: rank 1 is a separate process
   */
  boolean peersInProcesses();

  /**
   * The hang guard of one scenario: how long a body may run, and how long any single wait
   * (exchange, barrier, poll) may take. Not a speed assertion.
   *
   * @return the bound, 60 s by default
   */
  default Duration timeout() {
    return Duration.ofSeconds(60);
  }

  /**
   * System properties for the child JVM of a job, on top of the parent's {@code verbs.*}
   * properties (only when {@link #peersInProcesses()}).
   *
   * @param jobId the job
   * @return property name to value
   */
  default Map<String, String> childSystemProperties(String jobId) {
    return Map.of();
  }

  /**
   * Fault injection on a rank's port (take its link down and up), for the port-event scenarios.
   * Called on the rank that owns {@code ctx}, in its JVM.
   *
   * @param ctx a context this environment opened
   * @return the control, or null if this environment cannot (the scenario is skipped)
   */
  default LinkControl linkControl(Context ctx) {
    return null;
  }

  /**
   * Extra JVM options for the child (only when {@link #peersInProcesses()}), e.g. {@code -Xmx256m}.
   *
   * @return the options
   */
  default List<String> childJvmOptions() {
    return List.of();
  }
}
