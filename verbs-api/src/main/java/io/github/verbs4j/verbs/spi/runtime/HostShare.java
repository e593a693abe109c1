package io.github.verbs4j.verbs.spi.runtime;

import java.util.List;
import java.util.Map;

/**
 * How many ranks of the job share this host's processors, as the launcher says, and whether that
 * oversubscribes them: then a waiting thread must not spin, since every spin takes a core from a
 * rank with work (Open MPI turns on {@code mpi_yield_when_idle} in that case). The count comes from
 * the first of these environment variables that is set — {@value #LOCAL_RANKS_ENV} (the {@code
 * verbs4j run} launcher sets it), {@code OMPI_COMM_WORLD_LOCAL_SIZE} (Open MPI), {@code
 * MPI_LOCALNRANKS} (MPICH's Hydra) — else this process is taken to be alone. Setting {@value
 * #LOCAL_RANKS_ENV} yourself overrides the others (e.g. {@code 1} to let ranks spin).
 *
 * @param localRanks ranks on this host (at least 1)
 * @param processors processors this JVM may use
 */
public record HostShare(int localRanks, int processors) {
  /** The variable the {@code verbs4j run} launcher sets in every rank: the ranks it started. */
  public static final String LOCAL_RANKS_ENV = "VERBS4J_LOCAL_RANKS";
  private static final List<String> SOURCES = List.of(LOCAL_RANKS_ENV, "OMPI_COMM_WORLD_LOCAL_SIZE",
      "MPI_LOCALNRANKS");
  private static final HostShare CURRENT = of(System.getenv(), Runtime.getRuntime().availableProcessors());

  /** Checks the ranges. */
  public HostShare {
    if (localRanks < 1) {
      throw new IllegalArgumentException("localRanks=" + localRanks + " must be at least 1");
    }
    if (processors < 1) {
      throw new IllegalArgumentException("processors=" + processors + " must be at least 1");
    }
  }

  /** @return this process's share, read once from its environment */
  public static HostShare current() {
    return CURRENT;
  }

  /**
   * @param env the environment
   * @param processors processors this JVM may use
   * @return the share the environment describes
   * @throws IllegalArgumentException naming the variable if its value is not a positive integer
   */
  public static HostShare of(Map<String, String> env, int processors) {
    for (String name : SOURCES) {
      String v = env.get(name);
      if (v != null && !v.isBlank()) {
        int n;
        try {
          n = Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(name + "=" + v + " is not an integer", e);
        }
        if (n < 1) {
          throw new IllegalArgumentException(name + "=" + v + " must be at least 1");
        }
        return new HostShare(n, processors);
      }
    }
    return new HostShare(1, processors);
  }

  /** @return whether more ranks share the host than it has processors: waiting threads must not spin */
  public boolean oversubscribed() {
    return localRanks > processors;
  }
}
