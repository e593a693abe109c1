package io.github.verbs4j.verbs.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * verbs4j configuration: every {@code verbs.*} setting, read once, highest precedence first, from
 * <ol>
 *   <li>explicit overrides ({@link #with(String, String)}) and system properties {@code -Dverbs.*},
 *   <li>environment variables {@code VERBS_*} ({@link ConfigKey#envName()}),
 *   <li>a properties file: {@code -Dverbs.config=path} (or {@code VERBS_CONFIG}), else {@code
 *       verbs.properties} in the working directory if present,
 *   <li>the defaults of the {@link ConfigKey}s.
 * </ol>
 *
 * <p>Keys belong to modules: the core keys are {@link #CORE_KEYS}; a provider adds its own and the
 * fabric's through {@code VerbsProvider.configKeys()}. {@link #validate(Collection)} runs once, when a
 * device is opened: an unknown key or a bad value fails with an {@link IllegalArgumentException}
 * naming the key and where it was set. {@link #toString()} prints every setting and its source.
 * Immutable and thread-safe.
 *
 * <pre>{@code
 * VerbsConfig cfg = VerbsConfig.load().with("verbs.provider", "tca");
 * try (Context ctx = Verbs.open(cfg)) { ... }
 * }</pre>
 */
public final class VerbsConfig {
  /** Which provider serves {@link io.github.verbs4j.verbs.Verbs#open()}. */
  public static final ConfigKey PROVIDER =
      ConfigKey.choice("verbs.provider", "ib", "provider: ib (simulated InfiniBand HCA) or tca (PEACH2/TCA)", "ib", "tca");
  /** Which device to open; empty = the provider's first device. */
  public static final ConfigKey DEVICE = ConfigKey.string("verbs.device", "", "device name; empty = first device");
  /** Which fabric transport carries frames. */
  public static final ConfigKey FABRIC = ConfigKey.choice("verbs.fabric", "local",
      "fabric transport: local (in-JVM) or netty (between processes and hosts)", "local", "netty");
  /** Where the coordinator is. */
  public static final ConfigKey COORDINATOR = ConfigKey.string("verbs.coordinator", "",
      "coordinator address host:port; empty = embedded in this process");
  /** This process's rank. */
  public static final ConfigKey RANK = ConfigKey.longRange("verbs.rank", -1,
      "this process's rank; -1 = from SLURM_PROCID / OMPI_COMM_WORLD_RANK, else 0", -1, 65535);
  /** The job size. */
  public static final ConfigKey SIZE = ConfigKey.longRange("verbs.size", -1,
      "number of ranks; -1 = from SLURM_NTASKS / OMPI_COMM_WORLD_SIZE, else 1", -1, 65536);
  /** Which clock completion timestamps and benchmarks use. */
  public static final ConfigKey TIME =
      ConfigKey.choice("verbs.time", "wall", "clock: wall or modelled (the fabric's modelled time)", "wall", "modelled");
  /**
   * Whether this process counts as privileged, as a process with CAP_NET_RAW does for the kernel's
   * verbs (or any process after {@code rdma system set privileged-qkey on}): it may give a UD QP a
   * privileged Q_Key (most significant bit set). A JVM cannot hold the capability for a simulated
   * device, so the user states it.
   */
  public static final ConfigKey PRIVILEGED = ConfigKey.bool("verbs.privileged", false,
      "this process counts as privileged (CAP_NET_RAW): it may set a privileged Q_Key (MSB set) on a UD QP");
  /**
   * Which threads run a device's engine ({@code io.github.verbs4j.verbs.spi.runtime.Threading}); it
   * sets the fabric's progress too.
   */
  public static final ConfigKey THREADING = ConfigKey.choice("verbs.threading", "dedicated",
      "which threads run a device's engine: dedicated (an engine thread per device; posts and polls also run it "
          + "when it is free), shared (one engine thread for all devices of the JVM; posts and polls only wake it) "
          + "or invoker (no engine thread: the application's posts and polls run it); sets verbs.fabric.progress "
          + "(caller for dedicated and invoker, thread for shared) unless that is set",
      "dedicated", "shared", "invoker");
  /** How an engine thread waits when idle. */
  public static final ConfigKey IDLE_STRATEGY = ConfigKey.choice("verbs.idle-strategy", "backoff",
      "how an engine thread waits when idle (never past its next timer; a post or packet wakes it): backoff "
          + "(200 spins, 50 yields, then parks from 10 us doubling to 1 ms), spin, yield or sleep (parks 1 ms)",
      "backoff", "spin", "yield", "sleep");
  /** The properties file to read. */
  public static final ConfigKey CONFIG_FILE = ConfigKey.string("verbs.config", "",
      "properties file with verbs.* settings; empty = ./verbs.properties if present");

  /** The keys verbs-api itself owns. */
  public static final List<ConfigKey> CORE_KEYS = List.of(PROVIDER, DEVICE, FABRIC, COORDINATOR, RANK, SIZE, TIME,
      PRIVILEGED, THREADING, IDLE_STRATEGY, CONFIG_FILE);

  private static final String PREFIX = "verbs.";
  private static final String ENV_PREFIX = "VERBS_";

  private final Map<String, String> overrides;
  private final Map<String, String> system;
  private final Map<String, String> env;
  private final Map<String, String> file;
  private final String fileName;
  private final Map<String, String> fullEnv;

  private VerbsConfig(Map<String, String> overrides, Map<String, String> system, Map<String, String> env,
      Map<String, String> file, String fileName, Map<String, String> fullEnv) {
    this.overrides = Map.copyOf(overrides);
    this.system = Map.copyOf(system);
    this.env = Map.copyOf(env);
    this.file = Map.copyOf(file);
    this.fileName = fileName;
    this.fullEnv = Map.copyOf(fullEnv);
  }

  /**
   * Reads system properties, the environment and the properties file.
   *
   * @return the configuration
   * @throws UncheckedIOException if a named properties file cannot be read
   */
  public static VerbsConfig load() {
    return load(System.getProperties(), System.getenv(), Path.of(""));
  }

  /**
   * Reads the given sources (for tests and embedding).
   *
   * @param systemProperties the system properties
   * @param environment the environment
   * @param workingDir where {@code verbs.properties} is looked for
   * @return the configuration
   */
  public static VerbsConfig load(Properties systemProperties, Map<String, String> environment, Path workingDir) {
    Map<String, String> sys = new TreeMap<>();
    for (String name : systemProperties.stringPropertyNames()) {
      if (name.startsWith(PREFIX)) {
        sys.put(name, systemProperties.getProperty(name));
      }
    }
    Map<String, String> envVerbs = new TreeMap<>();
    environment.forEach((k, v) -> {
      if (k.startsWith(ENV_PREFIX)) {
        envVerbs.put(k, v);
      }
    });
    String path = sys.get(CONFIG_FILE.name());
    if (path == null) {
      path = envVerbs.get(CONFIG_FILE.envName());
    }
    Map<String, String> fileProps = new TreeMap<>();
    String fileName = null;
    Path p = path != null && !path.isEmpty() ? Path.of(path) : workingDir.resolve("verbs.properties");
    if (Files.isRegularFile(p)) {
      Properties props = new Properties();
      try (InputStream in = Files.newInputStream(p)) {
        props.load(in);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read verbs.config=" + p, e);
      }
      for (String name : props.stringPropertyNames()) {
        fileProps.put(name.trim(), props.getProperty(name).trim());
      }
      fileName = p.toString();
    } else if (path != null && !path.isEmpty()) {
      throw new IllegalArgumentException("verbs.config=" + path + " does not exist or is not a file");
    }
    return new VerbsConfig(Map.of(), sys, envVerbs, fileProps, fileName, environment);
  }

  /**
   * A configuration with only the given explicit settings and no environment (for tests).
   *
   * @param settings {@code verbs.*} settings
   * @return the configuration
   */
  public static VerbsConfig of(Map<String, String> settings) {
    return new VerbsConfig(settings, Map.of(), Map.of(), Map.of(), null, Map.of());
  }

  /**
   * A copy with {@code key} set explicitly (highest precedence).
   *
   * @param key a {@code verbs.*} key
   * @param value its value
   * @return the new configuration
   */
  public VerbsConfig with(String key, String value) {
    Map<String, String> o = new LinkedHashMap<>(overrides);
    o.put(key, value);
    return new VerbsConfig(o, system, env, file, fileName, fullEnv);
  }

  /**
   * A copy with all {@code settings} set explicitly.
   *
   * @param settings {@code verbs.*} settings
   * @return the new configuration
   */
  public VerbsConfig with(Map<String, String> settings) {
    Map<String, String> o = new LinkedHashMap<>(overrides);
    o.putAll(settings);
    return new VerbsConfig(o, system, env, file, fileName, fullEnv);
  }

  /**
   * The value of {@code key}: explicit, system property, environment, file, else the default.
   *
   * @param key the key
   * @return the value (never null)
   */
  public String get(ConfigKey key) {
    String v = lookup(key.name());
    return v != null ? v.trim() : key.defaultValue();
  }

  /**
   * @param key the key
   * @return the value as a long
   * @throws IllegalArgumentException naming the key if not an integer
   */
  public long getLong(ConfigKey key) {
    String v = get(key);
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key.name() + "=" + v + " is not an integer", e);
    }
  }

  /**
   * @param key the key
   * @return the value as an int
   */
  public int getInt(ConfigKey key) {
    return Math.toIntExact(getLong(key));
  }

  /**
   * @param key the key
   * @return the value as a double
   * @throws IllegalArgumentException naming the key if not a number
   */
  public double getDouble(ConfigKey key) {
    String v = get(key);
    try {
      return Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key.name() + "=" + v + " is not a number", e);
    }
  }

  /**
   * @param key the key
   * @return the value as a boolean
   */
  public boolean getBoolean(ConfigKey key) {
    return Boolean.parseBoolean(get(key));
  }

  /**
   * Whether {@code key} was set anywhere (not just defaulted).
   *
   * @param key the key
   * @return true if set
   */
  public boolean isSet(ConfigKey key) {
    return lookup(key.name()) != null;
  }

  private String lookup(String name) {
    String v = overrides.get(name);
    if (v == null) {
      v = system.get(name);
    }
    if (v == null) {
      v = env.get(ConfigKey.envName(name));
    }
    if (v == null) {
      v = file.get(name);
    }
    return v;
  }

  /**
   * Where {@code key}'s value came from.
   *
   * @param key the key name
   * @return "explicit", "system property", "environment VERBS_X", "file F" or "default"
   */
  public String source(String key) {
    if (overrides.containsKey(key)) {
      return "explicit";
    }
    if (system.containsKey(key)) {
      return "system property";
    }
    if (env.containsKey(ConfigKey.envName(key))) {
      return "environment " + ConfigKey.envName(key);
    }
    if (file.containsKey(key)) {
      return "file " + fileName;
    }
    return "default";
  }

  /**
   * Checks every setting against {@code known}: an unknown {@code verbs.*} key (in any source) or a
   * value its validator rejects fails, naming the key, the value and where it was set.
   *
   * @param known every key the opening provider, its fabric and verbs-api accept
   * @throws IllegalArgumentException naming the first problem
   */
  public void validate(Collection<ConfigKey> known) {
    Map<String, ConfigKey> byName = new TreeMap<>();
    Map<String, ConfigKey> byEnv = new TreeMap<>();
    for (ConfigKey k : known) {
      byName.put(k.name(), k);
      byEnv.put(k.envName(), k);
    }
    List<String> problems = new ArrayList<>();
    checkSource(overrides, byName, "explicit", problems);
    checkSource(system, byName, "system property", problems);
    checkSource(file, byName, "file " + fileName, problems);
    for (Map.Entry<String, String> e : env.entrySet()) {
      if (!byEnv.containsKey(e.getKey())) {
        problems.add("unknown configuration key in environment " + e.getKey() + "=" + e.getValue()
            + " (known: " + new TreeSet<>(byEnv.keySet()) + ")");
      }
    }
    if (problems.isEmpty()) {
      for (ConfigKey k : known) {
        String v = lookup(k.name());
        if (v != null) {
          try {
            k.validator().check(k.name(), v.trim());
          } catch (IllegalArgumentException ex) {
            problems.add(ex.getMessage() + " (set by " + source(k.name()) + ")");
          }
        }
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
  }

  private static void checkSource(Map<String, String> src, Map<String, ConfigKey> byName, String where,
      List<String> problems) {
    for (Map.Entry<String, String> e : src.entrySet()) {
      if (!byName.containsKey(e.getKey())) {
        problems.add("unknown configuration key " + e.getKey() + "=" + e.getValue() + " (set by " + where
            + "; known keys: " + byName.keySet() + ")");
      }
    }
  }

  /**
   * The effective value of every key in {@code keys} (set or default), for handing to modules that
   * take plain string maps (the fabric).
   *
   * @param keys the keys
   * @return key → value, in the order given
   */
  public Map<String, String> resolve(Collection<ConfigKey> keys) {
    Map<String, String> m = new LinkedHashMap<>();
    for (ConfigKey k : keys) {
      m.put(k.name(), get(k));
    }
    return m;
  }

  /**
   * Every {@code verbs.*} key that was set, with its effective value.
   *
   * @return key → value, sorted
   */
  public Map<String, String> explicitSettings() {
    Map<String, String> m = new TreeMap<>();
    file.forEach(m::put);
    env.forEach((k, v) -> m.put(k.toLowerCase(java.util.Locale.ROOT).replace('_', '.'), v));
    system.forEach(m::put);
    overrides.forEach(m::put);
    return m;
  }

  /**
   * The process environment the configuration was loaded with (for rank/size detection from Slurm
   * or Open MPI variables).
   *
   * @return the environment
   */
  public Map<String, String> environment() {
    return fullEnv;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("VerbsConfig{");
    boolean first = true;
    for (ConfigKey k : CORE_KEYS) {
      sb.append(first ? "" : ", ").append(k.name()).append('=').append(get(k)).append(" (").append(source(k.name()))
          .append(')');
      first = false;
    }
    for (Map.Entry<String, String> e : explicitSettings().entrySet()) {
      if (CORE_KEYS.stream().noneMatch(k -> k.name().equals(e.getKey()))) {
        sb.append(", ").append(e.getKey()).append('=').append(e.getValue());
      }
    }
    return sb.append('}').toString();
  }
}
