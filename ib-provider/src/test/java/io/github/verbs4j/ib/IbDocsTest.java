package io.github.verbs4j.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.verbs4j.fabric.testing.DocTables;
import io.github.verbs4j.verbs.config.ConfigKey;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** docs/ib-provider.md's configuration table lists exactly the verbs.ib.* keys, with their defaults. */
class IbDocsTest {
  @Test
  void configTableMatchesIbConfig() {
    Map<String, String> expected = new LinkedHashMap<>();
    for (ConfigKey k : IbConfig.KEYS.own()) {
      expected.put(k.name(), k.defaultValue());
    }
    assertEquals(expected, DocTables.keyDefaults(Path.of("..", "docs", "ib-provider.md"), "verbs.ib."));
  }
}
