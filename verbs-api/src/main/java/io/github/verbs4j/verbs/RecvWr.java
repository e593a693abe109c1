package io.github.verbs4j.verbs;

/**
 * A receive work request ({@code struct ibv_recv_wr}), posted with {@link QueuePair#postRecv} or
 * {@link SharedReceiveQueue#postRecv}.
 *
 * <p>Mutable and reusable: the provider copies what it needs during the post call, so the WR
 * object may be changed and posted again as soon as {@code postRecv} returns. The <em>buffers</em>
 * its SGEs describe belong to the provider until the matching completion is polled. WRs chain
 * through {@link #next()} exactly as in C.
 *
 * <pre>{@code
 * RecvWr wr = new RecvWr().wrId(7).sge(mr, 0, 4096);
 * qp.postRecv(wr);
 * }</pre>
 */
public final class RecvWr {
  private long wrId;
  private RecvWr next;
  private final ScatterList sgList = new ScatterList(1);

  /** Creates an empty WR (no SGEs). */
  public RecvWr() {}

  /** @return the caller's identifier, returned in the completion */
  public long wrId() {
    return wrId;
  }

  /**
   * @param wrId the caller's identifier, returned in the completion
   * @return this
   */
  public RecvWr wrId(long wrId) {
    this.wrId = wrId;
    return this;
  }

  /** @return the next WR in the chain, or null */
  public RecvWr next() {
    return next;
  }

  /**
   * @param next the next WR in the chain, or null
   * @return this
   */
  public RecvWr next(RecvWr next) {
    this.next = next;
    return this;
  }

  /** @return the scatter list */
  public ScatterList sgList() {
    return sgList;
  }

  /** @return the number of SGEs */
  public int numSge() {
    return sgList.numSge();
  }

  /**
   * Replaces the scatter list with one SGE covering {@code length} bytes at {@code offset} of
   * {@code mr}.
   *
   * @param mr the memory region
   * @param offset offset from the MR start
   * @param length length in bytes
   * @return this
   */
  public RecvWr sge(MemoryRegion mr, long offset, int length) {
    sgList.numSge(1);
    sgList.sge(0).set(mr, offset, length);
    return this;
  }

  /**
   * Replaces the scatter list with copies of {@code sges}.
   *
   * @param sges the SGEs (may be empty)
   * @return this
   */
  public RecvWr sgList(Sge... sges) {
    sgList.setAll(sges);
    return this;
  }
}
