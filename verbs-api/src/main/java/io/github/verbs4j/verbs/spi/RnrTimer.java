package io.github.verbs4j.verbs.spi;

/**
 * The 5-bit RNR NAK timer encoding (IBTA table 45): the delay a requester waits after an RNR NAK
 * before retrying. Code 0 is the longest (655.36 ms). Values in nanoseconds; code 25 is 61.44 ms
 * (rxe's table has 61.41 ms there, a typo this table does not copy).
 */
public final class RnrTimer {
  private static final long[] NANOS = {
    655_360_000L, 10_000L, 20_000L, 30_000L, 40_000L, 60_000L, 80_000L, 120_000L,
    160_000L, 240_000L, 320_000L, 480_000L, 640_000L, 960_000L, 1_280_000L, 1_920_000L,
    2_560_000L, 3_840_000L, 5_120_000L, 7_680_000L, 10_240_000L, 15_360_000L, 20_480_000L, 30_720_000L,
    40_960_000L, 61_440_000L, 81_920_000L, 122_880_000L, 163_840_000L, 245_760_000L, 327_680_000L, 491_520_000L,
  };

  private RnrTimer() {}

  /**
   * @param code the 5-bit timer code
   * @return the delay in nanoseconds
   * @throws IllegalArgumentException naming the code if outside 0..31
   */
  public static long nanos(int code) {
    if (code < 0 || code > 31) {
      throw new IllegalArgumentException("rnr timer code=" + code + " is outside [0, 31]");
    }
    return NANOS[code];
  }

  /**
   * The local ACK timeout of a QP attribute {@code timeout}: 4.096 us * 2^timeout (IBTA 11.2.4.2),
   * 0 = infinite.
   *
   * @param timeout 0..31
   * @return nanoseconds, or 0 for infinite
   */
  public static long ackTimeoutNanos(int timeout) {
    if (timeout < 0 || timeout > 31) {
      throw new IllegalArgumentException("timeout=" + timeout + " is outside [0, 31]");
    }
    return timeout == 0 ? 0 : 4096L << timeout;
  }
}
