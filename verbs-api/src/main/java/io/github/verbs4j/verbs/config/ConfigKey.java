package io.github.verbs4j.verbs.config;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A configuration key: its name, default, one line of documentation and a validator. Every
 * {@code verbs.*} key a module accepts is a {@code ConfigKey} constant next to its default; the
 * README's configuration table is checked against them by a test.
 *
 * @param name the key, e.g. {@code verbs.provider}
 * @param defaultValue the default, as text ("" = unset)
 * @param description one line of documentation
 * @param validator checks a value, throwing {@link IllegalArgumentException} naming key and value
 */
public record ConfigKey(String name, String defaultValue, String description, Validator validator) {

  /** Checks a configuration value. */
  @FunctionalInterface
  public interface Validator {
    /**
     * @param key the key
     * @param value the value (never null)
     * @throws IllegalArgumentException naming the key and value if invalid
     */
    void check(String key, String value);
  }

  /** Validates the name. */
  public ConfigKey {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(defaultValue, "defaultValue");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(validator, "validator");
    if (!name.startsWith("verbs.")) {
      throw new IllegalArgumentException("config key " + name + " must start with 'verbs.'");
    }
  }

  /**
   * The environment variable for this key: upper case, dots and dashes as underscores ({@code
   * verbs.link.latency-ns} → {@code VERBS_LINK_LATENCY_NS}).
   *
   * @return the variable name
   */
  public String envName() {
    return envName(name);
  }

  /**
   * @param key a key
   * @return its environment variable name
   */
  public static String envName(String key) {
    return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  /**
   * A key whose value is free text.
   *
   * @param name key
   * @param def default
   * @param doc documentation
   * @return the key
   */
  public static ConfigKey string(String name, String def, String doc) {
    return new ConfigKey(name, def, doc, (k, v) -> { });
  }

  /**
   * A key whose value must be one of {@code choices}.
   *
   * @param name key
   * @param def default
   * @param doc documentation
   * @param choices allowed values
   * @return the key
   */
  public static ConfigKey choice(String name, String def, String doc, String... choices) {
    List<String> allowed = List.of(choices);
    return new ConfigKey(name, def, doc, (k, v) -> {
      if (!allowed.contains(v)) {
        throw new IllegalArgumentException(k + "=" + v + " is not one of " + String.join(", ", allowed));
      }
    });
  }

  /**
   * A key whose value is a long in [min, max].
   *
   * @param name key
   * @param def default
   * @param doc documentation
   * @param min lowest value
   * @param max highest value
   * @return the key
   */
  public static ConfigKey longRange(String name, long def, String doc, long min, long max) {
    return new ConfigKey(name, Long.toString(def), doc, (k, v) -> {
      long n;
      try {
        n = Long.parseLong(v.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(k + "=" + v + " is not an integer", e);
      }
      if (n < min || n > max) {
        throw new IllegalArgumentException(k + "=" + v + " is outside [" + min + ", " + max + "]");
      }
    });
  }

  /**
   * A key whose value is a double in [min, max].
   *
   * @param name key
   * @param def default
   * @param doc documentation
   * @param min lowest value
   * @param max highest value
   * @return the key
   */
  public static ConfigKey doubleRange(String name, double def, String doc, double min, double max) {
    return new ConfigKey(name, Double.toString(def), doc, (k, v) -> {
      double d;
      try {
        d = Double.parseDouble(v.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(k + "=" + v + " is not a number", e);
      }
      if (!(d >= min && d <= max)) {
        throw new IllegalArgumentException(k + "=" + v + " is outside [" + min + ", " + max + "]");
      }
    });
  }

  /**
   * A boolean key ({@code true} or {@code false}).
   *
   * @param name key
   * @param def default
   * @param doc documentation
   * @return the key
   */
  public static ConfigKey bool(String name, boolean def, String doc) {
    return choice(name, Boolean.toString(def), doc, "true", "false");
  }
}
