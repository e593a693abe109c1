package io.github.verbs4j.examples.srqfc;

import java.util.ArrayList;
import java.util.List;

/**
 * One time step of NPB BT or SP (class A) as the MPI operations each process performs, generated
 * from the benchmarks' published communication structure (NPB 3.3 MPI: {@code make_set.f},
 * {@code define.f}, {@code copy_faces.f}, {@code x_solve.f}; seed 002 replayed MPE traces of the
 * same codes):
 *
 * <ul>
 *   <li><b>Multi-partition</b>: P = q^2 processes, q cells each; process {@code node} at (i, j) =
 *       ({@code node mod q}, {@code node / q}) owns cells at (i + c, j - c, c) mod q, c = 0..q-1,
 *       so every process has one cell in every slab of every direction. Cell sizes: 64/q, the
 *       first 64 mod q cells of a direction one larger. Neighbours: successor(1) = (i+1, j),
 *       successor(2) = (i, j+1), successor(3) = (i-1, j+1), predecessors the inverse.
 *   <li><b>copy_faces</b>: six Irecv, six Isend (east/west, north/south, top/bottom; each the
 *       two-deep faces of the cells not on that side of the grid, 5 doubles a point), Waitall,
 *       then compute_rhs.
 *   <li><b>x, y, z solve</b>: forward elimination over the q stages (stage s takes the cell in
 *       slab s: receive from the predecessor unless s = 1, compute, send to the successor unless
 *       s = q), then back substitution in reverse (receive from the successor, send to the
 *       predecessor). Message sizes: BT sends fixed buffers of MAX_CELL_DIM^2 x (25 + 5) doubles
 *       forward and MAX_CELL_DIM^2 x 5 back (MAX_CELL_DIM = 64/q + 1); SP sends the cell's
 *       interior face x 22 doubles forward and x 10 back.
 *   <li><b>add</b>, then the next step.
 * </ul>
 *
 * <p>Each Waitall waits for every request outstanding at that point, as the benchmarks' waits do
 * (a solve stage waits for its receive and the previous stage's send).
 */
final class NpbTrace {
  /** What a process does next. */
  enum Kind { COMPUTE, ISEND, IRECV, WAIT }

  /**
   * One MPI operation or stretch of computation.
   *
   * @param kind what
   * @param peer the other process (ISEND, IRECV)
   * @param tag the message's tag (ISEND, IRECV)
   * @param bytes the message's size (ISEND)
   * @param nanos computation time (COMPUTE)
   */
  record Op(Kind kind, int peer, int tag, int bytes, long nanos) {}

  /** copy_faces tags, by direction (x, y, z) and side (to the successor = 0, predecessor = 1). */
  private static final int FACE_TAG = 1;
  private static final int FORWARD_TAG = 7;
  private static final int BACK_TAG = 10;
  private static final int DOUBLE = 8;

  private NpbTrace() {}

