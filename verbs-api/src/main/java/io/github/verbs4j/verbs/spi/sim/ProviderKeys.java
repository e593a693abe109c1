package io.github.verbs4j.verbs.spi.sim;

import io.github.verbs4j.verbs.config.ConfigKey;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A provider's configuration keys: its own, each declared next to its default and one line of doc
 * ({@link #add}), and the fabric's, which the provider passes on ({@link #bridge}), so that {@code
 * Verbs.open} validates the whole configuration once and the fabric gets exactly what was set
 * ({@link #fabricSettings}).
 *
 * <pre>{@code
 * public static final ProviderKeys KEYS = new ProviderKeys();
 * public static final ConfigKey JOB = KEYS.add(ConfigKey.string("verbs.x.job", "", "..."));
 * static {
 *   KEYS.bridge(fabricKeys);   // after the last add
 * }
 * }</pre>
 */
public final class ProviderKeys {
  private final List<ConfigKey> own = new ArrayList<>();
  private List<ConfigKey> fabric = List.of();

  /** An empty key set. */
  public ProviderKeys() {}

  /**
   * Declares one of the provider's own keys.
   *
   * @param key the key
   * @return {@code key}
   */
  public synchronized ConfigKey add(ConfigKey key) {
    own.add(key);
    return key;
  }

  /** @return the provider's own keys, in declaration order */
  public synchronized List<ConfigKey> own() {
    return List.copyOf(own);
  }

  /**
   * Adds the fabric's keys, which the provider accepts and passes on (call once, after the last
   * {@link #add}).
   *
   * @param fabricKeys the fabric's own keys (not the core keys), each validated by the fabric
   */
  public synchronized void bridge(List<ConfigKey> fabricKeys) {
    fabric = List.copyOf(fabricKeys);
  }

  /** @return the provider's keys, then the fabric's, as {@code VerbsProvider.configKeys()} lists them */
  public synchronized List<ConfigKey> all() {
    List<ConfigKey> l = new ArrayList<>(own);
    l.addAll(fabric);
    return Collections.unmodifiableList(l);
  }

  /**
   * The settings the fabric reads, resolved from every configuration source (overrides, system
   * properties, environment, file): each core key and fabric key that is set, on top of {@code
   * defaults} (the provider's choices for keys it derives, such as the fabric's progress from
   * {@code verbs.threading}; a setting of the key itself wins).
   *
   * @param c the configuration
   * @param defaults values used where a key is not set
   * @return key to value, for the fabric's options
   */
  public Map<String, String> fabricSettings(VerbsConfig c, Map<String, String> defaults) {
    Map<String, String> m = new LinkedHashMap<>(defaults);
    List<ConfigKey> keys = new ArrayList<>(VerbsConfig.CORE_KEYS);
    synchronized (this) {
      keys.addAll(fabric);
    }
    for (ConfigKey k : keys) {
      if (c.isSet(k)) {
        m.put(k.name(), c.get(k));
      }
    }
    return m;
  }
}
