package io.github.verbs4j.examples.perftest;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The CSV file of {@code --csv}: one line per measured size, appended, so several runs (providers,
 * clocks, programs) collect into one file that {@code --plot} and {@code verbs4j plot} draw as
 * series. Times are µs, bandwidth in the unit named by {@code bw_unit}.
 *
 * <pre>
 * program,label,provider,fabric,clock,bytes,iterations,t_min_us,t_max_us,t_typical_us,t_avg_us,t_stdev_us,p99_us,p99_9_us,bw_peak,bw_average,bw_unit,msg_rate_mpps
 * send_lat,ib,ib,netty,wall,2,1000,10.10,31.00,11.20,11.40,1.00,14.00,31.00,,,,
 * write_bw,ib,ib,netty,wall,65536,5000,,,,,,,,2150.10,2101.00,MiB/s,0.033616
 * </pre>
 */
public final class ResultCsv {
  /** The header line. */
  public static final String HEADER = "program,label,provider,fabric,clock,bytes,iterations,t_min_us,t_max_us,"
      + "t_typical_us,t_avg_us,t_stdev_us,p99_us,p99_9_us,bw_peak,bw_average,bw_unit,msg_rate_mpps";
  private static final int COLUMNS = HEADER.split(",").length;

  private ResultCsv() {}

  /**
   * Appends rows, writing the header first if the file is new or empty.
   *
   * @param file the CSV file
   * @param rows the rows
   * @throws UncheckedIOException if it cannot be written
   * @throws IllegalArgumentException if the file exists with another header
   */
  public static void append(Path file, List<ResultRow> rows) {
    try {
      boolean fresh = !Files.exists(file) || Files.size(file) == 0;
      if (!fresh) {
        String first = Files.newBufferedReader(file, StandardCharsets.UTF_8).readLine();
        if (!HEADER.equals(first)) {
          throw new IllegalArgumentException("--csv " + file + " exists but is not a verbs4j results file (header '"
              + first + "')");
        }
      }
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
          StandardOpenOption.APPEND)) {
        if (fresh) {
          w.write(HEADER);
          w.write('\n');
        }
        for (ResultRow r : rows) {
          w.write(format(r));
          w.write('\n');
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write --csv " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Reads every row of a results file.
   *
   * @param file the CSV file
   * @return the rows in file order
   * @throws IllegalArgumentException naming the file and line of a malformed row
   */
  public static List<ResultRow> read(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
    if (lines.isEmpty() || !HEADER.equals(lines.get(0))) {
      throw new IllegalArgumentException(file + " is not a verbs4j results file (expected header '" + HEADER + "')");
    }
    List<ResultRow> rows = new ArrayList<>();
    for (int i = 1; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.isBlank()) {
        continue;
      }
      try {
        rows.add(parse(line));
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(file + " line " + (i + 1) + ": " + e.getMessage(), e);
      }
    }
    return rows;
  }

  static String format(ResultRow r) {
    StringBuilder b = new StringBuilder();
    b.append(quote(r.program())).append(',').append(quote(r.label())).append(',').append(quote(r.provider()))
        .append(',').append(quote(r.fabric())).append(',').append(quote(r.clock())).append(',').append(r.bytes())
        .append(',').append(r.iterations()).append(',');
    LatencyStats l = r.latency();
    if (l != null) {
      b.append(num(l.tMin())).append(',').append(num(l.tMax())).append(',').append(num(l.tTypical())).append(',')
          .append(num(l.tAvg())).append(',').append(num(l.tStdev())).append(',').append(num(l.p99())).append(',')
          .append(num(l.p999())).append(",,,,");
    } else {
      BandwidthStats s = r.bandwidth();
      b.append(",,,,,,,").append(num(s.bwPeak())).append(',').append(num(s.bwAverage())).append(',')
          .append(s.gbits() ? "Gb/s" : "MiB/s").append(',').append(String.format(Locale.ROOT, "%.6f", s.msgRateMpps()));
    }
    return b.toString();
  }

  static ResultRow parse(String line) {
    List<String> f = split(line);
    if (f.size() != COLUMNS) {
      throw new IllegalArgumentException("has " + f.size() + " fields, expected " + COLUMNS);
    }
    long bytes = Long.parseLong(f.get(5));
    int iters = Integer.parseInt(f.get(6));
    LatencyStats lat = null;
    BandwidthStats bw = null;
    if (!f.get(7).isEmpty()) {
      lat = new LatencyStats(bytes, iters, d(f.get(7)), d(f.get(8)), d(f.get(9)), d(f.get(10)), d(f.get(11)),
          d(f.get(12)), d(f.get(13)));
    } else {
      bw = new BandwidthStats(bytes, iters, d(f.get(14)), d(f.get(15)), d(f.get(17)), "Gb/s".equals(f.get(16)));
    }
    return new ResultRow(f.get(0), f.get(1), f.get(2), f.get(3), f.get(4), lat, bw);
  }

  private static double d(String s) {
    return Double.parseDouble(s);
  }

  private static String num(double v) {
    return String.format(Locale.ROOT, "%.3f", v);
  }

  private static String quote(String s) {
    if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0) {
      return s;
    }
    return '"' + s.replace("\"", "\"\"") + '"';
  }

  private static List<String> split(String line) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
          cur.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          cur.append(c);
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        out.add(cur.toString());
        cur.setLength(0);
      } else {
        cur.append(c);
      }
    }
    out.add(cur.toString());
    return out;
  }
}
