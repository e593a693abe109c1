package io.github.verbs4j.verbs.spi.runtime;

import io.github.verbs4j.verbs.config.ConfigKey;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.util.Locale;

/**
 * Which threads run a device's agent ({@code verbs.threading}), after Aeron's {@code ThreadingMode}.
 * Chosen once, when a device opens; the agent itself never asks.
 */
public enum Threading {
  /**
   * An engine thread per device; an application's post or CQ poll also runs the agent (and the
   * fabric's I/O) on its own thread when no other thread runs it, and the fabric thread that
   * delivers a packet runs it when the engine thread is idle. The fabric's progress is
   * {@code caller} (the calls read and write the sockets). The default: lowest latency.
   */
  DEDICATED,
  /**
   * One engine thread for all devices of the JVM; posts and polls only queue work and wake it (the
   * delivering fabric thread still runs an idle agent). The fabric's own threads do its I/O. For
   * many devices in one JVM, or when the application's threads must not do engine work.
   */
  SHARED,
  /**
   * No engine thread: the application's posts and polls (and the fabric's deliveries and timers)
   * run the agent, as Agrona's {@code AgentInvoker}; with the deterministic in-JVM fabric, runs are
   * reproducible. The fabric's progress is {@code caller}.
   */
  INVOKER;

  /** The fabric's mode: deterministic makes {@link #INVOKER} the default. */
  private static final ConfigKey FABRIC_MODE = ConfigKey.string("verbs.fabric.mode", "threaded",
      "threaded, or deterministic: events in modelled-time order");

  /**
   * @param config the configuration
   * @return the mode it sets ({@link #INVOKER} by default with {@code verbs.fabric.mode=deterministic})
   */
  public static Threading of(VerbsConfig config) {
    if (!config.isSet(VerbsConfig.THREADING) && "deterministic".equals(config.get(FABRIC_MODE))) {
      return INVOKER; // events run in modelled-time order on the caller's thread: no engine thread may race them
    }
    return valueOf(config.get(VerbsConfig.THREADING).toUpperCase(Locale.ROOT));
  }

  /** @return whether the application's posts and polls run the agent (and the fabric's I/O) */
  public boolean callsRunAgent() {
    return this != SHARED;
  }

  /** @return the fabric progress this mode needs ({@code verbs.fabric.progress}) */
  public String fabricProgress() {
    return callsRunAgent() ? "caller" : "thread";
  }
}
