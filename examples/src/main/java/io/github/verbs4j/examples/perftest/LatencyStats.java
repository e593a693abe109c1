package io.github.verbs4j.examples.perftest;

import java.util.Arrays;

/**
 * One row of a latency test, computed exactly as perftest's {@code print_report_lat}
 * (reference/verbs-semantics.md §7.1):
 *
 * <ul>
 *   <li>sample i = {@code tposted[i+1] - tposted[i]} (one full iteration), {@code iters-1} samples;
 *   <li>sorted, the largest {@value #TAIL} are dropped ({@code LAT_MEASURE_TAIL}), leaving n;
 *   <li>t_min = {@code delta[0]}; t_max = {@code delta[n]} (the smaller of the two dropped samples —
 *       perftest's quirk); t_typical = the median {@code get_median(n, delta)} in integer time units;
 *       t_avg = mean of the n kept samples; 99% = {@code delta[ceil(n·0.99)]}, 99.9% =
 *       {@code delta[ceil(n·0.999)]};
 *   <li>t_stdev = sqrt(Σ d²/n) where each deviation d is truncated to an {@code int} of µs before
 *       squaring, as perftest's accumulator does;
 *   <li>every value is divided by the rtt factor: 2 for SEND and WRITE ping-pong (one-way latency),
 *       1 for READ and atomics (full round trip).
 * </ul>
 *
 * <p>Time stamps are nanoseconds (perftest uses cycles and divides by the CPU MHz; here one µs is
 * 1000 units).
 *
 * @param bytes message size
 * @param iterations iterations run
 * @param tMin t_min[usec]
 * @param tMax t_max[usec]
 * @param tTypical t_typical[usec], the median
 * @param tAvg t_avg[usec]
 * @param tStdev t_stdev[usec]
 * @param p99 99% percentile[usec]
 * @param p999 99.9% percentile[usec]
 */
public record LatencyStats(long bytes, int iterations, double tMin, double tMax, double tTypical, double tAvg,
    double tStdev, double p99, double p999) {

  /** Samples perftest drops from the top ({@code LAT_MEASURE_TAIL}). */
  public static final int TAIL = 2;
  /** The fewest iterations perftest accepts (its parser rejects fewer than 5). */
  public static final int MIN_ITERATIONS = 5;
  private static final double NANOS_PER_MICRO = 1000.0;

  /**
   * @param bytes message size
   * @param tposted time stamp of every post, nanoseconds; its length is the iteration count
   * @param rttFactor 2 for ping-pong tests (SEND, WRITE), 1 for READ and atomics
   * @return the row
   * @throws IllegalArgumentException if fewer than {@value #MIN_ITERATIONS} stamps are given or
   *     rttFactor is not 1 or 2
   */
  public static LatencyStats of(long bytes, long[] tposted, int rttFactor) {
    int iters = tposted.length;
    if (iters < MIN_ITERATIONS) {
      throw new IllegalArgumentException("iterations=" + iters + " is below the minimum of " + MIN_ITERATIONS);
    }
    if (rttFactor != 1 && rttFactor != 2) {
      throw new IllegalArgumentException("rttFactor=" + rttFactor + " must be 1 or 2");
    }
    int measureCnt = iters - 1;
    long[] delta = new long[measureCnt];
    for (int i = 0; i < measureCnt; i++) {
      delta[i] = tposted[i + 1] - tposted[i];
    }
    double quotient = NANOS_PER_MICRO * rttFactor;
    Arrays.sort(delta);
    measureCnt -= TAIL;
    long median = median(measureCnt, delta);
    double averageSum = 0;
    for (int i = 0; i < measureCnt; i++) {
      averageSum += delta[i] / quotient;
    }
    double average = averageSum / measureCnt;
    double stdevSum = 0;
    for (int i = 0; i < measureCnt; i++) {
      int tempVar = (int) (average - delta[i] / quotient); // perftest: int temp_var, truncated
      int powVar = tempVar * tempVar;
      stdevSum += powVar;
    }
    int iters99 = (int) Math.ceil(measureCnt * 0.99);
    int iters999 = (int) Math.ceil(measureCnt * 0.999);
    return new LatencyStats(bytes, iters, delta[0] / quotient, delta[measureCnt] / quotient, median / quotient,
        average, Math.sqrt(stdevSum / measureCnt), delta[iters99] / quotient, delta[iters999] / quotient);
  }

  /** perftest's {@code get_median}: the middle sample, or the integer mean of the middle two. */
  static long median(int n, long[] sorted) {
    if ((n - 1) % 2 != 0) {
      return (sorted[n / 2] + sorted[n / 2 - 1]) / 2;
    }
    return sorted[n / 2];
  }
}