  /**
   * @param bench BT or SP
   * @param procs P, a square of at least 4
   * @param node this process
   * @param gflops the process's sustained rate, 10^9 operations a second
   * @return the operations of one time step
   */
  static List<Op> step(NpbBench bench, int procs, int node, double gflops) {
    int q = cells(procs);
    int n = bench.grid;
    int[][] coord = new int[q][3];
    coord[0][0] = node % q;
    coord[0][1] = node / q;
    for (int c = 1; c < q; c++) {
      coord[c][0] = (coord[c - 1][0] + 1) % q;
      coord[c][1] = (coord[c - 1][1] - 1 + q) % q;
      coord[c][2] = c;
    }
    int[][] size = new int[q][3];
    int[][] slice = new int[3][q];
    for (int c = 0; c < q; c++) {
      for (int d = 0; d < 3; d++) {
        size[c][d] = n / q + (coord[c][d] < n % q ? 1 : 0);
        slice[d][coord[c][d]] = c;
      }
    }
    int i = node % q;
    int j = node / q;
    int[] succ = {(i + 1) % q + q * j, i + q * ((j + 1) % q), (i - 1 + q) % q + q * ((j + 1) % q)};
    int[] pred = {(i - 1 + q) % q + q * j, i + q * ((j - 1 + q) % q), (i + 1) % q + q * ((j - 1 + q) % q)};
    double nsPerPoint = bench.opsPerStep() / ((double) n * n * n) / gflops;
    List<Op> ops = new ArrayList<>();

    // copy_faces: what goes to the successor in direction d is the faces of the cells not on the
    // grid's high side of d, and to the predecessor those not on its low side
    for (int d = 0; d < 3; d++) {
      ops.add(new Op(Kind.IRECV, succ[d], FACE_TAG + 2 * d + 1, 0, 0));
      ops.add(new Op(Kind.IRECV, pred[d], FACE_TAG + 2 * d, 0, 0));
    }
    for (int d = 0; d < 3; d++) {
      int high = 0;
      int low = 0;
      for (int c = 0; c < q; c++) {
        int face = size[c][0] * size[c][1] * size[c][2] / size[c][d] * 5 * 2 * DOUBLE;
        high += coord[c][d] != q - 1 ? face : 0;
        low += coord[c][d] != 0 ? face : 0;
      }
      ops.add(new Op(Kind.ISEND, succ[d], FACE_TAG + 2 * d, high, 0));
      ops.add(new Op(Kind.ISEND, pred[d], FACE_TAG + 2 * d + 1, low, 0));
    }
    ops.add(new Op(Kind.WAIT, -1, 0, 0, 0));
    long points = 0;
    for (int c = 0; c < q; c++) {
      points += (long) size[c][0] * size[c][1] * size[c][2];
    }
    ops.add(compute(bench.rhsShare * points * nsPerPoint));

    int maxCell = n / q + 1;
    for (int d = 0; d < 3; d++) {
      for (int s = 0; s < q; s++) {
        int c = slice[d][s];
        double work = bench.forwardShare * size[c][0] * size[c][1] * size[c][2] * nsPerPoint;
        if (s != 0) {
          ops.add(new Op(Kind.IRECV, pred[d], FORWARD_TAG + d, 0, 0));
          if (bench.overlap > 0) {
            ops.add(compute(bench.overlap * work));
          }
          ops.add(new Op(Kind.WAIT, -1, 0, 0, 0));
          ops.add(compute((1 - bench.overlap) * work));
        } else {
          ops.add(compute(work));
        }
        if (s != q - 1) {
          int bytes = bench == NpbBench.BT ? maxCell * maxCell * 30 * DOUBLE : interiorFace(size[c], coord[c], d, q) * 22 * DOUBLE;
          ops.add(new Op(Kind.ISEND, succ[d], FORWARD_TAG + d, bytes, 0));
        }
      }
      for (int s = q - 1; s >= 0; s--) {
        int c = slice[d][s];
        if (s != q - 1) {
          ops.add(new Op(Kind.IRECV, succ[d], BACK_TAG + d, 0, 0));
          ops.add(new Op(Kind.WAIT, -1, 0, 0, 0));
        }
        ops.add(compute(bench.backShare * size[c][0] * size[c][1] * size[c][2] * nsPerPoint));
        if (s != 0) {
          int bytes = bench == NpbBench.BT ? maxCell * maxCell * 5 * DOUBLE : interiorFace(size[c], coord[c], d, q) * 10 * DOUBLE;
          ops.add(new Op(Kind.ISEND, pred[d], BACK_TAG + d, bytes, 0));
        }
      }
    }
    ops.add(compute(bench.addShare * points * nsPerPoint));
    return ops;
  }

  /** @return q = sqrt(P) */
  static int cells(int procs) {
    int q = (int) Math.round(Math.sqrt(procs));
    if (q * q != procs || q < 2) {
      throw new IllegalArgumentException("procs=" + procs + " must be a square of at least 4 (BT and SP run on q x q processes)");
    }
    return q;
  }

  /** The cell's face across direction d without the grid's boundary points (start/end of the codes). */
  private static int interiorFace(int[] size, int[] coord, int d, int q) {
    int f = 1;
    for (int e = 0; e < 3; e++) {
      if (e != d) {
        f *= size[e] - (coord[e] == 0 ? 1 : 0) - (coord[e] == q - 1 ? 1 : 0);
      }
    }
    return f;
  }

  private static Op compute(double nanos) {
    return new Op(Kind.COMPUTE, -1, 0, 0, Math.round(nanos));
  }
}
