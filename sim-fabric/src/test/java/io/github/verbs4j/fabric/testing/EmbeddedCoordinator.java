package io.github.verbs4j.fabric.testing;

import io.github.verbs4j.fabric.coord.Coordinator;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * A coordinator inside the test JVM on 127.0.0.1 and an ephemeral port, plus the {@code verbs.*}
 * settings a process needs to join it.
 *
 * <pre>{@code
 * try (EmbeddedCoordinator c = EmbeddedCoordinator.start()) {
 *   Map<String, String> rank1 = c.settings(1, 3);   // verbs.fabric=netty, verbs.coordinator, rank, size
 * }
 * }</pre>
 */
public final class EmbeddedCoordinator implements AutoCloseable {
  private final Coordinator coordinator;

  private EmbeddedCoordinator(Coordinator coordinator) {
    this.coordinator = coordinator;
  }

  /** @return a coordinator with a 3 s peer timeout */
  public static EmbeddedCoordinator start() {
    return start(Duration.ofSeconds(3));
  }

  /**
   * @param peerTimeout how long a silent node stays up
   * @return a running coordinator
   */
  public static EmbeddedCoordinator start(Duration peerTimeout) {
    return new EmbeddedCoordinator(Coordinator.start("127.0.0.1", 0, peerTimeout));
  }

  /** @return its port */
  public int port() {
    return coordinator.port();
  }

  /** @return {@code 127.0.0.1:port}, the value of {@code verbs.coordinator} */
  public String address() {
    return "127.0.0.1:" + port();
  }

  /** @return the coordinator */
  public Coordinator coordinator() {
    return coordinator;
  }

  /**
   * @param rank a rank
   * @param size the job size
   * @return {@code verbs.fabric=netty}, {@code verbs.coordinator}, {@code verbs.rank}, {@code verbs.size}
   */
  public Map<String, String> settings(int rank, int size) {
    Map<String, String> m = new HashMap<>();
    m.put("verbs.fabric", "netty");
    m.put("verbs.coordinator", address());
    m.put("verbs.rank", Integer.toString(rank));
    m.put("verbs.size", Integer.toString(size));
    return m;
  }

  @Override
  public void close() {
    coordinator.close();
  }
}
