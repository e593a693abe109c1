package io.github.verbs4j.verbs;

/**
 * Shared receive queue attributes ({@code struct ibv_srq_attr}): used to create an SRQ (where
 * {@code srqLimit} is ignored, as in libibverbs) and returned by {@link SharedReceiveQueue#query()}.
 *
 * @param maxWr the number of outstanding receive WRs
 * @param maxSge SGEs per receive WR
 * @param srqLimit the armed limit (0 = not armed)
 */
public record SrqAttr(int maxWr, int maxSge, int srqLimit) {
  /**
   * Creation attributes.
   *
   * @param maxWr the queue depth
   * @param maxSge SGEs per WR
   * @return the attributes
   */
  public static SrqAttr of(int maxWr, int maxSge) {
    return new SrqAttr(maxWr, maxSge, 0);
  }
}
