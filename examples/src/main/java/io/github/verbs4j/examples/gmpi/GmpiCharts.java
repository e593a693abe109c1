package io.github.verbs4j.examples.gmpi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** The PNG charts of the GMPI studies ({@code --plot}): modelled curves with the reference points. */
final class GmpiCharts {
  private static final int WIDTH = 800;
  private static final int HEIGHT = 600;

  /**
   * A line of the chart.
   *
   * @param name the legend
   * @param x x values
   * @param y y values
   * @param pointsOnly draw markers only (reference values)
   */
  record Series(String name, double[] x, double[] y, boolean pointsOnly) {}

  private GmpiCharts() {}

  static void render(String title, String xTitle, String yTitle, boolean logX, List<Series> series, Path png) {
    XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle)
        .build();
    chart.getStyler().setXAxisLogarithmic(logX);
    chart.getStyler().setLegendPosition(logX ? Styler.LegendPosition.InsideNE : Styler.LegendPosition.InsideNW);
    chart.getStyler().setXAxisDecimalPattern("#,###");
    for (Series s : series) {
      XYSeries xy = chart.addSeries(s.name(), s.x(), s.y());
      if (s.pointsOnly()) {
        xy.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
        xy.setMarker(SeriesMarkers.DIAMOND);
      } else {
        xy.setMarker(SeriesMarkers.CIRCLE);
      }
    }
    try {
      Path parent = png.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      BitmapEncoder.saveBitmap(chart, png.toString().replaceFirst("\\.png$", ""), BitmapEncoder.BitmapFormat.PNG);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write --plot " + png + ": " + e.getMessage(), e);
    }
  }
}
