package io.github.verbs4j.verbs;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.config.ConfigKey;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link VerbsConfig}: precedence (explicit &gt; system properties &gt; environment &gt; file &gt;
 * default), unknown keys and bad values named, {@code toString} listing every core key. Every
 * source is passed in explicitly; the real environment and system properties are never touched.
 */
class VerbsConfigTest {
  @TempDir
  Path dir;

  private static Properties props(String... kv) {
    Properties p = new Properties();
    for (int i = 0; i < kv.length; i += 2) {
      p.setProperty(kv[i], kv[i + 1]);
    }
    return p;
  }

  private void file(String... lines) throws IOException {
    Files.write(dir.resolve("verbs.properties"), List.of(lines));
  }

  @Test
  void defaultsApplyWhenNothingIsSet() {
    VerbsConfig c = VerbsConfig.load(new Properties(), Map.of(), dir);
    for (ConfigKey k : VerbsConfig.CORE_KEYS) {
      assertEquals(k.defaultValue(), c.get(k), k.name());
      assertFalse(c.isSet(k), k.name());
      assertEquals("default", c.source(k.name()));
    }
    assertDoesNotThrow(() -> c.validate(VerbsConfig.CORE_KEYS));
  }

  @Test
  void fileOverridesDefault() throws IOException {
    file("verbs.fabric=netty");
    VerbsConfig c = VerbsConfig.load(new Properties(), Map.of(), dir);
    assertEquals("netty", c.get(VerbsConfig.FABRIC));
    assertTrue(c.source("verbs.fabric").startsWith("file "), c.source("verbs.fabric"));
  }

  @Test
  void environmentOverridesFile() throws IOException {
    file("verbs.fabric=netty", "verbs.time=modelled");
    VerbsConfig c = VerbsConfig.load(new Properties(), Map.of("VERBS_FABRIC", "local", "PATH", "/bin"), dir);
    assertEquals("local", c.get(VerbsConfig.FABRIC));
    assertEquals("environment VERBS_FABRIC", c.source("verbs.fabric"));
    assertEquals("modelled", c.get(VerbsConfig.TIME), "a key set only in the file still comes from the file");
  }

  @Test
  void systemPropertiesOverrideEnvironmentAndFile() throws IOException {
    file("verbs.provider=ib");
    VerbsConfig c = VerbsConfig.load(props("verbs.provider", "tca", "java.version", "17"),
        Map.of("VERBS_PROVIDER", "ib"), dir);
    assertEquals("tca", c.get(VerbsConfig.PROVIDER));
    assertEquals("system property", c.source("verbs.provider"));
  }

  @Test
  void explicitOverridesBeatSystemProperties() {
    VerbsConfig c = VerbsConfig.load(props("verbs.rank", "3"), Map.of("VERBS_RANK", "2"), dir).with("verbs.rank", "1");
    assertEquals(1, c.getInt(VerbsConfig.RANK));
    assertEquals("explicit", c.source("verbs.rank"));
  }

  @Test
  void fullPrecedenceChainForOneKey() throws IOException {
    file("verbs.device=from-file");
    Path wd = dir;
    assertEquals("from-file", VerbsConfig.load(new Properties(), Map.of(), wd).get(VerbsConfig.DEVICE));
    assertEquals("from-env", VerbsConfig.load(new Properties(), Map.of("VERBS_DEVICE", "from-env"), wd)
        .get(VerbsConfig.DEVICE));
    assertEquals("from-sys", VerbsConfig.load(props("verbs.device", "from-sys"), Map.of("VERBS_DEVICE", "from-env"),
        wd).get(VerbsConfig.DEVICE));
  }

  @Test
  void configFileNamedBySystemPropertyOrEnvironmentIsRead() throws IOException {
    Path other = dir.resolve("elsewhere.properties");
    Files.write(other, List.of("verbs.time=modelled"));
    assertEquals("modelled", VerbsConfig.load(props("verbs.config", other.toString()), Map.of(), dir)
        .get(VerbsConfig.TIME));
    assertEquals("modelled", VerbsConfig.load(new Properties(), Map.of("VERBS_CONFIG", other.toString()), dir)
        .get(VerbsConfig.TIME));
  }

