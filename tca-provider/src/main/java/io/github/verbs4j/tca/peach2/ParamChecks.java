package io.github.verbs4j.tca.peach2;

/** The range checks the board's parameter records share; each names the parameter and its value. */
final class ParamChecks {
  private ParamChecks() {}

  static long positive(String name, long v) {
    if (v <= 0) {
      throw new IllegalArgumentException(name + "=" + v + " must be positive");
    }
    return v;
  }

  static long nonNegative(String name, long v) {
    if (v < 0) {
      throw new IllegalArgumentException(name + "=" + v + " must not be negative");
    }
    return v;
  }

  static double fraction(String name, double v) {
    if (!(v > 0 && v <= 1)) {
      throw new IllegalArgumentException(name + "=" + v + " must be in (0, 1]");
    }
    return v;
  }
}
