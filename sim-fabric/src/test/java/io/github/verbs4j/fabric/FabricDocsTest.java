package io.github.verbs4j.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.verbs4j.fabric.testing.DocTables;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** docs/fabric.md's configuration table lists exactly the keys FabricOptions accepts, with their defaults. */
class FabricDocsTest {
  @Test
  void configTableMatchesFabricOptions() {
    Map<String, String> expected = new LinkedHashMap<>();
    for (FabricOptions.Key k : FabricOptions.keys()) {
      expected.put(k.name(), k.defaultValue());
    }
    assertEquals(expected, DocTables.keyDefaults(Path.of("..", "docs", "fabric.md"), "verbs."));
  }
}
