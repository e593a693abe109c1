package io.github.verbs4j.fabric;

import io.github.verbs4j.fabric.local.LocalFabric;
import io.github.verbs4j.fabric.netty.NettyNode;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.util.Map;

/**
 * Entry point: opens this process's node on the fabric chosen by {@code verbs.fabric}.
 *
 * <pre>{@code
 * FabricNode node = Fabric.open(FabricOptions.from(Map.of(
 *     "verbs.fabric", "netty", "verbs.coordinator", "embedded:127.0.0.1:7000")), registry);
 * }</pre>
 *
 * <ul>
 *   <li>{@code local}: joins the in-JVM fabric named {@code verbs.fabric.name} (created on first
 *       use): every node opened in this JVM under that name sees the others. Returns at once.
 *   <li>{@code netty}: starts the data listener, joins the coordinator (starting it first if {@code
 *       verbs.coordinator=embedded:...} and this is rank 0), waits until all {@code verbs.size} ranks
 *       have joined and connects to each: blocks up to {@code verbs.fabric.join-timeout-ms}.
 * </ul>
 */
public final class Fabric {
  /** Netty's switch for its allocator's JFR events; see the static initializer. */
  static final String NETTY_JFR = "io.netty.jfr.enabled";

  static {
    // Netty 4.2 emits JFR events from its allocator by default. The first chunk a thread
    // allocates then loads and registers the JFR event types, ~250 ms in a fresh JVM: long
    // enough for a peer's first packets to exhaust a short RC retry budget. Off unless the
    // application chose otherwise (it must be set before Netty's PlatformDependent loads).
    if (System.getProperty(NETTY_JFR) == null) {
      System.setProperty(NETTY_JFR, "false");
    }
  }

  private Fabric() {}

  /**
   * Opens a node.
   *
   * @param options validated options
   * @param registry where meters go
   * @return the node
   * @throws FabricException if the node cannot join (coordinator unreachable, refused, timeout)
   */
  public static FabricNode open(FabricOptions options, MeterRegistry registry) {
    return switch (options.fabric()) {
      case "local" -> LocalFabric.join(options, registry);
      case "netty" -> NettyNode.open(options, registry);
      default -> throw new IllegalArgumentException("verbs.fabric=" + options.fabric() + " must be local or netty");
    };
  }

  /**
   * Opens a node with meters in {@link Metrics#globalRegistry}.
   *
   * @param options validated options
   * @return the node
   */
  public static FabricNode open(FabricOptions options) {
    return open(options, Metrics.globalRegistry);
  }

  /**
   * Opens a node from raw {@code verbs.*} settings and the process environment.
   *
   * @param settings settings
   * @param registry where meters go
   * @return the node
   */
  public static FabricNode open(Map<String, String> settings, MeterRegistry registry) {
    return open(FabricOptions.from(settings, System.getenv()), registry);
  }
}
