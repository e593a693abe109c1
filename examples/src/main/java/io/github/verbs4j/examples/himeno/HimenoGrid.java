package io.github.verbs4j.examples.himeno;

/**
 * One rank's arrays and the Jacobi step, laid out and initialised as the original Himeno benchmark
 * (MPI version, {@code initmt}): coefficient arrays {@code a} (4), {@code b} (3), {@code c} (3),
 * pressure {@code p}, boundary mask {@code bnd}, source {@code wrk1} and the new pressure {@code
 * wrk2}, each a flat {@code float} array indexed {@code (i·jmax + j)·kmax + k}. a = 1, 1, 1, 1/6; b =
 * 0; c = 1; bnd = 1; wrk1 = 0; p = i²/(mx−1)² with i the global index. omega = 0.8. All arithmetic is
 * {@code float} in the original's order, so results are the same on every JVM.
 */
public final class HimenoGrid {
  /** The relaxation factor. */
  public static final float OMEGA = 0.8f;
  /** Floating-point operations per grid point per iteration, as the original counts them. */
  public static final int FLOPS_PER_POINT = 34;

  final int imax;
  final int jmax;
  final int kmax;
  final float[][] a = new float[4][];
  final float[][] b = new float[3][];
  final float[][] c = new float[3][];
  final float[] p;
  final float[] bnd;
  final float[] wrk1;
  final float[] wrk2;

  /** @param d the rank's block */
  public HimenoGrid(Decomposition d) {
    imax = d.imax();
    jmax = d.jmax();
    kmax = d.kmax();
    int n = imax * jmax * kmax;
    for (int m = 0; m < 4; m++) {
      a[m] = new float[n];
    }
    for (int m = 0; m < 3; m++) {
      b[m] = new float[n];
      c[m] = new float[n];
    }
    p = new float[n];
    bnd = new float[n];
    wrk1 = new float[n];
    wrk2 = new float[n];
    float denominator = (float) ((d.globalImax() - 1) * (d.globalImax() - 1));
    for (int i = 0; i < imax; i++) {
      int gi = i + d.iOffset();
      float pi = (float) (gi * gi) / denominator;
      for (int j = 0; j < jmax; j++) {
        for (int k = 0; k < kmax; k++) {
          int x = index(i, j, k);
          a[0][x] = 1.0f;
          a[1][x] = 1.0f;
          a[2][x] = 1.0f;
          a[3][x] = (float) (1.0 / 6.0);
          c[0][x] = 1.0f;
          c[1][x] = 1.0f;
          c[2][x] = 1.0f;
          p[x] = pi;
          bnd[x] = 1.0f;
        }
      }
    }
  }

  /** @return the flat index of (i, j, k) */
  int index(int i, int j, int k) {
    return (i * jmax + j) * kmax + k;
  }

  /** @return the pressure array (local block, halos included) */
  public float[] p() {
    return p;
  }

  /**
   * One Jacobi iteration over the interior points (local 1..max−2 in i, j, k): computes wrk2 and
   * copies it into p. The squared residuals are summed in float along k for each (i, j) column —
   * the same in every decomposition, since k is never split — and the column sums go into {@code
   * gosa} exactly.
   *
   * @param gosa receives the column sums
   */
  public void step(ExactSum gosa) {
    final int si = jmax * kmax;
    final int sj = kmax;
    final float[] a0 = a[0];
    final float[] a1 = a[1];
    final float[] a2 = a[2];
    final float[] a3 = a[3];
    final float[] b0 = b[0];
    final float[] b1 = b[1];
    final float[] b2 = b[2];
    final float[] c0 = c[0];
    final float[] c1 = c[1];
    final float[] c2 = c[2];
    final float[] pp = p;
    for (int i = 1; i < imax - 1; i++) {
      for (int j = 1; j < jmax - 1; j++) {
        float column = 0.0f;
        int base = i * si + j * sj;
        for (int k = 1; k < kmax - 1; k++) {
          int x = base + k;
          float s0 = a0[x] * pp[x + si] + a1[x] * pp[x + sj] + a2[x] * pp[x + 1]
              + b0[x] * (pp[x + si + sj] - pp[x + si - sj] - pp[x - si + sj] + pp[x - si - sj])
              + b1[x] * (pp[x + sj + 1] - pp[x - sj + 1] - pp[x + sj - 1] + pp[x - sj - 1])
              + b2[x] * (pp[x + si + 1] - pp[x - si + 1] - pp[x + si - 1] + pp[x - si - 1])
              + c0[x] * pp[x - si] + c1[x] * pp[x - sj] + c2[x] * pp[x - 1] + wrk1[x];
          float ss = (s0 * a3[x] - pp[x]) * bnd[x];
          column += ss * ss;
          wrk2[x] = pp[x] + OMEGA * ss;
        }
        gosa.add(column);
      }
    }
    for (int i = 1; i < imax - 1; i++) {
      for (int j = 1; j < jmax - 1; j++) {
        int base = i * si + j * sj;
        System.arraycopy(wrk2, base + 1, pp, base + 1, kmax - 2);
      }
    }
  }
}
