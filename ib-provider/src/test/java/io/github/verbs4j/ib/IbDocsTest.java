package io.github.verbs4j.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.config.ConfigKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** docs/ib-provider.md's configuration table lists exactly the verbs.ib.* keys, with their defaults. */
class IbDocsTest {
  @Test
  void configTableMatchesIbConfig() throws Exception {
    Path doc = Path.of("..", "docs", "ib-provider.md");
    assertTrue(Files.exists(doc), doc.toAbsolutePath().toString());
    Map<String, String> table = new LinkedHashMap<>();
    for (String line : Files.readAllLines(doc)) {
      if (line.startsWith("| `verbs.ib.")) {
        String[] cells = line.split("\\|");
        table.put(cells[1].trim().replace("`", ""), cells[2].trim().replace("`", ""));
      }
    }
    Map<String, String> expected = new LinkedHashMap<>();
    for (ConfigKey k : IbConfig.ibKeys()) {
      expected.put(k.name(), k.defaultValue());
    }
    assertEquals(expected, table);
  }
}
