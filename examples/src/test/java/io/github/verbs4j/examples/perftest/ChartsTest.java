package io.github.verbs4j.examples.perftest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChartsTest {
  private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

  @TempDir
  Path dir;

  static List<ResultRow> latencyRows(String label, double base) {
    List<ResultRow> rows = new ArrayList<>();
    for (long size = 2; size <= 65536; size <<= 2) {
      double t = base + size / 1000.0;
      rows.add(new ResultRow("send_lat", label, label, "netty", "wall",
          new LatencyStats(size, 1000, t * 0.9, t * 3, t, t * 1.1, 0.5, t * 2, t * 3), null));
    }
    return rows;
  }

  static List<ResultRow> bandwidthRows(String label) {
    List<ResultRow> rows = new ArrayList<>();
    for (long size = 2; size <= 65536; size <<= 2) {
      rows.add(new ResultRow("write_bw", label, label, "netty", "wall", null,
          new BandwidthStats(size, 5000, size / 10.0 + 1, size / 12.0 + 1, 0.1, false)));
    }
    return rows;
  }

  @Test
  void latencyChartIsAValidNonEmptyPng() throws Exception {
    List<ResultRow> rows = new ArrayList<>(latencyRows("ib", 10));
    rows.addAll(latencyRows("tca", 20));
    Path png = dir.resolve("lat.png");
    Charts.render(rows, png);
    byte[] bytes = Files.readAllBytes(png);
    assertTrue(bytes.length > 1000, "PNG has " + bytes.length + " bytes");
    assertArrayEquals(PNG_SIGNATURE, Arrays.copyOf(bytes, 8));
    BufferedImage img = ImageIO.read(png.toFile());
    assertNotNull(img);
    assertEquals(Charts.WIDTH, img.getWidth());
    assertEquals(Charts.HEIGHT, img.getHeight());
    assertTrue(distinctColours(img) > 8, "the chart has lines, text and a legend, not a blank image");
  }

  @Test
  void aLogAxisInsideOneDecadeIsWidenedToWholeDecadesSoItHasLabelledTicks() {
    // t_typical from 60 to 93 us: inside one decade, where XChart would label no tick.
    var chart = Charts.latencyChart(latencyRows("ib", 60)).orElseThrow();
    assertEquals(10.0, chart.getStyler().getYAxisMin());
    assertEquals(100.0, chart.getStyler().getYAxisMax());
  }

  @Test
  void latencyAndBandwidthRowsGiveTwoPanels() throws Exception {
    List<ResultRow> rows = new ArrayList<>(latencyRows("ib", 10));
    rows.addAll(bandwidthRows("ib"));
    Path png = dir.resolve("sub/both.png");
    Charts.render(rows, png);
    BufferedImage img = ImageIO.read(png.toFile());
    assertEquals(2 * Charts.WIDTH, img.getWidth());
  }

  @Test
  void rowsWithoutPositiveValuesCannotBePlotted() {
    List<ResultRow> rows = List.of(new ResultRow("write_bw", "ib", "ib", "netty", "wall", null,
        new BandwidthStats(2, 10, 0, 0, 0, false)));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Charts.render(rows, dir.resolve("x.png")));
    assertTrue(e.getMessage().startsWith("nothing to plot into"), e.getMessage());
  }

  private static int distinctColours(BufferedImage img) {
    java.util.Set<Integer> colours = new java.util.HashSet<>();
    for (int y = 0; y < img.getHeight(); y += 3) {
      for (int x = 0; x < img.getWidth(); x += 3) {
        colours.add(img.getRGB(x, y));
      }
    }
    return colours.size();
  }
}
