package io.github.verbs4j.fabric;

import io.github.verbs4j.fabric.local.LocalFabric;
import io.github.verbs4j.fabric.netty.NettyNode;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.util.Map;
import java.util.Properties;

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
  /** Netty's system property that switches its allocator's JFR events. */
  static final String NETTY_JFR_PROPERTY = "io.netty.jfr.enabled";

  private Fabric() {}

  /**
   * Opens a node. First applies {@link FabricOptions#NETTY_JFR}: with {@code off} (the default)
   * Netty's allocator JFR events are switched off for this JVM unless the application set {@code
   * io.netty.jfr.enabled} itself. Netty reads that property once, when its {@code
   * PlatformDependent} class loads, so this takes effect only if nothing in the JVM has used Netty
   * yet; an application that loads Netty before it opens the fabric sets the property on its
   * command line.
   *
   * @param options validated options
   * @param registry where meters go
   * @return the node
   * @throws FabricException if the node cannot join (coordinator unreachable, refused, timeout)
   */
  public static FabricNode open(FabricOptions options, MeterRegistry registry) {
    applyNettyJfr(options, System.getProperties());
    return switch (options.fabric()) {
      case "local" -> LocalFabric.join(options, registry);
      case "netty" -> NettyNode.open(options, registry);
      default -> throw new IllegalArgumentException("verbs.fabric=" + options.fabric() + " must be local or netty");
    };
  }

  /**
   * Netty 4.2 emits JFR events from its allocator by default; the first chunk a thread allocates
   * then loads and registers the event types, ~250 ms in a fresh JVM: long enough for a peer's
   * first packets to exhaust a short RC retry budget.
   *
   * @param options the options ({@link FabricOptions#NETTY_JFR})
   * @param system the JVM's system properties
   */
  static void applyNettyJfr(FabricOptions options, Properties system) {
    if ("off".equals(options.get(FabricOptions.NETTY_JFR)) && system.getProperty(NETTY_JFR_PROPERTY) == null) {
      system.setProperty(NETTY_JFR_PROPERTY, "false");
    }
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
