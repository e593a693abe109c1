package io.github.verbs4j.examples.perftest;

/**
 * One row of a bandwidth test, computed as perftest's {@code print_report_bw}:
 *
 * <ul>
 *   <li>average = bytes × iterations / (time of the last completion − time of the first post);
 *   <li>peak = bytes / the best per-message time over every window from a post i to a signaled
 *       completion j ≥ i ({@code (tcompleted[j] - tposted[i]) / (j - i + 1)}, j on the
 *       {@code cq_mod} grid);
 *   <li>message rate = iterations / that time, in millions per second (Mpps).
 * </ul>
 *
 * <p>Bandwidth is in MiB/s (divisor 2^20) or, with {@code --report_gbits}, Gb/s (divisor 125 000 000).
 *
 * @param bytes message size
 * @param iterations messages
 * @param bwPeak BW peak
 * @param bwAverage BW average
 * @param msgRateMpps MsgRate[Mpps]
 * @param gbits whether the unit is Gb/s rather than MiB/s
 */
public record BandwidthStats(long bytes, int iterations, double bwPeak, double bwAverage, double msgRateMpps,
    boolean gbits) {

  /** MiB: perftest's default divisor ({@code 0x100000}). */
  public static final double MIB = 0x100000;
  /** Gb/s divisor ({@code 125000000}: bytes to gigabits). */
  public static final double GBIT = 125_000_000;
  private static final double NANOS_PER_SECOND = 1e9;

  /**
   * @param bytes message size
   * @param tposted time of every post, nanoseconds (length = iterations)
   * @param tcompleted time of completion j, recorded at indices {@code k·cqMod − 1} and at the last
   *     index, nanoseconds (same length)
   * @param cqMod every how many WRs one is signaled
   * @param gbits report Gb/s instead of MiB/s
   * @return the row
   */
  public static BandwidthStats of(long bytes, long[] tposted, long[] tcompleted, int cqMod, boolean gbits) {
    int iters = tposted.length;
    if (iters < 1 || tcompleted.length != iters) {
      throw new IllegalArgumentException("tposted has " + iters + " stamps and tcompleted " + tcompleted.length
          + "; both must have the iteration count (at least 1)");
    }
    if (cqMod < 1) {
      throw new IllegalArgumentException("cqMod=" + cqMod + " must be at least 1");
    }
    double divisor = gbits ? GBIT : MIB;
    long optDelta = PeakDelta.of(tposted, tcompleted, cqMod);
    double total = tcompleted[iters - 1] - tposted[0];
    double bwAvg = bytes * (double) iters * NANOS_PER_SECOND / (total * divisor);
    double msgRate = iters * NANOS_PER_SECOND / (total * 1_000_000);
    double peak = optDelta == Long.MAX_VALUE || optDelta <= 0 ? 0 : bytes * NANOS_PER_SECOND / (optDelta * divisor);
    return new BandwidthStats(bytes, iters, peak, bwAvg, msgRate, gbits);
  }
}
