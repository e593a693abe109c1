package io.github.verbs4j.verbs.conformance;

import java.time.Duration;

/**
 * An environment with a longer hang guard than the one it wraps, for scenarios that are slow by
 * nature on a loaded machine (100,000 lossy messages, tens of thousands of objects). Still a bound,
 * not a speed assertion; everything else is the wrapped environment's.
 */
final class GuardedEnvironment extends ForwardingEnvironment {
  private final Duration atLeast;

  /**
   * @param env the provider's environment
   * @param atLeast the least hang guard
   */
  GuardedEnvironment(KitEnvironment env, Duration atLeast) {
    super(env);
    this.atLeast = atLeast;
  }

  @Override
  public Duration timeout() {
    return env.timeout().compareTo(atLeast) > 0 ? env.timeout() : atLeast;
  }
}
