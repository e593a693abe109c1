package io.github.verbs4j.examples.mp;

/**
 * A rank's connection counts.
 *
 * @param open links open now
 * @param peak the most open at once
 * @param opened links opened so far
 * @param evictions closings this rank began so far
 * @param retiring closed links whose QP is not destroyed yet (nor its ring given back)
 * @param spares rings of closed links kept for the next links ({@link RingPool})
 * @param ringsAllocated rings registered so far (the rest of the links reused a spare)
 */
public record LinkStats(int open, int peak, long opened, long evictions, int retiring, int spares,
    long ringsAllocated) {
  /**
   * @param others the other ranks
   * @return the baseline's counts: a link to every other rank, never closed
   */
  static LinkStats baseline(int others) {
    return new LinkStats(others, others, others, 0, 0, 0, others);
  }
}
