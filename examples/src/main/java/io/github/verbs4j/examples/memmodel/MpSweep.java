package io.github.verbs4j.examples.memmodel;

import io.github.verbs4j.examples.mp.MpConfig;
import java.awt.Color;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * {@code verbs4j mp-memory --sweep}: per-rank bytes of the message-passing layer measured at each
 * job size for each connection strategy, next to {@link io.github.verbs4j.examples.mp.MpFootprint}'s
 * prediction, with the growth exponent fitted from the measured points, as a table and a log-log
 * chart (measured points as markers, the model as lines).
 */
final class MpSweep {
  /** The strategies a sweep can run. */
  enum Kind {
    /** An RC QP and a ring per peer, at start. */
    BASELINE,
    /** Links on demand, at most γ. */
    ON_DEMAND,
    /** On demand with the receive halves of the rings replaced by one shared pool. */
    ON_DEMAND_SHARED,
    /** Two DCIs and a DCT, shared receive and send pools. */
    DC,
    /** DC, and heavy sources moved to RC links with their own rings, at most the cap. */
    HYBRID,
    /** The hybrid with a node's ranks sharing its rings and RC cap (seed 003's reduced design). */
    SHARED;

    /**
     * @param base the common settings (γ, pool size)
     * @return the settings of this strategy
     */
    MpConfig config(MpConfig base, int pool) {
      return switch (this) {
        case BASELINE -> base.withStrategy(MpConfig.Strategy.BASELINE).withSharedReceive(0);
        case ON_DEMAND -> base.withStrategy(MpConfig.Strategy.ON_DEMAND).withSharedReceive(0);
        case ON_DEMAND_SHARED -> base.withStrategy(MpConfig.Strategy.ON_DEMAND).withSharedReceive(pool);
        case DC -> base.withStrategy(MpConfig.Strategy.DC).withSharedReceive(pool);
        case HYBRID -> base.withStrategy(MpConfig.Strategy.HYBRID).withSharedReceive(pool);
        case SHARED -> base.withStrategy(MpConfig.Strategy.SHARED).withSharedReceive(pool);
      };
    }

    String label(MpConfig c) {
      return switch (this) {
        case BASELINE -> "baseline";
        case ON_DEMAND -> "on demand, gamma " + c.gamma();
        case ON_DEMAND_SHARED -> "on demand, gamma " + c.gamma() + ", " + c.sharedReceive() + " shared recv";
        case DC -> "dc, " + c.sharedReceive() + " shared recv, shared send pool"
            + (c.dcInitiators() != MpConfig.DEFAULT_DC_INITIATORS ? ", " + c.dcInitiators() + " DCIs" : "");
        case HYBRID -> "hybrid, RC at " + c.hybrid().threshold() + " msgs, cap " + c.hybrid().rcLinks();
        case SHARED -> "shared, " + c.hybrid().ppn() + " per node, RC at " + c.hybrid().threshold() + " msgs, node cap "
            + c.hybrid().rcLinks();
      };
    }
  }

  /**
   * One run.
   *
   * @param kind the strategy
   * @param label its legend
   * @param ranks n
   * @param measured mean measured bytes per rank
   * @param predicted the model's bytes per rank
   * @param atLinks the model's bytes per rank at the links each rank held when measured (mean)
   * @param links mean links held per rank when measured
   * @param workloadNanos the slowest rank's workload time
   * @param wallNanos the whole run, start to close
   */
  record Point(Kind kind, String label, int ranks, long measured, long predicted, long atLinks, double links, long workloadNanos,
      long wallNanos) {}

  private static final Color[] COLORS = {new Color(0xd62728), new Color(0x1f77b4), new Color(0x2ca02c),
      new Color(0x9467bd), new Color(0xff7f0e)};

  private MpSweep() {}

  /**
   * The least-squares slope of ln(bytes) against ln(n).
   *
   * @param n job sizes (at least two distinct)
   * @param bytes bytes per rank at each
   * @return the exponent: 1 = linear in n, 0 = flat
   */
  static double fitExponent(List<Integer> n, List<Long> bytes) {
    int k = n.size();
    double sx = 0;
    double sy = 0;
    for (int i = 0; i < k; i++) {
      sx += Math.log(n.get(i));
      sy += Math.log(bytes.get(i));
    }
    double mx = sx / k;
    double my = sy / k;
    double sxy = 0;
    double sxx = 0;
    for (int i = 0; i < k; i++) {
      double dx = Math.log(n.get(i)) - mx;
      sxy += dx * (Math.log(bytes.get(i)) - my);
      sxx += dx * dx;
    }
    return sxx == 0 ? Double.NaN : sxy / sxx;
  }

