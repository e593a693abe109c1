package io.github.verbs4j.examples.himeno;

/**
 * One rank's block of an i × j process grid, split as the original MPI Himeno's {@code initmax}
 * does: {@code mx} points over {@code ndx} parts, the first {@code mx % ndx} parts one point
 * larger, each part extended by one halo plane on every side that has a neighbour. Grid positions
 * are laid out as {@code MPI_Cart_create} does, row-major: position = px · ndy + py; position p is
 * computed by rank p unless a {@link Placement} maps it ({@link #placed}).
 *
 * @param ndx processes along i
 * @param ndy processes along j
 * @param px this rank's coordinate along i
 * @param py this rank's coordinate along j
 * @param imax local points along i, halos included
 * @param jmax local points along j, halos included
 * @param kmax points along k (not split)
 * @param iOffset global i of local i = 0
 * @param jOffset global j of local j = 0
 * @param globalImax global points along i
 * @param left rank computing px − 1, or −1
 * @param right rank computing px + 1, or −1
 * @param down rank computing py − 1, or −1
 * @param up rank computing py + 1, or −1
 */
public record Decomposition(int ndx, int ndy, int px, int py, int imax, int jmax, int kmax, int iOffset,
    int jOffset, int globalImax, int left, int right, int down, int up) {

  /**
   * @param size the problem size
   * @param ndx processes along i
   * @param ndy processes along j
   * @param rank this rank
   * @return its block
   * @throws IllegalArgumentException if a part would have fewer than 2 points
   */
  public static Decomposition of(HimenoSize size, int ndx, int ndy, int rank) {
    return of(size.imax(), size.jmax(), size.kmax(), ndx, ndy, rank);
  }

  /**
   * @param mx global points along i
   * @param my global points along j
   * @param mz global points along k
   * @param ndx processes along i
   * @param ndy processes along j
   * @param rank this rank
   * @return its block
   */
  public static Decomposition of(int mx, int my, int mz, int ndx, int ndy, int rank) {
    if (ndx < 1 || ndy < 1 || rank < 0 || rank >= ndx * ndy) {
      throw new IllegalArgumentException("rank " + rank + " is not in a " + ndx + " x " + ndy + " process grid");
    }
    if (mx / ndx < 2 || my / ndy < 2) {
      throw new IllegalArgumentException("a " + ndx + " x " + ndy + " grid leaves fewer than 2 points per rank of "
          + mx + " x " + my);
    }
    int px = rank / ndy;
    int py = rank % ndy;
    int[] ip = part(mx, ndx, px);
    int[] jp = part(my, ndy, py);
    return new Decomposition(ndx, ndy, px, py, ip[0], jp[0], mz, ip[1], jp[1], mx,
        px > 0 ? (px - 1) * ndy + py : -1, px < ndx - 1 ? (px + 1) * ndy + py : -1,
        py > 0 ? px * ndy + py - 1 : -1, py < ndy - 1 ? px * ndy + py + 1 : -1);
  }

  /**
   * This block with its neighbours named by the ranks that compute them ({@link Placement}).
   *
   * @param rankOfPosition the rank of each grid position
   * @return the block, left, right, down and up mapped through {@code rankOfPosition}
   */
  public Decomposition placed(int[] rankOfPosition) {
    return new Decomposition(ndx, ndy, px, py, imax, jmax, kmax, iOffset, jOffset, globalImax,
        left < 0 ? -1 : rankOfPosition[left], right < 0 ? -1 : rankOfPosition[right],
        down < 0 ? -1 : rankOfPosition[down], up < 0 ? -1 : rankOfPosition[up]);
  }

  /** {@code initmax}: {local size with halos, global offset of local 0} of part {@code i}. */
  private static int[] part(int m, int nd, int i) {
    int tmp = m / nd;
    int start = 0;
    for (int p = 0; p < i; p++) {
      start += tmp + (p < m % nd ? 1 : 0);
    }
    int own = tmp + (i < m % nd ? 1 : 0);
    int local = own + (i != 0 ? 1 : 0) + (i != nd - 1 ? 1 : 0);
    return new int[] {local, i == 0 ? start : start - 1};
  }

  /**
   * {@code MPI_Dims_create(n, 2)}: the most balanced ndx ≥ ndy with ndx · ndy = n.
   *
   * @param n the number of ranks
   * @return {ndx, ndy}
   */
  public static int[] dims(int n) {
    int best = 1;
    for (int d = 1; d * d <= n; d++) {
      if (n % d == 0) {
        best = d;
      }
    }
    return new int[] {n / best, best};
  }
}
