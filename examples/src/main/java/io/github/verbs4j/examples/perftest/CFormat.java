package io.github.verbs4j.examples.perftest;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * The few C {@code printf} conversions perftest's report uses, with C's results where Java's
 * {@link java.util.Formatter} differs: {@code %.Nf} rounds the exact binary value half-to-even
 * (glibc) rather than half-up, prints {@code inf}/{@code nan}, and {@code %#0Wx} prints zero
 * without the {@code 0x} prefix.
 */
final class CFormat {
  private CFormat() {}

  /**
   * {@code %-W.Pf} (left-justified when {@code width} is negative, right-justified otherwise).
   *
   * @param value the number
   * @param width field width, negative for {@code -}
   * @param precision digits after the point
   * @return the text
   */
  static String fixed(double value, int width, int precision) {
    String s;
    if (Double.isNaN(value)) {
      s = "nan";
    } else if (Double.isInfinite(value)) {
      s = value > 0 ? "inf" : "-inf";
    } else {
      s = new BigDecimal(value).setScale(precision, RoundingMode.HALF_EVEN).toPlainString();
      if ((value < 0 || Double.doubleToRawLongBits(value) == Long.MIN_VALUE) && !s.startsWith("-")) {
        s = "-" + s; // C keeps the sign of a value that rounds to zero ("-0.00"); BigDecimal has no -0
      }
    }
    return pad(s, width);
  }

  /**
   * {@code %-Wd} / {@code %Wd} for an unsigned value.
   *
   * @param value the number
   * @param width field width, negative for {@code -}
   * @return the text
   */
  static String integer(long value, int width) {
    return pad(Long.toString(value), width);
  }

  /**
   * {@code %#0Wx}: {@code 0x} and zero-padded hex digits filling {@code width} characters; zero is
   * printed as zero-padded {@code 0} without a prefix, as C does.
   *
   * @param value the number (printed as unsigned)
   * @param width the field width including {@code 0x}
   * @return the text
   */
  static String altHex(long value, int width) {
    if (value == 0) {
      return "0".repeat(Math.max(1, width));
    }
    String digits = Long.toHexString(value);
    int zeros = Math.max(0, width - 2 - digits.length());
    return "0x" + "0".repeat(zeros) + digits;
  }

  private static String pad(String s, int width) {
    int w = Math.abs(width);
    if (s.length() >= w) {
      return s;
    }
    String fill = " ".repeat(w - s.length());
    return width < 0 ? s + fill : fill + s;
  }
}
