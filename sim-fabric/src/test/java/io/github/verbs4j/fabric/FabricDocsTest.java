package io.github.verbs4j.fabric;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** docs/fabric.md's configuration table lists exactly the keys FabricOptions accepts, with their defaults. */
class FabricDocsTest {
  @Test
  void configTableMatchesFabricOptions() throws Exception {
    Path doc = Path.of("..", "docs", "fabric.md");
    assertTrue(Files.exists(doc), doc.toAbsolutePath().toString());
    Map<String, String> table = new LinkedHashMap<>();
    for (String line : Files.readAllLines(doc)) {
      if (line.startsWith("| `verbs.")) {
        String[] cells = line.split("\\|");
        table.put(cells[1].trim().replace("`", ""), cells[2].trim().replace("`", ""));
      }
    }
    Map<String, String> expected = new LinkedHashMap<>();
    for (FabricOptions.Key k : FabricOptions.keys()) {
      expected.put(k.name(), k.defaultValue());
    }
    assertEquals(expected, table);
  }
}
