package io.github.verbs4j.verbs.spi.runtime;

import io.github.verbs4j.verbs.config.VerbsConfig;
import org.agrona.concurrent.BackoffIdleStrategy;

/**
 * {@code verbs.idle-strategy}: how a thread that found nothing to do waits, as the four numbers of
 * Agrona's {@code BackoffIdleStrategy} (spins, then yields, then parks from the shortest, doubling
 * to the longest). Engine threads use it (an {@link EngineThread} never sleeps past its agents' next
 * deadline whatever the choice), and so may the application's own waits (the examples' message
 * passing layer spins and yields by it, then blocks on its completion channel).
 *
 * <p>The default, {@code backoff}, drops its spins and yields when the host is oversubscribed
 * ({@link HostShare#oversubscribed()}): a waiting thread then parks at once and leaves the cores to
 * the ranks with work. The explicit choices ({@code spin}, {@code yield}, {@code sleep}) are taken
 * as they are.
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
  public record Backoff(int spins, int yields, long minParkNanos, long maxParkNanos) {
    /** @return whether a waiter keeps its core for a while (it spins or yields before parking) */
    public boolean busy() {
      return spins > 0 || yields > 0;
    }

    /** @return a new Agrona idle strategy with these numbers (one per waiting loop: it has state) */
    public BackoffIdleStrategy newIdleStrategy() {
      return new BackoffIdleStrategy(spins, yields, minParkNanos, Math.max(minParkNanos, maxParkNanos));
    }
  }

  /**
   * @param config the configuration
   * @return the numbers its {@code verbs.idle-strategy} stands for on this host ({@link
   *     HostShare#current()})
   */
  public static Backoff of(VerbsConfig config) {
    return of(config, HostShare.current());
  }

  /**
   * @param config the configuration
   * @param host how many ranks share the host's processors
   * @return the numbers its {@code verbs.idle-strategy} stands for on that host
   */
  public static Backoff of(VerbsConfig config, HostShare host) {
    return switch (config.get(VerbsConfig.IDLE_STRATEGY)) {
      case "spin" -> new Backoff(Integer.MAX_VALUE, 0, 1_000_000, 1_000_000);
      case "yield" -> new Backoff(0, Integer.MAX_VALUE, 1_000_000, 1_000_000);
      case "sleep" -> new Backoff(0, 0, 1_000_000, 1_000_000);
      default -> host.oversubscribed() ? new Backoff(0, 0, 10_000, 1_000_000) : new Backoff(200, 50, 10_000, 1_000_000);
    };
  }
}
