package io.github.verbs4j.examples.common;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Parses durations for command-line options: {@code 500ms}, {@code 30s}, {@code 10m}, {@code 1h},
 * a bare number of seconds, or ISO-8601 ({@code PT1M30S}).
 */
public final class DurationConverter implements ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  /**
   * @param text the duration text
   * @return the duration
   * @throws TypeConversionException naming the text when it is not a positive duration
   */
  public static Duration parse(String text) {
    String s = text.trim().toLowerCase(Locale.ROOT);
    Duration d;
    try {
      if (s.startsWith("pt") || s.startsWith("p")) {
        d = Duration.parse(text.trim().toUpperCase(Locale.ROOT));
      } else if (s.endsWith("ms")) {
        d = Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
      } else if (s.endsWith("s")) {
        d = Duration.ofMillis(Math.round(Double.parseDouble(s.substring(0, s.length() - 1)) * 1000));
      } else if (s.endsWith("m")) {
        d = Duration.ofSeconds(Math.round(Double.parseDouble(s.substring(0, s.length() - 1)) * 60));
      } else if (s.endsWith("h")) {
        d = Duration.ofSeconds(Math.round(Double.parseDouble(s.substring(0, s.length() - 1)) * 3600));
      } else {
        d = Duration.ofMillis(Math.round(Double.parseDouble(s) * 1000));
      }
    } catch (NumberFormatException | DateTimeParseException e) {
      throw new TypeConversionException("'" + text + "' is not a duration (e.g. 500ms, 30s, 10m, 1h)");
    }
    if (d.isNegative() || d.isZero()) {
      throw new TypeConversionException("'" + text + "' is not a positive duration");
    }
    return d;
  }
}
