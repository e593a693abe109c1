package io.github.verbs4j.verbs;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Typed objects handed to a provider when a device is opened, for things a configuration string
 * cannot carry: a Micrometer {@code MeterRegistry}, for example. verbs-api depends on neither, so
 * the entries are keyed by class. Immutable.
 *
 * <pre>{@code
 * Context ctx = Verbs.open(VerbsConfig.load(), DeviceOptions.none().with(MeterRegistry.class, registry));
 * }</pre>
 */
public final class DeviceOptions {
  private static final DeviceOptions NONE = new DeviceOptions(Map.of());

  private final Map<Class<?>, Object> entries;

  private DeviceOptions(Map<Class<?>, Object> entries) {
    this.entries = entries;
  }

  /** @return options with no entries */
  public static DeviceOptions none() {
    return NONE;
  }

  /**
   * A copy with {@code value} under {@code type}.
   *
   * @param type the key
   * @param value the object
   * @param <T> its type
   * @return the new options
   */
  public <T> DeviceOptions with(Class<T> type, T value) {
    Map<Class<?>, Object> m = new HashMap<>(entries);
    m.put(Objects.requireNonNull(type, "type"), Objects.requireNonNull(value, "value"));
    return new DeviceOptions(Map.copyOf(m));
  }

  /**
   * @param type the key
   * @param <T> its type
   * @return the object, if present
   */
  public <T> Optional<T> get(Class<T> type) {
    return Optional.ofNullable(type.cast(entries.get(type)));
  }
}
