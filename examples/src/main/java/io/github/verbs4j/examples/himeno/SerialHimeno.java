package io.github.verbs4j.examples.himeno;

/**
 * The serial reference: the original single-process Himeno ({@code himenoBMTxp.c}) written
 * directly over three-dimensional arrays, independent of {@link HimenoGrid} and the decomposition
 * code, with the residual summed exactly per (i, j) column as {@link HimenoGrid#step} does.
 */
public final class SerialHimeno {
  private final int imax;
  private final int jmax;
  private final int kmax;
  private final float[][][][] a;
  private final float[][][][] b;
  private final float[][][][] c;
  private final float[][][] p;
  private final float[][][] bnd;
  private final float[][][] wrk1;
  private final float[][][] wrk2;

  /** @param size the problem size */
  public SerialHimeno(HimenoSize size) {
    this(size.imax(), size.jmax(), size.kmax());
  }

  /**
   * @param imax points along i
   * @param jmax points along j
   * @param kmax points along k
   */
  public SerialHimeno(int imax, int jmax, int kmax) {
    this.imax = imax;
    this.jmax = jmax;
    this.kmax = kmax;
    a = new float[4][imax][jmax][kmax];
    b = new float[3][imax][jmax][kmax];
    c = new float[3][imax][jmax][kmax];
    p = new float[imax][jmax][kmax];
    bnd = new float[imax][jmax][kmax];
    wrk1 = new float[imax][jmax][kmax];
    wrk2 = new float[imax][jmax][kmax];
    for (int i = 0; i < imax; i++) {
      for (int j = 0; j < jmax; j++) {
        for (int k = 0; k < kmax; k++) {
          a[0][i][j][k] = 1.0f;
          a[1][i][j][k] = 1.0f;
          a[2][i][j][k] = 1.0f;
          a[3][i][j][k] = (float) (1.0 / 6.0);
          b[0][i][j][k] = 0.0f;
          b[1][i][j][k] = 0.0f;
          b[2][i][j][k] = 0.0f;
          c[0][i][j][k] = 1.0f;
          c[1][i][j][k] = 1.0f;
          c[2][i][j][k] = 1.0f;
          p[i][j][k] = (float) (i * i) / (float) ((imax - 1) * (imax - 1));
          wrk1[i][j][k] = 0.0f;
          bnd[i][j][k] = 1.0f;
        }
      }
    }
  }

  /**
   * {@code jacobi(nn)}.
   *
   * @param nn iterations
   * @return gosa, the residual of the last iteration
   */
  public float jacobi(int nn) {
    float gosa = 0;
    for (int n = 0; n < nn; n++) {
      ExactSum sum = new ExactSum();
      for (int i = 1; i < imax - 1; i++) {
        for (int j = 1; j < jmax - 1; j++) {
          float column = 0.0f;
          for (int k = 1; k < kmax - 1; k++) {
            float s0 = a[0][i][j][k] * p[i + 1][j][k] + a[1][i][j][k] * p[i][j + 1][k] + a[2][i][j][k] * p[i][j][k + 1]
                + b[0][i][j][k] * (p[i + 1][j + 1][k] - p[i + 1][j - 1][k] - p[i - 1][j + 1][k] + p[i - 1][j - 1][k])
                + b[1][i][j][k] * (p[i][j + 1][k + 1] - p[i][j - 1][k + 1] - p[i][j + 1][k - 1] + p[i][j - 1][k - 1])
                + b[2][i][j][k] * (p[i + 1][j][k + 1] - p[i - 1][j][k + 1] - p[i + 1][j][k - 1] + p[i - 1][j][k - 1])
                + c[0][i][j][k] * p[i - 1][j][k] + c[1][i][j][k] * p[i][j - 1][k] + c[2][i][j][k] * p[i][j][k - 1]
                + wrk1[i][j][k];
            float ss = (s0 * a[3][i][j][k] - p[i][j][k]) * bnd[i][j][k];
            column += ss * ss;
            wrk2[i][j][k] = p[i][j][k] + HimenoGrid.OMEGA * ss;
          }
          sum.add(column);
        }
      }
      for (int i = 1; i < imax - 1; i++) {
        for (int j = 1; j < jmax - 1; j++) {
          for (int k = 1; k < kmax - 1; k++) {
            p[i][j][k] = wrk2[i][j][k];
          }
        }
      }
      gosa = sum.toFloat();
    }
    return gosa;
  }

  /**
   * @param i global i
   * @param j global j
   * @param k k
   * @return the pressure there
   */
  public float p(int i, int j, int k) {
    return p[i][j][k];
  }
}
