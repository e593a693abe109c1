package io.github.verbs4j.tca.verbs;

/** 24-bit packet sequence numbers with wrap (one per message in TCA Verbs). */
final class Psn {
  private Psn() {}

  /**
   * @param a a PSN
   * @param b a PSN
   * @return a − b as a signed 24-bit distance: negative if a is before b
   */
  static int diff(int a, int b) {
    return ((a - b) << 8) >> 8;
  }

  /** @return psn + 1 mod 2^24 */
  static int next(int psn) {
    return (psn + 1) & 0xFFFFFF;
  }
}
