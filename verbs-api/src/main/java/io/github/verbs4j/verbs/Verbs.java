package io.github.verbs4j.verbs;

import io.github.verbs4j.verbs.config.ConfigKey;
import io.github.verbs4j.verbs.config.VerbsConfig;
import io.github.verbs4j.verbs.spi.VerbsProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * The entry point: lists devices and opens them ({@code ibv_get_device_list}, {@code
 * ibv_open_device}). The provider is chosen by configuration ({@code verbs.provider}, see {@link
 * VerbsConfig}), so the same application binary runs on the simulated InfiniBand HCA or the TCA
 * emulation. Providers are found with {@link ServiceLoader}; an application depends on verbs-api
 * only.
 *
 * <pre>{@code
 * try (Context ctx = Verbs.open()) {          // verbs.provider, verbs.device from the config
 *   DeviceAttr attr = ctx.queryDevice();
 * }
 * }</pre>
 */
public final class Verbs {
  private Verbs() {}

  /** @return every provider on the class path */
  public static List<VerbsProvider> providers() {
    List<VerbsProvider> list = new ArrayList<>();
    ServiceLoader.load(VerbsProvider.class).forEach(list::add);
    return list;
  }

  /**
   * The provider with {@code name}.
   *
   * @param name e.g. {@code ib}
   * @return the provider
   * @throws VerbsException ENODEV naming the provider and those available
   */
  public static VerbsProvider provider(String name) {
    List<String> names = new ArrayList<>();
    for (VerbsProvider p : providers()) {
      if (p.name().equals(name)) {
        return p;
      }
      names.add(p.name());
    }
    throw new VerbsException(Errno.ENODEV, "verbs.provider=" + name + " is not on the class path (available: "
        + names + ")");
  }

  /** @return the devices of the configured provider ({@code ibv_get_device_list}) */
  public static List<Device> devices() {
    return devices(VerbsConfig.load());
  }

  /**
   * @param config the configuration
   * @return the devices of the provider it names
   */
  public static List<Device> devices(VerbsConfig config) {
    return provider(config.get(VerbsConfig.PROVIDER)).devices(config);
  }

  /** @return the configured device of the configured provider, opened */
  public static Context open() {
    return open(VerbsConfig.load());
  }

  /**
   * @param config the configuration
   * @return the device it names, opened
   */
  public static Context open(VerbsConfig config) {
    return open(config, DeviceOptions.none());
  }

  /**
   * @param name the device name
   * @return the device, opened with the loaded configuration
   */
  public static Context openDevice(String name) {
    return open(VerbsConfig.load().with(VerbsConfig.DEVICE.name(), name));
  }

  /**
   * Opens the device named by {@code verbs.device} on the provider named by {@code
   * verbs.provider}, after validating the whole configuration against every key the provider and
   * verbs-api accept.
   *
   * @param config the configuration
   * @param options typed extensions for the provider
   * @return the open context
   * @throws IllegalArgumentException naming an unknown key or bad value
   * @throws VerbsException ENODEV if the provider or device does not exist
   */
  public static Context open(VerbsConfig config, DeviceOptions options) {
    VerbsConfig.PROVIDER.validator().check(VerbsConfig.PROVIDER.name(), config.get(VerbsConfig.PROVIDER));
    VerbsProvider provider = provider(config.get(VerbsConfig.PROVIDER));
    List<ConfigKey> known = new ArrayList<>(VerbsConfig.CORE_KEYS);
    known.addAll(provider.configKeys());
    config.validate(known);
    return provider.open(config.get(VerbsConfig.DEVICE), config, options);
  }
}
