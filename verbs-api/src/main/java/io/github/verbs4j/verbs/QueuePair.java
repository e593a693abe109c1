package io.github.verbs4j.verbs;

/**
 * A queue pair ({@code struct ibv_qp}): a send queue and a receive queue (or an SRQ), created by
 * {@link ProtectionDomain#createQp(QpInitAttr)} in state RESET.
 *
 * <p><b>State machine</b>: {@link #modify(QpAttr)} follows the kernel's {@code qp_state_table}
 * (reference/verbs-semantics.md §2): an illegal transition, a missing required attribute or an
 * attribute not allowed for the transition and QP type fails with EINVAL naming it, and nothing is
 * modified. A typical RC bring-up is RESET→INIT→RTR→RTS:
 *
 * <pre>{@code
 * qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1)
 *     .qpAccessFlags(EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ)));
 * qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(peerQpn)
 *     .rqPsn(peerPsn).maxDestRdAtomic(1).minRnrTimer(12).ahAttr(AhAttr.lid(peerLid)));
 * qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(myPsn).timeout(14).retryCnt(7).rnrRetry(7)
 *     .maxRdAtomic(1));
 * }</pre>
 *
 * <p><b>Posting</b>: {@link #postSend} and {@link #postRecv} take a WR chain. The WRs are copied
 * during the call, so WR objects are reusable at once; data buffers are owned by the provider
 * until completion (see {@link SendWr}). The chain stops at the first bad WR and the exception
 * names its index; WRs before it were posted. Posting in a state that does not allow it, too many
 * SGEs, inline data too long, a misaligned atomic or an opcode the QP type does not support fails
 * with EINVAL; a full queue with ENOMEM. Bad lkeys are reported as LOC_PROT_ERR completions, as on
 * hardware. In ERR, posted WRs complete with WR_FLUSH_ERR.
 *
 * <p>Thread safety: posting is safe from one thread per queue at a time; modify, query and post
 * may be called concurrently. Closing is idempotent and destroys the QP ({@code ibv_destroy_qp}).
 */
public interface QueuePair extends AutoCloseable {
  /** @return the 24-bit QP number (for a DCT: the DCT number, assigned at RTR) */
  int qpNum();

  /** @return the QP type */
  QpType type();

  /** @return the current state */
  QpState state();

  /**
   * Changes attributes and/or state ({@code ibv_modify_qp}). The set fields of {@code attr} are the
   * mask.
   *
   * @param attr the attributes
   * @throws VerbsException EINVAL naming the illegal transition, missing/extra attribute or bad
   *     value; nothing is modified
   */
  void modify(QpAttr attr);

  /**
   * All current attributes ({@code ibv_query_qp} with every mask bit).
   *
   * @return a fresh {@link QpAttr} with every field set
   */
  QpAttr query();

  /** @return the actual capacities (at least those requested) */
  QpCap cap();

  /** @return the creation attributes */
  QpInitAttr initAttr();

  /**
   * Posts a chain of send WRs ({@code ibv_post_send}).
   *
   * @param wr the first WR
   * @throws VerbsException EINVAL/ENOMEM naming the first WR not posted
   */
  void postSend(SendWr wr);

  /**
   * Posts a chain of receive WRs ({@code ibv_post_recv}).
   *
   * @param wr the first WR
   * @throws VerbsException EINVAL/ENOMEM naming the first WR not posted; EINVAL if the QP uses an
   *     SRQ
   */
  void postRecv(RecvWr wr);

  /** @return the protection domain */
  ProtectionDomain pd();

  /** @return the send CQ */
  CompletionQueue sendCq();

  /** @return the receive CQ */
  CompletionQueue recvCq();

  /** @return the SRQ, or null */
  SharedReceiveQueue srq();

  /** @return the context */
  Context context();

  /** Destroys the QP ({@code ibv_destroy_qp}); outstanding WRs are discarded without completions. */
  @Override
  void close();
}
