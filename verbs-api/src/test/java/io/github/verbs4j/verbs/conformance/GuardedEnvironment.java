package io.github.verbs4j.verbs.conformance;

import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * An environment with a longer hang guard than the one it wraps, for scenarios that are slow by
 * nature on a loaded machine (100,000 lossy messages, tens of thousands of objects). Still a bound,
 * not a speed assertion; everything else is the wrapped environment's.
 */
final class GuardedEnvironment implements KitEnvironment {
  private final KitEnvironment env;
  private final Duration atLeast;

  /**
   * @param env the provider's environment
   * @param atLeast the least hang guard
   */
  GuardedEnvironment(KitEnvironment env, Duration atLeast) {
    this.env = env;
    this.atLeast = atLeast;
  }

  @Override
  public String name() {
    return env.name();
  }

  @Override
  public VerbsConfig config(int rank, int size, String jobId) {
    return env.config(rank, size, jobId);
  }

  @Override
  public boolean peersInProcesses() {
    return env.peersInProcesses();
  }

  @Override
  public Duration timeout() {
    return env.timeout().compareTo(atLeast) > 0 ? env.timeout() : atLeast;
  }

  @Override
  public Map<String, String> childSystemProperties(String jobId) {
    return env.childSystemProperties(jobId);
  }

  @Override
  public LinkControl linkControl(Context ctx) {
    return env.linkControl(ctx);
  }

  @Override
  public List<String> childJvmOptions() {
    return env.childJvmOptions();
  }
}
