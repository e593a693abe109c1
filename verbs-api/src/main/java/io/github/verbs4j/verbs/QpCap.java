package io.github.verbs4j.verbs;

/**
 * Work queue capacities ({@code struct ibv_qp_cap}). At creation these are requests; the QP
 * reports the actual values (at least those requested) through {@link QueuePair#cap()}.
 *
 * @param maxSendWr send queue depth
 * @param maxRecvWr receive queue depth (0 with an SRQ, and for DCI)
 * @param maxSendSge SGEs per send WR
 * @param maxRecvSge SGEs per receive WR
 * @param maxInlineData bytes that may be sent with {@link SendFlag#INLINE}
 */
public record QpCap(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {
  /** The capacities pyverbs uses by default: 1000 WRs, 1 SGE each way, no inline. */
  public static final QpCap DEFAULT = builder().maxSendWr(1000).maxRecvWr(1000).build();

  /**
   * A builder starting at 1 SGE each way and no WRs.
   *
   * @return the builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link QpCap} by name, not position. */
  public static final class Builder {
    private int maxSendWr;
    private int maxRecvWr;
    private int maxSendSge = 1;
    private int maxRecvSge = 1;
    private int maxInlineData;

    private Builder() {}

    /**
     * @param n send queue depth
     * @return this
     */
    public Builder maxSendWr(int n) {
      maxSendWr = n;
      return this;
    }

    /**
     * @param n receive queue depth
     * @return this
     */
    public Builder maxRecvWr(int n) {
      maxRecvWr = n;
      return this;
    }

    /**
     * @param n SGEs per send WR
     * @return this
     */
    public Builder maxSendSge(int n) {
      maxSendSge = n;
      return this;
    }

    /**
     * @param n SGEs per receive WR
     * @return this
     */
    public Builder maxRecvSge(int n) {
      maxRecvSge = n;
      return this;
    }

    /**
     * @param n inline bytes
     * @return this
     */
    public Builder maxInlineData(int n) {
      maxInlineData = n;
      return this;
    }

    /** @return the capacities */
    public QpCap build() {
      return new QpCap(maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInlineData);
    }
  }
}
