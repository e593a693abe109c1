package io.github.verbs4j.verbs.spi.runtime;

import io.github.verbs4j.verbs.config.VerbsConfig;

/**
 * {@code verbs.idle-strategy}: how an engine thread waits when idle, as the four numbers of Agrona's
 * {@code BackoffIdleStrategy} (spins, then yields, then parks from the shortest, doubling to the
 * longest). An {@link EngineThread} never sleeps past its agents' next deadline whatever the choice.
 */
public final class IdleStrategyKey {
  private IdleStrategyKey() {}

  /**
   * The back-off numbers.
   *
   * @param spins busy spins before yielding
   * @param yields yields before parking
   * @param minParkNanos first park
   * @param maxParkNanos longest park
   */
  public record Backoff(int spins, int yields, long minParkNanos, long maxParkNanos) { }

  /**
   * @param config the configuration
   * @return the numbers its {@code verbs.idle-strategy} stands for
   */
  public static Backoff of(VerbsConfig config) {
    return switch (config.get(VerbsConfig.IDLE_STRATEGY)) {
      case "spin" -> new Backoff(Integer.MAX_VALUE, 0, 1_000_000, 1_000_000);
      case "yield" -> new Backoff(0, Integer.MAX_VALUE, 1_000_000, 1_000_000);
      case "sleep" -> new Backoff(0, 0, 1_000_000, 1_000_000);
      default -> new Backoff(200, 50, 10_000, 1_000_000);
    };
  }
}
