package io.github.verbs4j.examples.perftest;

import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Optional;
import java.util.TreeMap;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The PNG of {@code --plot} and {@code verbs4j plot}: message size against latency (t_typical, the
 * median) and against bandwidth (BW average), both axes logarithmic, one series per program, label
 * (provider or mode) and clock, like the latency and bandwidth figures of the TCA papers. When the
 * rows hold both kinds, the PNG has a latency panel and a bandwidth panel side by side. A later row
 * for the same series and size replaces an earlier one. Rendering is headless.
 */
public final class Charts {
  /** Width of one panel in pixels. */
  public static final int WIDTH = 800;
  /** Height of one panel in pixels. */
  public static final int HEIGHT = 600;

  private Charts() {}

  /**
   * Renders {@code rows} to {@code png}.
   *
   * @param rows results (latency rows, bandwidth rows or both)
   * @param png the file to write
   * @throws IllegalArgumentException if no row has a positive value to plot
   * @throws UncheckedIOException if the file cannot be written
   */
  public static void render(List<ResultRow> rows, Path png) {
    List<XYChart> panels = new ArrayList<>();
    List<ResultRow> lat = rows.stream().filter(ResultRow::isLatency).toList();
    List<ResultRow> bw = rows.stream().filter(r -> !r.isLatency()).toList();
    if (!lat.isEmpty()) {
      latencyChart(lat).ifPresent(panels::add);
    }
    if (!bw.isEmpty()) {
      bandwidthChart(bw).ifPresent(panels::add);
    }
    if (panels.isEmpty()) {
      throw new IllegalArgumentException("nothing to plot into " + png + ": no result has a positive value");
    }
    try {
      Path parent = png.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      BufferedImage image = new BufferedImage(WIDTH * panels.size(), HEIGHT, BufferedImage.TYPE_INT_RGB);
      Graphics2D g = image.createGraphics();
      try {
        for (int i = 0; i < panels.size(); i++) {
          g.drawImage(BitmapEncoder.getBufferedImage(panels.get(i)), i * WIDTH, 0, null);
        }
      } finally {
        g.dispose();
      }
      try (OutputStream out = Files.newOutputStream(png)) {
        if (!ImageIO.write(image, "png", out)) {
          throw new IOException("no PNG writer available");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write --plot " + png + ": " + e.getMessage(), e);
    }
  }

  static Optional<XYChart> latencyChart(List<ResultRow> rows) {
    return chart("Latency vs message size", "t_typical [usec]", rows, r -> r.latency().tTypical());
  }

  static Optional<XYChart> bandwidthChart(List<ResultRow> rows) {
    String unit = rows.get(0).bandwidth().gbits() ? "Gb/sec" : "MiB/sec";
    return chart("Bandwidth vs message size", "BW average [" + unit + "]", rows, r -> r.bandwidth().bwAverage());
  }

  private interface Value {
    double of(ResultRow r);
  }

  private static Optional<XYChart> chart(String title, String yTitle, List<ResultRow> rows, Value value) {
    Set<String> programs = new LinkedHashSet<>();
    for (ResultRow r : rows) {
      programs.add(r.program());
    }
    boolean namePrograms = programs.size() > 1;
    Map<String, TreeMap<Long, Double>> series = new LinkedHashMap<>();
    for (ResultRow r : rows) {
      double v = value.of(r);
      if (!(v > 0) || Double.isInfinite(v) || r.bytes() <= 0) {
        continue; // a log axis cannot show it
      }
      String name = (namePrograms ? r.program() + " " : "") + r.label();
      series.computeIfAbsent(name, k -> new TreeMap<>()).put(r.bytes(), v);
    }
    if (series.isEmpty()) {
      return Optional.empty();
    }
    XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle("message size [bytes]")
        .yAxisTitle(yTitle).build();
    chart.getStyler().setXAxisLogarithmic(true);
    chart.getStyler().setYAxisLogarithmic(true);
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
    chart.getStyler().setXAxisDecimalPattern("#,###");
    // XChart labels a log axis only at powers of ten: widen the axis to whole decades so that a
    // range inside one decade (latencies of 60-500 us, say) still gets labelled ticks.
    double lo = Double.MAX_VALUE;
    double hi = 0;
    for (TreeMap<Long, Double> points : series.values()) {
      for (double v : points.values()) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    }
    chart.getStyler().setYAxisMin(Math.pow(10, Math.floor(Math.log10(lo))));
    chart.getStyler().setYAxisMax(Math.pow(10, Math.ceil(Math.log10(hi * 1.0001))));
    for (Map.Entry<String, TreeMap<Long, Double>> e : series.entrySet()) {
      double[] x = new double[e.getValue().size()];
      double[] y = new double[x.length];
      int i = 0;
      for (Map.Entry<Long, Double> p : e.getValue().entrySet()) {
        x[i] = p.getKey();
        y[i] = p.getValue();
        i++;
      }
      XYSeries s = chart.addSeries(e.getKey(), x, y);
      s.setMarker(SeriesMarkers.CIRCLE);
    }
    return Optional.of(chart);
  }
}
