package io.github.verbs4j.examples.launcher;

import io.github.verbs4j.fabric.auth.JobSecret;
import io.github.verbs4j.fabric.coord.Coordinator;
import java.time.Duration;
import java.util.Optional;

/**
 * sim-fabric's coordinator running inside the launcher's JVM on 127.0.0.1 and an ephemeral port:
 * it assigns node ids, publishes the node directory, and serves the job's key-value store and
 * barriers to the ranks. The launcher starts the job, so it makes the job secret ({@code
 * VERBS4J_JOB_SECRET} of its own environment if set, else a fresh one) and hands it to the ranks in
 * their environment.
 */
final class EmbeddedCoordinator implements CoordinatorHandle {
  /** A rank silent this long (no heartbeat) is declared down; generous for loaded two-core machines. */
  static final Duration PEER_TIMEOUT = Duration.ofSeconds(15);

  private final Coordinator coordinator;

  private EmbeddedCoordinator(Coordinator coordinator) {
    this.coordinator = coordinator;
  }

  /**
   * @param ranks the job size (the coordinator learns it from the first rank that joins)
   * @return the running coordinator
   */
  static EmbeddedCoordinator start(int ranks) {
    return new EmbeddedCoordinator(Coordinator.start("127.0.0.1", 0, PEER_TIMEOUT,
        JobSecret.fromEnvironment(System.getenv()).orElseGet(JobSecret::generate)));
  }

  @Override
  public String address() {
    return "127.0.0.1:" + coordinator.port();
  }

  @Override
  public Optional<JobSecret> secret() {
    return Optional.of(coordinator.secret());
  }

  @Override
  public void close() {
    coordinator.close();
  }
}
