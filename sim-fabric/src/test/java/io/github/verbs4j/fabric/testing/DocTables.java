package io.github.verbs4j.fabric.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Reads the configuration tables of the Markdown docs, for tests that keep them true. */
public final class DocTables {
  private DocTables() {}

  /**
   * The rows of a Markdown table whose first cell is a code span starting with {@code prefix}.
   *
   * @param doc the Markdown file
   * @param prefix e.g. {@code verbs.ib.}
   * @return key (first cell, without backticks) to default (second cell, without backticks), in
   *     document order
   * @throws UncheckedIOException if the file cannot be read (a missing doc fails the test)
   */
  public static Map<String, String> keyDefaults(Path doc, String prefix) {
    Map<String, String> table = new LinkedHashMap<>();
    try {
      for (String line : Files.readAllLines(doc)) {
        if (line.startsWith("| `" + prefix)) {
          String[] cells = line.split("\\|");
          table.put(cells[1].trim().replace("`", ""), cells[2].trim().replace("`", ""));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + doc.toAbsolutePath(), e);
    }
    return table;
  }
}
