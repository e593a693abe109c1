package io.github.verbs4j.examples.memmodel;

import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The PNG of {@code verbs4j memory-model}: per-node memory against node count, both axes
 * logarithmic, one series per {@link Strategy} (its growth exponent over the top octave in the
 * legend), and Table 1's two totals as points. Rendering is headless.
 */
final class ScalingChart {
  /** Width in pixels. */
  static final int WIDTH = 1000;
  /** Height in pixels. */
  static final int HEIGHT = 700;

  private ScalingChart() {}

  /**
   * The local log-log slope of a strategy's per-node total between two node counts.
   *
   * @param scale m, c and γ
   * @param s the strategy
   * @param from the smaller node count
   * @param to the larger node count
   * @return d log(bytes) / d log(nodes)
   */
  static double growthExponent(Scale scale, Strategy s, long from, long to) {
    double a = MemoryModel.evaluate(scale.withNodes(from), s).total();
    double b = MemoryModel.evaluate(scale.withNodes(to), s).total();
    return Math.log(b / a) / Math.log((double) to / from);
  }

  /**
   * @return an empty log-log chart of bytes over a count, as both scaling charts draw it
   */
  static XYChart logLog(String title, String xAxis, String yAxis) {
    XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xAxis).yAxisTitle(yAxis)
        .build();
    XYStyler styler = chart.getStyler();
    styler.setXAxisLogarithmic(true);
    styler.setYAxisLogarithmic(true);
    styler.setXAxisDecimalPattern("#,###");
    styler.setYAxisTickLabelsFormattingFunction(Units::format);
    styler.setLegendPosition(Styler.LegendPosition.InsideNW);
    return chart;
  }

  static XYChart chart(Scale scale, List<Long> nodeCounts) {
    XYChart chart = logLog(String.format(Locale.ROOT, "Communication memory per node (m = %d, c = %d, gamma = %d)",
        scale.ppn(), scale.comms(), scale.gamma()), "nodes", "bytes per node");
    XYStyler styler = chart.getStyler();
    long top = nodeCounts.get(nodeCounts.size() - 1);
    long below = nodeCounts.get(nodeCounts.size() - 2);
    double lo = Double.MAX_VALUE;
    double hi = 0;
    for (Strategy s : Strategy.values()) {
      double[] x = new double[nodeCounts.size()];
      double[] y = new double[x.length];
      for (int i = 0; i < x.length; i++) {
        x[i] = nodeCounts.get(i);
        y[i] = MemoryModel.evaluate(scale.withNodes(nodeCounts.get(i)), s).total();
        lo = Math.min(lo, y[i]);
        hi = Math.max(hi, y[i]);
      }
      String name = String.format(Locale.ROOT, "(%d) %s, exponent %.2f", s.ordinal() + 1, s.label(),
          growthExponent(scale, s, below, top));
      XYSeries series = chart.addSeries(name, x, y);
      series.setMarker(SeriesMarkers.CIRCLE);
    }
    if (scale.withNodes(Scale.PAPER.nodes()).equals(Scale.PAPER) && nodeCounts.contains(Scale.PAPER.nodes())) {
      double[] x = {Scale.PAPER.nodes(), Scale.PAPER.nodes()};
      double[] y = {PaperTable1.total().before().orElseThrow().bytes(), PaperTable1.total().after().orElseThrow().bytes()};
      XYSeries paper = chart.addSeries("paper Table 1 totals (1.74 TB, 1.07 GB)", x, y);
      paper.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
      paper.setMarker(SeriesMarkers.DIAMOND);
      paper.setMarkerColor(Color.BLACK);
    }
    // XChart labels a log axis at powers of ten only: use whole decades.
    styler.setYAxisMin(Math.pow(10, Math.floor(Math.log10(lo))));
    styler.setYAxisMax(Math.pow(10, Math.ceil(Math.log10(hi * 1.0001))));
    return chart;
  }

  /**
   * Writes the chart to {@code png}.
   *
   * @param scale m, c and γ (its node count is ignored)
   * @param nodeCounts the node counts, ascending, at least two
   * @param png the file to write
   * @throws UncheckedIOException if it cannot be written
   */
  static void render(Scale scale, List<Long> nodeCounts, Path png) {
    writePng(chart(scale, nodeCounts), png);
  }

  /**
   * Writes a chart as a PNG, creating the file's directory.
   *
   * @param chart the chart
   * @param png the file ({@code --chart})
   * @throws UncheckedIOException naming {@code --chart} if it cannot be written
   */
  static void writePng(XYChart chart, Path png) {
    try {
      Path parent = png.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write --chart " + png + ": " + e.getMessage(), e);
    }
  }
}
