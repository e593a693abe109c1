package io.github.verbs4j.examples.himeno;

/**
 * Problem sizes: grid points i × j × k. SMALL, MIDDLE and LARGE are the original benchmark's S, M
 * and L, the sizes of the TCA Verbs paper's Himeno runs (seed 000, table 3); TINY is for tests.
 */
public enum HimenoSize {
  /** 16 × 16 × 32, for tests (well under a second). */
  TINY(16, 16, 32, 100),
  /** 64 × 64 × 128 (original "S"). */
  SMALL(64, 64, 128, 1000),
  /** 128 × 128 × 256 (original "M"). */
  MIDDLE(128, 128, 256, 1000),
  /** 256 × 256 × 512 (original "L"); about 1.9 GB of arrays in one process. */
  LARGE(256, 256, 512, 1000);

  private final int imax;
  private final int jmax;
  private final int kmax;
  private final int defaultIterations;

  HimenoSize(int imax, int jmax, int kmax, int defaultIterations) {
    this.imax = imax;
    this.jmax = jmax;
    this.kmax = kmax;
    this.defaultIterations = defaultIterations;
  }

  /** @return grid points in i */
  public int imax() {
    return imax;
  }

  /** @return grid points in j */
  public int jmax() {
    return jmax;
  }

  /** @return grid points in k */
  public int kmax() {
    return kmax;
  }

  /** @return iterations when none are given (the paper's 1000; 100 for TINY) */
  public int defaultIterations() {
    return defaultIterations;
  }
}
