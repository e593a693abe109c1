package io.github.verbs4j.verbs;

/**
 * A shared receive queue ({@code struct ibv_srq}): receive WRs consumed by whichever attached QP
 * (or DCT) receives next, in FIFO order. The completion goes to the receiving QP's receive CQ with
 * that QP's number.
 *
 * <p><b>Limit</b>: {@link #arm(int)} sets {@code srq_limit}; when the number of posted,
 * unconsumed WRs drops below it, one {@link AsyncEventType#SRQ_LIMIT_REACHED} is raised and the
 * limit resets to 0 until armed again. A QP attached to an SRQ that enters ERR raises {@link
 * AsyncEventType#QP_LAST_WQE_REACHED}; the SRQ's WRs are not flushed.
 *
 * <p>Thread-safe. Closing fails with EBUSY while QPs are attached.
 */
public interface SharedReceiveQueue extends AutoCloseable {
  /**
   * Posts a chain of receive WRs ({@code ibv_post_srq_recv}). WRs before a failing one are posted.
   *
   * @param wr the first WR
   * @throws VerbsException EINVAL (too many SGEs) or ENOMEM (full), with the failing WR's index
   */
  void postRecv(RecvWr wr);

  /**
   * Arms the limit event ({@code ibv_modify_srq} with {@code IBV_SRQ_LIMIT}); 0 disarms.
   *
   * @param limit the low watermark
   * @throws VerbsException EINVAL if {@code limit} exceeds max_wr
   */
  void arm(int limit);

  /**
   * Modifies the SRQ ({@code ibv_modify_srq}). If any attribute is invalid none is modified.
   *
   * @param attr new values
   * @param mask which values ({@link SrqAttrMask} bits)
   * @throws VerbsException EINVAL naming the attribute; EOPNOTSUPP for a resize without {@link
   *     Capability#SRQ_RESIZE}
   */
  void modify(SrqAttr attr, int mask);

  /** @return max_wr, max_sge and the current limit ({@code ibv_query_srq}) */
  SrqAttr query();

  /** @return the SRQ number */
  int srqNum();

  /** @return the protection domain */
  ProtectionDomain pd();

  /**
   * Destroys the SRQ. Idempotent.
   *
   * @throws VerbsException EBUSY naming the attached QPs
   */
  @Override
  void close();
}
