package io.github.verbs4j.examples.memmodel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.Main;
import java.awt.image.BufferedImage;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class MemoryModelCommandTest {
  private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

  @TempDir
  Path dir;

  private record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    CommandLine cl = Main.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void printsTable1AndWritesTheChart() throws Exception {
    Path png = dir.resolve("mm.png");
    Run r = run("memory-model", "--nodes", "1048576", "--ppn", "4", "--comms", "10", "--gamma", "1024",
        "--chart", png.toString());
    assertEquals(0, r.code(), r.err());
    String total = r.out().lines().filter(l -> l.startsWith("total")).toList().toString();
    assertTrue(total.contains("1.74 TB    1.74 TB   0.998"), total);
    assertTrue(total.contains("1.07 GB    1.07 GB   1.004"), total);
    // every row of Table 1, before and after, within 5 % of the paper's (erratum) value; the one exception is
    // the communicators' "before" cell, printed in GiB ([1]): 3.32 GiB is the model's 3.57 GB
    String table = r.out().substring(0, r.out().indexOf("Components by strategy"));
    java.util.regex.Matcher row = java.util.regex.Pattern.compile("(?m)^(\\S.{40}).*\\s([0-9]\\.[0-9]{3})$")
        .matcher(table);
    int rows = 0;
    while (row.find()) {
      rows++;
      double ratio = Double.parseDouble(row.group(2));
      if (row.group(1).startsWith("communicator") && ratio > 1.05) {
        assertEquals(1.076, ratio, 0.001, row.group());
      } else {
        assertEquals(1.0, ratio, 0.05, row.group());
      }
    }
    assertEquals(17, rows, table); // 9 rows a column, less "switching" before (0 B, no ratio)
    assertTrue(r.out().contains("low-level communication contexts             24·n"), r.out());
    assertTrue(r.out().contains("[1] eq. (1) gives"), r.out());
    byte[] bytes = Files.readAllBytes(png);
    assertArrayEquals(PNG_SIGNATURE, Arrays.copyOf(bytes, 8));
    BufferedImage img = ImageIO.read(png.toFile());
    assertEquals(ScalingChart.WIDTH, img.getWidth());
    assertEquals(ScalingChart.HEIGHT, img.getHeight());
  }

  @Test
  void otherScalesOmitThePapersValuesAndListPrimitives() {
    Run r = run("memory-model", "--nodes", "4096", "--ppn", "2", "--chart", dir.resolve("x.png").toString(),
        "--primitives");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("not shown here"), r.out());
    assertFalse(r.out().contains("[1]"), r.out());
    assertTrue(r.out().contains("PAGE_SLACK"), r.out());
    assertTrue(r.out().contains("assumption"), r.out());
  }

  @Test
  void badArgumentsExitTwoNamingTheOption() {
    Run r = run("memory-model", "--ppn", "0", "--chart", dir.resolve("x.png").toString());
    assertEquals(2, r.code());
    assertTrue(r.err().contains("--ppn=0 is outside 1 … 256"), r.err());
    Run notPng = run("memory-model", "--chart", dir.resolve("x.svg").toString());
    assertEquals(2, notPng.code());
    assertTrue(notPng.err().contains("must name a .png file"), notPng.err());
  }

  @Test
  void nodeCountsArePowersOfTwoFrom16To2e20() {
    List<Long> counts = MemoryModelCommand.nodeCounts(1000);
    assertEquals(17, counts.size());
    assertEquals(16L, counts.get(0));
    assertEquals(1L << 20, counts.get(16));
    assertEquals(1L << 22, MemoryModelCommand.nodeCounts(1L << 22).get(18));
  }

  @Test
  void unitsArePaperStyle() {
    assertEquals("1.12 TB", Units.format(1.1223e12));
    assertEquals("523 GB", Units.format(522.8e9));
    assertEquals("34.5 MB", Units.format(34_516_960));
    assertEquals("216 KB", Units.format(215_544));
    assertEquals("1.00 MB", Units.format(999_600));
    assertEquals("0 B", Units.format(0));
  }
}
