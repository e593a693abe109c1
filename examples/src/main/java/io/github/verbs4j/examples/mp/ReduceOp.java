package io.github.verbs4j.examples.mp;

/** Reduction operations of {@link Communicator#allreduce}. */
public enum ReduceOp {
  /** Element-wise sum. */
  SUM,
  /** Element-wise maximum. */
  MAX;

  double apply(double a, double b) {
    return this == SUM ? a + b : Math.max(a, b);
  }

  long apply(long a, long b) {
    return this == SUM ? a + b : Math.max(a, b);
  }
}
