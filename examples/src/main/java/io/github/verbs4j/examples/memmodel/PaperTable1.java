package io.github.verbs4j.examples.memmodel;

import java.util.List;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * Table 1 of seed 003 as printed (per node, 2^20 nodes, m = 4, c = 10, γ = 1,024; decimal units),
 * with the erratum applied where it gives a value, and the table's n-proportional terms as functions
 * of m and c. The notes say where a printed value and the paper's own equations disagree.
 */
public final class PaperTable1 {
  private PaperTable1() {}

  /** Where the paper's value and its equations part ways, or where the erratum changed a cell. */
  public enum Note {
    /** The communicator row's "before" value. */
    COMMUNICATORS_UNIT("eq. (1) gives 852·n + … = 3.57 GB; the printed 3.32 matches it in GiB (3.33 GiB), "
        + "the only row not in decimal units."),
    /** The buffer row's "after" value. */
    BUFFERS_ERRATUM("the erratum corrects this cell (printed 118 MB, eq. (11) before the erratum) and eq. (11), "
        + "but its new value is not legible in our copy; 148 MB is what the corrected total implies (1.07 GB - "
        + "1.00 GB - 40 MB of other + 118 MB); the corrected eq. (11) gives 151 MB."),
    /** The "other" row in both columns. */
    OTHER_ERRATUM("the erratum prints 53.3 MB (was 13.3 MB) but does not change eq. (7), which gives 13.3 MB; "
        + "the model takes the erratum's value (primitive OTHER_ERRATUM: the 40 MB it adds, held constant), "
        + "so this row is the paper's measurement, not a prediction.");

    private final String text;

    Note(String text) {
      this.text = text;
    }

    /**
     * @return the explanation
     */
    public String text() {
      return text;
    }
  }

  /**
   * One printed cell.
   *
   * @param bytes the value in bytes (decimal units, as printed)
   * @param printed the value as the paper prints it
   * @param note why the value differs from the paper's equations, if it does
   */
  public record Cell(double bytes, String printed, Optional<Note> note) {
    static Cell of(double bytes, String printed) {
      return new Cell(bytes, printed, Optional.empty());
    }

    static Cell of(double bytes, String printed, Note note) {
      return new Cell(bytes, printed, Optional.of(note));
    }
  }

  /**
   * One row of the table.
   *
   * @param component the component, or empty for the total
   * @param termBefore the baseline's n-proportional term as printed, or "-"
   * @param coefficientBefore that term's coefficient of n at a scale (bytes per node per process)
   * @param before the baseline value, if printed
   * @param termAfter the reduced n-proportional term as printed, or "-"
   * @param coefficientAfter that term's coefficient of n
   * @param after the reduced value, if printed
   */
  public record Row(Optional<Component> component, String termBefore, ToDoubleFunction<Scale> coefficientBefore,
      Optional<Cell> before, String termAfter, ToDoubleFunction<Scale> coefficientAfter, Optional<Cell> after) {
    /**
     * @return the row's name
     */
    public String label() {
      return component.map(Component::label).orElse("total");
    }
  }

  private static final ToDoubleFunction<Scale> NONE = s -> 0;

  /** The rows in the table's order, the total last. */
  public static final List<Row> ROWS = List.of(
      row(Component.BUFFERS, "66896·m·n", s -> 66896.0 * s.ppn(), Cell.of(1.12e12, "1.12 TB"),
          "-", NONE, Cell.of(148e6, "148 MB", Note.BUFFERS_ERRATUM)),
      row(Component.LOW_LEVEL_CONTEXTS, "31160·m·n", s -> 31160.0 * s.ppn(), Cell.of(523e9, "523 GB"),
          "24·n", s -> 24, Cell.of(106e6, "106 MB")),
      row(Component.HIGH_LEVEL_CONTEXTS, "948·m·n", s -> 948.0 * s.ppn(), Cell.of(15.9e9, "15.9 GB"),
          "8·n", s -> 8, Cell.of(34.5e6, "34.5 MB")),
      new Row(Optional.of(Component.SWITCHING), "-", NONE, Optional.empty(), "8·m·n", s -> 8.0 * s.ppn(),
          Optional.of(Cell.of(407e6, "407 MB"))),
      row(Component.COMMUNICATORS, "((16c+32)·m+8c+16/m)·n",
          s -> (16.0 * s.comms() + 32) * s.ppn() + 8.0 * s.comms() + 16.0 / s.ppn(),
          Cell.of(3.32e9, "3.32 GB", Note.COMMUNICATORS_UNIT), "(4c+8)·n", s -> 4.0 * s.comms() + 8,
          Cell.of(204e6, "204 MB")),
      row(Component.SHARED_MEMORY, "30·m·n", s -> 30.0 * s.ppn(), Cell.of(521e6, "521 MB"),
          "6·m·n", s -> 6.0 * s.ppn(), Cell.of(118e6, "118 MB")),
      row(Component.PROCESS_MANAGEMENT, "(2336/m+16352)·n", s -> 2336.0 / s.ppn() + 16352, Cell.of(71.0e9, "71.0 GB"),
          "-", NONE, Cell.of(216e3, "216 KB")),
      row(Component.OTHER, "-", NONE, Cell.of(53.3e6, "53.3 MB", Note.OTHER_ERRATUM),
          "-", NONE, Cell.of(53.3e6, "53.3 MB", Note.OTHER_ERRATUM)),
      new Row(Optional.empty(), "((16c+99066)·m+8c+2352/m+16352)·n",
          s -> (16.0 * s.comms() + 99066) * s.ppn() + 8.0 * s.comms() + 2352.0 / s.ppn() + 16352,
          Optional.of(Cell.of(1.74e12, "1.74 TB")), "(14m+4c+40)·n", s -> 14.0 * s.ppn() + 4.0 * s.comms() + 40,
          Optional.of(Cell.of(1.07e9, "1.07 GB"))));

  private static Row row(Component c, String termBefore, ToDoubleFunction<Scale> before, Cell b, String termAfter,
      ToDoubleFunction<Scale> after, Cell a) {
    return new Row(Optional.of(c), termBefore, before, Optional.of(b), termAfter, after, Optional.of(a));
  }

  /**
   * @param c a component
   * @return its row
   */
  public static Row row(Component c) {
    return ROWS.stream().filter(r -> r.component().equals(Optional.of(c))).findFirst().orElseThrow();
  }

  /**
   * @return the total row
   */
  public static Row total() {
    return ROWS.get(ROWS.size() - 1);
  }
}
