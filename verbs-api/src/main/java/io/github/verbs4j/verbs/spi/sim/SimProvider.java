package io.github.verbs4j.verbs.spi.sim;

import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Device;
import io.github.verbs4j.verbs.DeviceOptions;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.NodeType;
import io.github.verbs4j.verbs.TransportType;
import io.github.verbs4j.verbs.VerbsException;
import io.github.verbs4j.verbs.config.ConfigKey;
import io.github.verbs4j.verbs.config.VerbsConfig;
import io.github.verbs4j.verbs.spi.VerbsProvider;
import java.util.List;

/**
 * The base of a simulated provider: one InfiniBand-transport channel adapter per process (or per {@code Verbs.open} on the in-JVM
 * fabric), its configuration keys, the device-name check of {@code open}, and the error a failed
 * fabric join becomes. A subclass opens the device itself ({@link #openDevice}).
 */
public abstract class SimProvider implements VerbsProvider {
  private final Device device;
  private final ProviderKeys keys;

  /**
   * @param name the provider's name
   * @param deviceName its one device's name
   * @param guid the device's GUID
   * @param keys every key the provider accepts beyond the core keys
   */
  protected SimProvider(String name, String deviceName, long guid, ProviderKeys keys) {
    this.device = new Device(deviceName, name, NodeType.CA, TransportType.IB, guid);
    this.keys = keys;
  }

  @Override
  public final String name() {
    return device.provider();
  }

  @Override
  public final List<ConfigKey> configKeys() {
    return keys.all();
  }

  @Override
  public final List<Device> devices(VerbsConfig config) {
    return List.of(device);
  }

  /** @return the provider's device */
  protected final Device device() {
    return device;
  }

  @Override
  public final Context open(String deviceName, VerbsConfig config, DeviceOptions options) {
    if (!deviceName.isEmpty() && !deviceName.equals(device.name())) {
      throw new VerbsException(Errno.ENODEV, "verbs.device=" + deviceName + ": provider " + name() + " has only "
          + device.name());
    }
    return openDevice(config, options);
  }

  /**
   * Joins the fabric and opens the device; on failure releases what it took.
   *
   * @param config the validated configuration
   * @param options the application's options
   * @return the context
   */
  protected abstract Context openDevice(VerbsConfig config, DeviceOptions options);

  /**
   * The error of a failed fabric join.
   *
   * @param config the configuration
   * @param e the fabric's exception
   * @return EIO naming {@code verbs.fabric} and the fabric's reason
   */
  protected static VerbsException joinFailure(VerbsConfig config, RuntimeException e) {
    return new VerbsException(Errno.EIO, "cannot join the fabric (verbs.fabric=" + config.get(VerbsConfig.FABRIC)
        + "): " + e.getMessage(), -1, e);
  }
}