  private static List<Point> of(List<Point> points, Kind k) {
    List<Point> out = new ArrayList<>();
    for (Point p : points) {
      if (p.kind() == k) {
        out.add(p);
      }
    }
    return out;
  }

  /** @return the exponent fitted from the measured (or predicted) points of one strategy */
  static double exponent(List<Point> series, boolean measured) {
    List<Integer> n = new ArrayList<>();
    List<Long> b = new ArrayList<>();
    for (Point p : series) {
      n.add(p.ranks());
      b.add(measured ? p.measured() : p.predicted());
    }
    return fitExponent(n, b);
  }

  /** @return the exponent between the two largest job sizes of one strategy (measured) */
  static double topExponent(List<Point> series) {
    return exponent(series.subList(series.size() - 2, series.size()), true);
  }

  /** Prints the table: a row per run, then the exponents per strategy. */
  static void print(PrintWriter out, List<Point> points) {
    out.printf(Locale.ROOT, "%-54s %6s %14s %14s %7s %8s %7s %12s %10s%n", "strategy", "ranks", "measured/rank",
        "predicted", "ratio", "links", "ratio@", "workload ms", "wall ms");
    for (Point p : points) {
      out.printf(Locale.ROOT, "%-54s %6d %,14d %,14d %7.3f %8.1f %7.3f %12.1f %10.0f%n", p.label(), p.ranks(),
          p.measured(), p.predicted(), (double) p.measured() / p.predicted(), p.links(),
          (double) p.measured() / p.atLinks(), p.workloadNanos() / 1e6, p.wallNanos() / 1e6);
    }
    out.println();
    out.printf(Locale.ROOT, "%-54s %16s %16s %16s%n", "growth exponent in n (least squares of ln bytes on ln n)",
        "measured, all n", "measured, top 2", "model, all n");
    for (Kind k : Kind.values()) {
      List<Point> s = of(points, k);
      if (s.size() >= 2) {
        out.printf(Locale.ROOT, "%-54s %16.2f %16.2f %16.2f%n", s.get(0).label(), exponent(s, true), topExponent(s),
            exponent(s, false));
      }
    }
    out.println("(ratio: measured / predicted at the strategy's link count (every other rank, min(peers, gamma) on "
        + "demand, min(peers, cap) RC links and rings for the other peers for the hybrid); links: RC links for the hybrid; ratio@: at the links each "
        + "rank held when measured; exponent 1 = linear in n, 0 = flat; 'top 2': between the two largest n)");
    out.flush();
  }

  static XYChart chart(List<Point> points, String title) {
    XYChart chart = ScalingChart.logLog(title, "ranks (n)", "bytes per rank");
    XYStyler styler = chart.getStyler();
    double lo = Double.MAX_VALUE;
    double hi = 0;
    for (Kind k : Kind.values()) {
      List<Point> s = of(points, k);
      if (s.isEmpty()) {
        continue;
      }
      double[] x = new double[s.size()];
      double[] measured = new double[x.length];
      double[] model = new double[x.length];
      for (int i = 0; i < x.length; i++) {
        x[i] = s.get(i).ranks();
        measured[i] = s.get(i).measured();
        model[i] = s.get(i).predicted();
        lo = Math.min(lo, Math.min(measured[i], model[i]));
        hi = Math.max(hi, Math.max(measured[i], model[i]));
      }
      Color c = COLORS[k.ordinal() % COLORS.length];
      String exp = s.size() >= 2 ? String.format(Locale.ROOT, ", exponent %.2f", exponent(s, true)) : "";
      XYSeries m = chart.addSeries(s.get(0).label() + ": measured" + exp, x, measured);
      m.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
      m.setMarker(SeriesMarkers.CIRCLE);
      m.setMarkerColor(c);
      XYSeries p = chart.addSeries(s.get(0).label() + ": model", x, model);
      p.setMarker(SeriesMarkers.NONE);
      p.setLineColor(c);
      p.setLineStyle(SeriesLines.DASH_DASH);
    }
    // XChart labels a log axis at powers of ten only: use whole decades.
    styler.setYAxisMin(Math.pow(10, Math.floor(Math.log10(lo))));
    styler.setYAxisMax(Math.pow(10, Math.ceil(Math.log10(hi * 1.0001))));
    return chart;
  }

  /**
   * Writes the chart.
   *
   * @throws UncheckedIOException if it cannot be written
   */
  static void render(List<Point> points, String title, Path png) {
    ScalingChart.writePng(chart(points, title), png);
  }
}
