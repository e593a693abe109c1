package io.github.verbs4j.verbs.spi;

import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Device;
import io.github.verbs4j.verbs.DeviceOptions;
import io.github.verbs4j.verbs.config.ConfigKey;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.util.List;

/**
 * A verbs provider, found through {@link java.util.ServiceLoader} (a {@code
 * META-INF/services/io.github.verbs4j.verbs.spi.VerbsProvider} entry). Applications never use this
 * type: they call {@link io.github.verbs4j.verbs.Verbs}, which picks the provider named by {@code
 * verbs.provider}.
 *
 * <p>Implementations build their objects on the abstract bases of this package so that argument
 * validation, the QP state machine and WR-chain handling are the same for every provider.
 */
public interface VerbsProvider {
  /** @return the name used in {@code verbs.provider}, e.g. {@code ib} */
  String name();

  /**
   * Every configuration key this provider accepts beyond {@link VerbsConfig#CORE_KEYS}, including
   * its fabric's keys. Used to validate the configuration at open and to document it.
   *
   * @return the keys
   */
  List<ConfigKey> configKeys();

  /**
   * The devices this provider offers under {@code config}.
   *
   * @param config the configuration
   * @return the devices
   */
  List<Device> devices(VerbsConfig config);

  /**
   * Opens a device. The configuration has been validated against {@link VerbsConfig#CORE_KEYS} and
   * {@link #configKeys()}.
   *
   * @param deviceName the device, or empty for the first one
   * @param config the configuration
   * @param options typed extensions (e.g. a Micrometer {@code MeterRegistry})
   * @return the open context
   */
  Context open(String deviceName, VerbsConfig config, DeviceOptions options);
}
