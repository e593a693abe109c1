package io.github.verbs4j.verbs;

/**
 * The scatter/gather list of a work request: a reusable array of {@link Sge}s and the number in
 * use ({@code sg_list} and {@code num_sge} in C).
 *
 * <p>The backing array grows when {@link #numSge(int)} asks for more than it holds, so a WR that
 * is reused with the same shape allocates nothing after its first use.
 */
public final class ScatterList {
  /**
   * The most SGEs a list holds: far above any device's {@code max_sge} (32 here, 30 on mlx5), so a
   * WR over a device's limit still reaches {@code postSend} and fails there with EINVAL, while a
   * count nobody could post does not allocate an array of that size.
   */
  public static final int MAX_SGE = 1 << 16;

  private Sge[] sges;
  private int numSge;

  ScatterList(int capacity) {
    sges = new Sge[Math.max(1, capacity)];
    for (int i = 0; i < sges.length; i++) {
      sges[i] = new Sge();
    }
  }

  /** @return the number of SGEs in use ({@code num_sge}) */
  public int numSge() {
    return numSge;
  }

  /**
   * Sets the number of SGEs in use, growing the backing array if needed.
   *
   * @param n the count (0 is legal: a zero-length message)
   * @throws IllegalArgumentException if n is negative or above {@link #MAX_SGE}
   */
  public void numSge(int n) {
    if (n < 0) {
      throw new IllegalArgumentException("num_sge=" + n + " is negative");
    }
    if (n > MAX_SGE) {
      throw new IllegalArgumentException("num_sge=" + n + " exceeds " + MAX_SGE + ", far above any device's max_sge");
    }
    if (n > sges.length) {
      Sge[] grown = new Sge[n];
      System.arraycopy(sges, 0, grown, 0, sges.length);
      for (int i = sges.length; i < n; i++) {
        grown[i] = new Sge();
      }
      sges = grown;
    }
    numSge = n;
  }

  /**
   * The SGE at index i (which may be at or beyond {@link #numSge()}: set it, then set the count).
   *
   * @param i the index
   * @return the reusable SGE
   * @throws IllegalArgumentException if i is negative or not below {@link #MAX_SGE}
   */
  public Sge sge(int i) {
    if (i < 0 || i >= MAX_SGE) {
      throw new IllegalArgumentException("sge index=" + i + " is outside [0, " + MAX_SGE + ")");
    }
    if (i >= sges.length) {
      int n = numSge;
      numSge(i + 1);
      numSge = n;
    }
    return sges[i];
  }

  /**
   * The total length of the SGEs in use, as a long (a sum of 32-bit lengths).
   *
   * @return the sum of lengths
   */
  public long totalLength() {
    long sum = 0;
    for (int i = 0; i < numSge; i++) {
      sum += sges[i].length();
    }
    return sum;
  }

  void setAll(Sge[] list) {
    numSge(list.length);
    for (int i = 0; i < list.length; i++) {
      sges[i].copyFrom(list[i]);
    }
  }

  /**
   * Copies another list's SGEs into this one.
   *
   * @param other the source
   */
  public void copyFrom(ScatterList other) {
    numSge(other.numSge);
    for (int i = 0; i < other.numSge; i++) {
      sges[i].copyFrom(other.sges[i]);
    }
  }
}
