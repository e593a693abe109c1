package io.github.verbs4j.examples.launcher;

import io.github.verbs4j.verbs.config.VerbsConfig;
import java.util.Map;

/**
 * This process's rank and the job size as the providers' {@code Job} finds them: {@code
 * verbs.rank}/{@code verbs.size} when set (the launcher sets them), else Slurm ({@code
 * SLURM_PROCID}/{@code SLURM_NTASKS}), else Open MPI ({@code OMPI_COMM_WORLD_RANK}/{@code
 * OMPI_COMM_WORLD_SIZE}), else rank 0 of 1. For programs that need a rank without opening a device.
 *
 * @param rank this process's rank
 * @param size the number of ranks
 */
public record RankEnvironment(int rank, int size) {

  /** @return the rank and size of this process */
  public static RankEnvironment current() {
    return of(VerbsConfig.load(), System.getenv());
  }

  /**
   * @param config the configuration
   * @param env the environment
   * @return the rank and size
   */
  public static RankEnvironment of(VerbsConfig config, Map<String, String> env) {
    int rank = (int) config.getLong(VerbsConfig.RANK);
    int size = (int) config.getLong(VerbsConfig.SIZE);
    if (rank < 0) {
      rank = envInt(env, "SLURM_PROCID", envInt(env, "OMPI_COMM_WORLD_RANK", 0));
    }
    if (size < 0) {
      size = envInt(env, "SLURM_NTASKS", envInt(env, "OMPI_COMM_WORLD_SIZE", 1));
    }
    if (rank >= size) {
      throw new IllegalArgumentException("rank " + rank + " is not below the job size " + size);
    }
    return new RankEnvironment(rank, size);
  }

  private static int envInt(Map<String, String> env, String name, int fallback) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      return fallback;
    }
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + "=" + v + " is not an integer", e);
    }
  }
}
