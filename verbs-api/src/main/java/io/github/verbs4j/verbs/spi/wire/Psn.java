package io.github.verbs4j.verbs.spi.wire;

/**
 * 24-bit packet sequence number arithmetic (IBTA 9.7.1). PSNs wrap at 2^24; two PSNs are compared
 * by the sign of their difference shifted into the top of a 32-bit int, which is valid while they
 * are less than 2^23 apart (rxe's {@code psn_compare}). Never compare raw PSNs with {@code <}. Both
 * simulated devices number with it: the ib provider per packet, the tca provider per message.
 */
public final class Psn {
  /** The 24 bits a PSN occupies. */
  public static final int MASK = 0x00FF_FFFF;
  /** Half the PSN space: the largest distance {@link #compare} orders correctly. */
  public static final int HALF_WINDOW = 1 << 23;

  private Psn() {}

  /**
   * Orders two PSNs.
   *
   * @param a a PSN
   * @param b a PSN
   * @return negative if {@code a} is before {@code b}, 0 if equal, positive if after
   */
  public static int compare(int a, int b) {
    return (a - b) << 8;
  }

  /**
   * The signed distance between two PSNs.
   *
   * @param a a PSN
   * @param b a PSN
   * @return {@code a - b} as a signed 24-bit number: negative if {@code a} is before {@code b}
   */
  public static int diff(int a, int b) {
    return ((a - b) << 8) >> 8;
  }

  /**
   * @param psn a PSN
   * @param n how many to add (may be negative)
   * @return {@code psn + n} modulo 2^24
   */
  public static int add(int psn, int n) {
    return (psn + n) & MASK;
  }

  /**
   * @param psn a PSN
   * @return the next PSN
   */
  public static int next(int psn) {
    return (psn + 1) & MASK;
  }

  /**
   * @param from a PSN
   * @param to a later PSN
   * @return how many PSNs lie from {@code from} up to {@code to} (0 .. 2^24-1)
   */
  public static int distance(int from, int to) {
    return (to - from) & MASK;
  }
}
