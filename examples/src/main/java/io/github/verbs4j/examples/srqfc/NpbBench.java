package io.github.verbs4j.examples.srqfc;

import java.util.Locale;

/**
 * The two NAS Parallel Benchmarks of seed 002 §4.2, class A, as the trace generator needs them:
 * grid, iterations, the benchmark's own operation count per iteration (the formula its final
 * report divides by the run time: {@code bt.f}, {@code sp.f} of NPB 3.3), and how a time step's
 * work is split over its phases.
 *
 * <p>The split is an <b>assumption</b> (the paper's MPE traces carried the measured times; the
 * benchmarks' reports give only the total): right-hand side (copy_faces' compute_rhs, and SP's
 * txinvr) and add, and per sweep the forward elimination and the back substitution. BT's
 * forward elimination works on 5 x 5 blocks (block tridiagonal), so it dominates its sweep; SP's is
 * scalar pentadiagonal.
 */
enum NpbBench {
  /** Block tridiagonal; class A: 64^3, 200 time steps. */
  BT(64, 200, new double[] {3478.8, -17655.7, 28023.7, 0}, 0.25, 0.20, 0.04, 0.03, 0.0),
  /** Scalar pentadiagonal; class A: 64^3, 400 time steps. */
  SP(64, 400, new double[] {881.174, -4683.91, 11484.5, -19272.4}, 0.30, 0.15, 0.07, 0.04, 1.0 / 3);

  /** Grid points per dimension (class A). */
  final int grid;
  /** Time steps of the class-A run. */
  final int iterations;
  private final double[] opCount;
  /** Share of a step's operations in compute_rhs (with SP's txinvr). */
  final double rhsShare;
  /** Share of a step's operations in one sweep's forward elimination. */
  final double forwardShare;
  /** Share of a step's operations in one sweep's back substitution. */
  final double backShare;
  /** Share of a step's operations in add. */
  final double addShare;
  /**
   * Part of a forward stage computed between its receive's post and its wait (SP computes the
   * cell's left-hand side while the predecessor's message is on its way; BT does not overlap).
   */
  final double overlap;

  NpbBench(int grid, int iterations, double[] opCount, double rhs, double forward, double back, double add,
      double overlap) {
    this.grid = grid;
    this.iterations = iterations;
    this.opCount = opCount;
    this.rhsShare = rhs;
    this.forwardShare = forward;
    this.backShare = back;
    this.addShare = add;
    this.overlap = overlap;
  }

  /** @return floating-point operations of one time step, the benchmark's own count */
  double opsPerStep() {
    double n = grid;
    return opCount[0] * n * n * n + opCount[1] * n * n + opCount[2] * n + opCount[3];
  }

  /** @return the lower-case name ({@code bt}, {@code sp}) */
  String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
