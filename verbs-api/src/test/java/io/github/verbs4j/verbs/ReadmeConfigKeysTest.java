package io.github.verbs4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.config.ConfigKey;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The README's core configuration table (between {@code <!-- config-keys:core:begin -->} and
 * {@code <!-- config-keys:core:end -->}) equals {@link VerbsConfig#CORE_KEYS}: name, default and
 * description, in order. The README is the parent of this module's directory.
 */
class ReadmeConfigKeysTest {
  private static final String BEGIN = "<!-- config-keys:core:begin -->";
  private static final String END = "<!-- config-keys:core:end -->";

  private record Row(String name, String defaultValue, String description) {}

  private static Path readme() {
    Path p = Path.of("").toAbsolutePath().resolve("../README.md").normalize();
    assertTrue(Files.isRegularFile(p), "README.md not found at " + p + " (tests run from the module directory)");
    return p;
  }

  private static String unquote(String cell) {
    String c = cell.strip();
    if (c.length() >= 2 && c.startsWith("`") && c.endsWith("`")) {
      return c.substring(1, c.length() - 1);
    }
    return c;
  }

  private static List<Row> table() throws IOException {
    List<String> lines = Files.readAllLines(readme(), StandardCharsets.UTF_8);
    int begin = lines.indexOf(BEGIN);
    int end = lines.indexOf(END);
    assertTrue(begin >= 0 && end > begin, "README.md lacks the " + BEGIN + " ... " + END + " block");
    List<Row> rows = new ArrayList<>();
    for (String line : lines.subList(begin + 1, end)) {
      String t = line.strip();
      if (!t.startsWith("|") || t.startsWith("|---") || t.startsWith("| key ")) {
        continue;
      }
      String[] cells = t.substring(1, t.length() - 1).split("\\|", -1);
      assertEquals(3, cells.length, "README config row must have 3 cells: " + line);
      rows.add(new Row(unquote(cells[0]), unquote(cells[1]), cells[2].strip()));
    }
    return rows;
  }

  @Test
  void readmeCoreKeysTableEqualsCoreKeysInOrder() throws IOException {
    List<Row> expected = new ArrayList<>();
    for (ConfigKey k : VerbsConfig.CORE_KEYS) {
      expected.add(new Row(k.name(), k.defaultValue(), k.description()));
    }
    assertEquals(expected, table());
  }
}
