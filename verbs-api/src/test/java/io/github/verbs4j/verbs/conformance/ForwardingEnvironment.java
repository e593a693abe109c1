package io.github.verbs4j.verbs.conformance;

import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** An environment that is another one with some answers changed: subclasses override those. */
abstract class ForwardingEnvironment implements KitEnvironment {
  /** The wrapped environment. */
  protected final KitEnvironment env;

  /** @param env the environment to forward to */
  ForwardingEnvironment(KitEnvironment env) {
    this.env = env;
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
    return env.timeout();
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
