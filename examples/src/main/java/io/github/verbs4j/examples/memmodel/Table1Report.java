package io.github.verbs4j.examples.memmodel;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The text the {@code memory-model} command prints: Table 1 before and after (paper | model | ratio
 * where the paper gives a value, which it does only at its own scale), the notes, per-node bytes of
 * every strategy against node count, and the primitive sizes on request.
 */
final class Table1Report {
  private static final String ROW = "%-44s %-34s %12s %12s %12s %10s %7s%n";

  private Table1Report() {}

  static void printTable(PrintWriter out, Scale scale) {
    boolean paperScale = scale.equals(Scale.PAPER);
    out.printf(Locale.ROOT, "Communication memory per node (seed 003, Table 1): %,d nodes x %d processes "
        + "(n = %,d), c = %d, gamma = %,d%n", scale.nodes(), scale.ppn(), scale.processes(), scale.comms(),
        scale.gamma());
    out.println("Decimal units (1 GB = 10^9 B) as in the paper. per n: bytes per node added per process in the job.");
    if (!paperScale) {
      out.println("The paper's values are for 1,048,576 nodes, m = 4, c = 10, gamma = 1,024: not shown here.");
    }
    List<PaperTable1.Note> notes = new ArrayList<>();
    section(out, scale, Strategy.BASELINE, true, notes);
    section(out, scale, Strategy.SHARED, false, notes);
    if (paperScale && !notes.isEmpty()) {
      out.println();
      for (PaperTable1.Note n : notes) {
        out.printf(Locale.ROOT, "[%d] %s%n", notes.indexOf(n) + 1, n.text());
      }
    }
  }

  private static void section(PrintWriter out, Scale scale, Strategy strategy, boolean before,
      List<PaperTable1.Note> notes) {
    boolean paperScale = scale.equals(Scale.PAPER);
    Breakdown model = MemoryModel.evaluate(scale, strategy);
    out.println();
    out.println(before ? "Before: baseline (an RC QP and a 16 x 4 KB eager ring per remote peer, created at start)"
        : "After: all techniques (strategy 'shared', the paper's reduced column)");
    out.printf(Locale.ROOT, ROW, "component", "n-term (paper)", "per n paper", "per n model", "paper", "model",
        "ratio");
    for (PaperTable1.Row row : PaperTable1.ROWS) {
      double value = row.component().map(c -> (double) model.of(c)).orElse((double) model.total());
      double slope = 0;
      for (Component c : Component.values()) {
        if (row.component().isEmpty() || row.component().get() == c) {
          slope += MemoryModel.perProcessSlope(scale, strategy, c);
        }
      }
      double paperSlope = (before ? row.coefficientBefore() : row.coefficientAfter()).applyAsDouble(scale);
      Optional<PaperTable1.Cell> cell = paperScale ? (before ? row.before() : row.after()) : Optional.empty();
      String paper = "";
      String ratio = "";
      if (cell.isPresent()) {
        paper = cell.get().printed();
        if (cell.get().note().isPresent()) {
          PaperTable1.Note note = cell.get().note().get();
          if (!notes.contains(note)) {
            notes.add(note);
          }
          paper += " [" + (notes.indexOf(note) + 1) + "]";
        }
        ratio = String.format(Locale.ROOT, "%.3f", value / cell.get().bytes());
      }
      out.printf(Locale.ROOT, ROW, row.label(), before ? row.termBefore() : row.termAfter(), perN(paperSlope),
          perN(slope), paper, Units.format(value), ratio);
    }
  }

  private static String perN(double slope) {
    return slope == Math.rint(slope) ? String.format(Locale.ROOT, "%,.0f", slope)
        : String.format(Locale.ROOT, "%,.2f", slope);
  }

  static void printStrategies(PrintWriter out, Scale scale) {
    out.println();
    out.printf(Locale.ROOT, "Components by strategy at %,d nodes%n", scale.nodes());
    StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-44s", "component"));
    for (Strategy s : Strategy.values()) {
      header.append(String.format(Locale.ROOT, " %10s", s.label()));
    }
    out.println(header);
    for (Component c : Component.values()) {
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-44s", c.label()));
      for (Strategy s : Strategy.values()) {
        line.append(String.format(Locale.ROOT, " %10s", Units.format(MemoryModel.evaluate(scale, s).of(c))));
      }
      out.println(line);
    }
    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-44s", "total"));
    for (Strategy s : Strategy.values()) {
      line.append(String.format(Locale.ROOT, " %10s", Units.format(MemoryModel.evaluate(scale, s).total())));
    }
    out.println(line);
  }

  static void printScaling(PrintWriter out, Scale scale, List<Long> nodeCounts) {
    out.println();
    out.printf(Locale.ROOT, "Per-node bytes by strategy (m = %d, c = %d, gamma = %,d)%n", scale.ppn(), scale.comms(),
        scale.gamma());
    StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%12s", "nodes"));
    for (Strategy s : Strategy.values()) {
      header.append(String.format(Locale.ROOT, " %10s", s.label()));
    }
    out.println(header);
    for (long nodes : nodeCounts) {
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%,12d", nodes));
      for (Strategy s : Strategy.values()) {
        line.append(String.format(Locale.ROOT, " %10s", Units.format(MemoryModel.evaluate(scale.withNodes(nodes), s)
            .total())));
      }
      out.println(line);
    }
    StringBuilder slope = new StringBuilder(String.format(Locale.ROOT, "%12s", "exponent"));
    long top = nodeCounts.get(nodeCounts.size() - 1);
    long below = nodeCounts.get(nodeCounts.size() - 2);
    for (Strategy s : Strategy.values()) {
      slope.append(String.format(Locale.ROOT, " %10.2f", ScalingChart.growthExponent(scale, s, below, top)));
    }
    out.println(slope);
    out.printf(Locale.ROOT, "(exponent: d log(bytes) / d log(nodes) between %,d and %,d nodes; 1 = linear, 0 = flat)%n",
        below, top);
  }

  static void printPrimitives(PrintWriter out) {
    out.println();
    out.println("Primitive sizes and counts (seed 003 unless marked 'assumption')");
    for (Primitive p : Primitive.values()) {
      out.printf(Locale.ROOT, "%-28s %,12d  %-44s %s%n", p.name(), p.value(), p.source(), p.meaning());
    }
  }
}
