package io.github.verbs4j.examples.launcher;

import io.github.verbs4j.fabric.auth.JobSecret;
import java.util.Optional;

/**
 * A coordinator the children connect to: one the launcher started (closing it stops it) or one
 * running elsewhere (closing does nothing).
 */
public interface CoordinatorHandle extends AutoCloseable {
  /** @return {@code host:port} for {@code verbs.coordinator}, or null when the children need none */
  String address();

  /**
   * @return the job secret the children must prove, if this launcher made it (for a coordinator
   *     running elsewhere the children inherit {@code VERBS4J_JOB_SECRET} or {@code
   *     VERBS4J_JOB_SECRET_FILE} from the launcher's environment)
   */
  default Optional<JobSecret> secret() {
    return Optional.empty();
  }

  /** Stops the coordinator if this launcher started it. */
  @Override
  void close();

  /**
   * @param address an existing coordinator's {@code host:port}, or null for none
   * @return a handle that closes nothing
   */
  static CoordinatorHandle external(String address) {
    return new CoordinatorHandle() {
      @Override
      public String address() {
        return address;
      }

      @Override
      public void close() {}
    };
  }
}
