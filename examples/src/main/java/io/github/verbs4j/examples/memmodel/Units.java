package io.github.verbs4j.examples.memmodel;

import java.util.Locale;

/** Byte counts in the paper's style: decimal units (1 KB = 1,000 B), three significant digits. */
final class Units {
  private static final String[] UNITS = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};

  private Units() {}

  /**
   * @param bytes a non-negative byte count
   * @return e.g. {@code 1.12 TB}, {@code 34.5 MB}, {@code 216 KB}, {@code 0 B}
   */
  static String format(double bytes) {
    if (bytes < 1000) {
      return String.format(Locale.ROOT, "%.0f B", bytes);
    }
    int unit = 0;
    double v = bytes;
    while (v >= 999.5 && unit < UNITS.length - 1) {
      v /= 1000;
      unit++;
    }
    String digits = v >= 99.95 ? "%.0f" : v >= 9.995 ? "%.1f" : "%.2f";
    return String.format(Locale.ROOT, digits + " %s", v, UNITS[unit]);
  }
}
