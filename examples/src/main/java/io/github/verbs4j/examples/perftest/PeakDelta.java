package io.github.verbs4j.examples.perftest;

/**
 * The best per-message time of a bandwidth run, from which perftest's "BW peak" is computed: the
 * least {@code (tcompleted[j] - tposted[i]) / (j - i + 1)} (integer division) over every post
 * {@code i} and signaled completion {@code j ≥ i} on the {@code cq_mod} grid ({@code j = k·cqMod −
 * 1}).
 *
 * <p>perftest tries every pair, O(n² / cq_mod): minutes of CPU after a run of millions of
 * iterations. Each ratio is the slope from point {@code (i − 1, tposted[i])} to point {@code (j,
 * tcompleted[j])}, so the least one for a given {@code j} is the tangent from that point to the
 * upper convex hull of the posts before it; the hull grows as {@code j} does and each tangent is a
 * binary search: O(n + n / cq_mod · log n). Truncating division is monotonic, so the truncated
 * quotient of the least exact ratio is the least truncated ratio: the result is perftest's to the
 * nanosecond. Products of times and counts are compared in 128 bits.
 */
final class PeakDelta {
  private PeakDelta() {}

  /**
   * @param tposted time of every post (length n ≥ 1)
   * @param tcompleted completion times, read at the grid indices (length n)
   * @param cqMod every how many WRs one is signaled (≥ 1)
   * @return the least per-message time, or {@code Long.MAX_VALUE} when no grid index is below n
   */
  static long of(long[] tposted, long[] tcompleted, int cqMod) {
    int n = tposted.length;
    int[] hull = new int[n]; // post indices on the upper hull, x = index − 1 increasing
    int size = 0;
    int added = 0;
    long bestNum = 0;
    long bestDen = 0; // 0: none yet
    for (long grid = cqMod - 1L; grid < n; grid += cqMod) {
      int j = (int) grid;
      for (; added <= j; added++) {
        while (size >= 2 && !strictlyAbove(tposted, hull[size - 2], hull[size - 1], added)) {
          size--;
        }
        hull[size++] = added;
      }
      int k = tangent(tposted, hull, size, j, tcompleted[j]);
      long num = tcompleted[j] - tposted[k];
      long den = j - k + 1L;
      if (bestDen == 0 || compare(num, bestDen, bestNum, den) < 0) {
        bestNum = num;
        bestDen = den;
      }
    }
    return bestDen == 0 ? Long.MAX_VALUE : bestNum / bestDen;
  }

  /** @return whether hull point {@code b} lies strictly above the line from {@code a} to {@code c} */
  private static boolean strictlyAbove(long[] y, int a, int b, int c) {
    // (y_b − y_a)(x_c − x_a) > (y_c − y_a)(x_b − x_a), x of post i being i − 1
    return compare(c - (long) a, y[b] - y[a], y[c] - y[a], b - (long) a) > 0;
  }

  /**
   * The hull point with the least slope to {@code (x, yx)}, a point right of every hull point: the
   * slopes fall along the hull up to the tangent and rise after it.
   */
  private static int tangent(long[] y, int[] hull, int size, int x, long yx) {
    int lo = 0;
    int hi = size - 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (slopeBelow(y, hull[mid + 1], hull[mid], x, yx)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return hull[lo];
  }

  /** @return whether the slope from post {@code a} to {@code (x, yx)} is below the one from post {@code b} */
  private static boolean slopeBelow(long[] y, int a, int b, int x, long yx) {
    // (yx − y_a) / (x − (a − 1)) < (yx − y_b) / (x − (b − 1)), both denominators positive
    return compare(yx - y[a], x - (long) b + 1, yx - y[b], x - (long) a + 1) < 0;
  }

  /** Sign of {@code a·b − c·d}, exact for any longs. */
  static int compare(long a, long b, long c, long d) {
    long hi1 = Math.multiplyHigh(a, b);
    long hi2 = Math.multiplyHigh(c, d);
    if (hi1 != hi2) {
      return hi1 < hi2 ? -1 : 1;
    }
    return Long.compareUnsigned(a * b, c * d);
  }
}