  @Test
  void missingNamedConfigFileIsAnErrorNamingIt() {
    Path missing = dir.resolve("nope.properties");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> VerbsConfig.load(props("verbs.config", missing.toString()), Map.of(), dir));
    assertTrue(e.getMessage().contains("verbs.config") && e.getMessage().contains("nope.properties"), e.getMessage());
  }

  private static void assertUnknown(VerbsConfig c, String named) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.validate(VerbsConfig.CORE_KEYS));
    assertTrue(e.getMessage().contains(named), "message must name " + named + ": " + e.getMessage());
    assertTrue(e.getMessage().contains("unknown"), e.getMessage());
  }

  @Test
  void unknownKeyInEachSourceIsAnErrorNamingTheKey() throws IOException {
    assertUnknown(VerbsConfig.load(props("verbs.provder", "ib"), Map.of(), dir), "verbs.provder");
    assertUnknown(VerbsConfig.load(new Properties(), Map.of("VERBS_FABRC", "local"), dir), "VERBS_FABRC");
    assertUnknown(VerbsConfig.load(new Properties(), Map.of(), dir).with("verbs.nosuch", "1"), "verbs.nosuch");
    file("verbs.tyme=wall");
    assertUnknown(VerbsConfig.load(new Properties(), Map.of(), dir), "verbs.tyme");
  }

  @Test
  void nonVerbsSettingsAreIgnored() {
    VerbsConfig c = VerbsConfig.load(props("java.home", "/x", "verbsfoo", "1"), Map.of("HOME", "/root", "VERBSX", "1"),
        dir);
    assertDoesNotThrow(() -> c.validate(VerbsConfig.CORE_KEYS));
  }

  private static void assertBadValue(VerbsConfig c, String key, String value) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.validate(VerbsConfig.CORE_KEYS));
    assertTrue(e.getMessage().contains(key) && e.getMessage().contains(value),
        "message must name " + key + " and " + value + ": " + e.getMessage());
  }

  @Test
  void badValuesAreErrorsNamingKeyAndValue() {
    VerbsConfig base = VerbsConfig.load(new Properties(), Map.of(), dir);
    assertBadValue(base.with("verbs.provider", "mlx5"), "verbs.provider", "mlx5");
    assertBadValue(base.with("verbs.fabric", "tcp"), "verbs.fabric", "tcp");
    assertBadValue(base.with("verbs.time", "fast"), "verbs.time", "fast");
    assertBadValue(base.with("verbs.rank", "one"), "verbs.rank", "one");
    assertBadValue(base.with("verbs.rank", "70000"), "verbs.rank", "70000");
    assertBadValue(base.with("verbs.size", "-2"), "verbs.size", "-2");
    assertBadValue(VerbsConfig.load(new Properties(), Map.of("VERBS_TIME", "never"), dir), "verbs.time", "never");
  }

  @Test
  void badValueMessageSaysWhereItWasSet() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> VerbsConfig.load(new Properties(), Map.of("VERBS_FABRIC", "ib"), dir).validate(VerbsConfig.CORE_KEYS));
    assertTrue(e.getMessage().contains("VERBS_FABRIC"), e.getMessage());
  }

  @Test
  void typedGettersNameTheKeyOnBadValues() {
    VerbsConfig c = VerbsConfig.of(Map.of("verbs.rank", "x"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.getLong(VerbsConfig.RANK));
    assertTrue(e.getMessage().contains("verbs.rank=x"), e.getMessage());
  }

  @Test
  void toStringListsEveryCoreKeyWithValueAndSource() {
    VerbsConfig c = VerbsConfig.load(props("verbs.provider", "tca"), Map.of(), dir);
    String s = c.toString();
    for (ConfigKey k : VerbsConfig.CORE_KEYS) {
      assertTrue(s.contains(k.name() + "=" + c.get(k)), "toString lacks " + k.name() + ": " + s);
    }
    assertTrue(s.contains("verbs.provider=tca (system property)"), s);
  }

  @Test
  void toStringAlsoListsProviderKeysThatWereSet() {
    VerbsConfig c = VerbsConfig.of(Map.of("verbs.ib.mtu", "2048"));
    assertTrue(c.toString().contains("verbs.ib.mtu=2048"), c.toString());
  }

  @Test
  void providerKeysAreAcceptedWhenKnown() {
    ConfigKey extra = ConfigKey.longRange("verbs.test.depth", 4, "a test key", 1, 8);
    List<ConfigKey> known = new ArrayList<>(VerbsConfig.CORE_KEYS);
    known.add(extra);
    VerbsConfig ok = VerbsConfig.load(new Properties(), Map.of("VERBS_TEST_DEPTH", "8"), dir);
    assertDoesNotThrow(() -> ok.validate(known));
    assertEquals(8, ok.getInt(extra));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> VerbsConfig.load(new Properties(), Map.of("VERBS_TEST_DEPTH", "9"), dir).validate(known));
    assertTrue(e.getMessage().contains("verbs.test.depth") && e.getMessage().contains("9"), e.getMessage());
  }

  @Test
  void envNamesAreUpperCaseWithUnderscores() {
    assertEquals("VERBS_LINK_LATENCY_NS", ConfigKey.envName("verbs.link.latency-ns"));
    assertEquals("VERBS_PROVIDER", VerbsConfig.PROVIDER.envName());
  }

  @Test
  void keysMustStartWithVerbsPrefix() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ConfigKey.string("provider", "", "no prefix"));
    assertTrue(e.getMessage().contains("provider"), e.getMessage());
  }
}
