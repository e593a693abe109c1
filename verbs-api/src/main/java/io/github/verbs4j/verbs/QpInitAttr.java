package io.github.verbs4j.verbs;

import java.util.Objects;

/**
 * Creation attributes of a queue pair ({@code struct ibv_qp_init_attr}, plus the mlx5dv DC
 * attributes for {@link QpType#DCI} and {@link QpType#DCT}).
 *
 * <pre>{@code
 * QpInitAttr init = QpInitAttr.builder(QpType.RC).sendCq(cq).recvCq(cq)
 *     .cap(QpCap.builder().maxSendWr(128).maxRecvWr(128).build()).build();
 * QueuePair qp = pd.createQp(init);
 * }</pre>
 *
 * @param qpType the transport type
 * @param sendCq the CQ for send completions (required except for DCT)
 * @param recvCq the CQ for receive completions (required except for DCI)
 * @param srq the shared receive queue, or null (required for DCT)
 * @param cap requested capacities
 * @param sqSigAll if true every send WR is signaled regardless of {@link SendFlag#SIGNALED}
 * @param dcKey the DCT access key (DCT only)
 */
public record QpInitAttr(QpType qpType, CompletionQueue sendCq, CompletionQueue recvCq, SharedReceiveQueue srq,
    QpCap cap, boolean sqSigAll, long dcKey) {

  /**
   * Validates nulls.
   *
   * @throws NullPointerException if qpType or cap is null
   */
  public QpInitAttr {
    Objects.requireNonNull(qpType, "qpType");
    Objects.requireNonNull(cap, "cap");
  }

  /**
   * A builder for {@code type}.
   *
   * @param type the QP type
   * @return the builder
   */
  public static Builder builder(QpType type) {
    return new Builder(type);
  }

  /** Builds a {@link QpInitAttr}. */
  public static final class Builder {
    private final QpType type;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private SharedReceiveQueue srq;
    private QpCap cap = QpCap.DEFAULT;
    private boolean sqSigAll;
    private long dcKey;

    private Builder(QpType type) {
      this.type = Objects.requireNonNull(type, "qpType");
    }

    /**
     * @param cq send CQ
     * @return this
     */
    public Builder sendCq(CompletionQueue cq) {
      sendCq = cq;
      return this;
    }

    /**
     * @param cq receive CQ
     * @return this
     */
    public Builder recvCq(CompletionQueue cq) {
      recvCq = cq;
      return this;
    }

    /**
     * Sets both CQs.
     *
     * @param cq the CQ for sends and receives
     * @return this
     */
    public Builder cq(CompletionQueue cq) {
      sendCq = cq;
      recvCq = cq;
      return this;
    }

    /**
     * @param srq the SRQ, or null
     * @return this
     */
    public Builder srq(SharedReceiveQueue srq) {
      this.srq = srq;
      return this;
    }

    /**
     * @param cap requested capacities
     * @return this
     */
    public Builder cap(QpCap cap) {
      this.cap = cap;
      return this;
    }

    /**
     * @param all signal every send WR
     * @return this
     */
    public Builder sqSigAll(boolean all) {
      sqSigAll = all;
      return this;
    }

    /**
     * @param key the DCT access key
     * @return this
     */
    public Builder dcKey(long key) {
      dcKey = key;
      return this;
    }

    /** @return the attributes */
    public QpInitAttr build() {
      return new QpInitAttr(type, sendCq, recvCq, srq, cap, sqSigAll, dcKey);
    }
  }
}
