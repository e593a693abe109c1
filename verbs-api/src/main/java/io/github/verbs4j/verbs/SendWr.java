package io.github.verbs4j.verbs;

/**
 * A send work request ({@code struct ibv_send_wr}), posted with {@link QueuePair#postSend}.
 *
 * <p>Mutable and reusable: the provider copies the WR during the post call, so this object may be
 * changed and posted again as soon as {@code postSend} returns. The data buffers follow {@code
 * ibv_post_send(3)}: with {@link SendFlag#INLINE} the data is copied at post time and the buffer
 * is free when the call returns (the lkey is not checked); otherwise the buffer belongs to the
 * provider until the WR's completion is polled (or, for an unsignaled WR, until a later signaled
 * WR of the same QP completes).
 *
 * <p><b>Inline data from unregistered memory.</b> An inline WR's SGEs may name a {@link
 * java.nio.ByteBuffer} ({@link #sge(java.nio.ByteBuffer)}, {@link Sge#set(java.nio.ByteBuffer)}),
 * direct or heap, registered or not; its bytes from position to limit are copied at post. An
 * inline WR's <em>address</em> SGEs must lie in a memory region of the context (their lkey is not
 * checked). Errors, all {@code EINVAL} at post naming the SGE and {@code (wr #i)}: a buffer SGE
 * without INLINE; an inline address SGE in no region; an inline total above {@code
 * max_inline_data}. Reusing one WR and one buffer allocates nothing per post.
 *
 * <p>The destination fields mirror C's unions: {@link #rdma} for RDMA READ/WRITE, {@link #atomic}
 * for atomics, {@link #ud} for UD sends and {@link #dc} for DCI sends. Atomic operands are Java
 * {@code long}s; the remote 8-byte word is little-endian in memory. The immediate value is the
 * 32-bit big-endian ("network order") value as C's {@code imm_data}; use {@link #htonl(int)}.
 *
 * <pre>{@code
 * SendWr wr = new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).signaled(true)
 *     .sge(localMr, 0, 4096).rdma(remoteAddr, remoteRkey);
 * qp.postSend(wr);
 * }</pre>
 */
public final class SendWr {
  private long wrId;
  private SendWr next;
  private final ScatterList sgList = new ScatterList(1);
  private WrOpcode opcode = WrOpcode.SEND;
  private int sendFlags;
  private int immData;
  private int invalidateRkey;
  private long remoteAddr;
  private int rkey;
  private long compareAdd;
  private long swap;
  private AddressHandle ah;
  private int remoteQpn;
  private int remoteQkey;
  private int remoteDctn;
  private long dcKey;

  /** Creates a SEND WR with no SGEs and no flags. */
  public SendWr() {}

  /** @return the caller's identifier, returned in the completion */
  public long wrId() {
    return wrId;
  }

  /**
   * @param wrId the caller's identifier
   * @return this
   */
  public SendWr wrId(long wrId) {
    this.wrId = wrId;
    return this;
  }

  /** @return the next WR in the chain, or null */
  public SendWr next() {
    return next;
  }

  /**
   * @param next the next WR in the chain, or null
   * @return this
   */
  public SendWr next(SendWr next) {
    this.next = next;
    return this;
  }

  /** @return the gather list */
  public ScatterList sgList() {
    return sgList;
  }

  /** @return the number of SGEs */
  public int numSge() {
    return sgList.numSge();
  }

  /**
   * Replaces the gather list with one SGE of {@code length} bytes at {@code offset} of {@code mr}.
   *
   * @param mr the memory region
   * @param offset offset from the MR start
   * @param length length in bytes
   * @return this
   */
  public SendWr sge(MemoryRegion mr, long offset, int length) {
    sgList.numSge(1);
    sgList.sge(0).set(mr, offset, length);
    return this;
  }

  /**
   * Replaces the gather list with one buffer SGE: the bytes of {@code buffer} from its position to
   * its limit (not changed), for an {@link SendFlag#INLINE} WR only; see {@link
   * Sge#set(java.nio.ByteBuffer)}.
   *
   * @param buffer a direct or heap buffer, registered or not
   * @return this
   */
  public SendWr sge(java.nio.ByteBuffer buffer) {
    sgList.numSge(1);
    sgList.sge(0).set(buffer);
    return this;
  }

  /**
   * Replaces the gather list with copies of {@code sges}.
   *
   * @param sges the SGEs (may be empty: a zero-length message)
   * @return this
   */
  public SendWr sgList(Sge... sges) {
    sgList.setAll(sges);
    return this;
  }

  /** @return the opcode */
  public WrOpcode opcode() {
    return opcode;
  }

  /**
   * @param opcode the operation
   * @return this
   */
  public SendWr opcode(WrOpcode opcode) {
    this.opcode = java.util.Objects.requireNonNull(opcode, "opcode");
    return this;
  }

  /** @return the {@link SendFlag} mask */
  public int sendFlags() {
    return sendFlags;
  }

  /**
   * @param mask a {@link SendFlag} mask
   * @return this
   */
  public SendWr sendFlags(int mask) {
    this.sendFlags = mask;
    return this;
  }

  /**
   * @param flag a flag
   * @return whether it is set
   */
  public boolean hasFlag(SendFlag flag) {
    return (sendFlags & flag.value()) != 0;
  }

  private SendWr flag(SendFlag flag, boolean on) {
    sendFlags = on ? sendFlags | flag.value() : sendFlags & ~flag.value();
    return this;
  }

  /**
   * @param on set or clear {@link SendFlag#SIGNALED}
   * @return this
   */
  public SendWr signaled(boolean on) {
    return flag(SendFlag.SIGNALED, on);
  }

  /**
   * @param on set or clear {@link SendFlag#INLINE}
   * @return this
   */
  public SendWr inline(boolean on) {
    return flag(SendFlag.INLINE, on);
  }

  /**
   * @param on set or clear {@link SendFlag#FENCE}
   * @return this
   */
  public SendWr fence(boolean on) {
    return flag(SendFlag.FENCE, on);
  }

  /**
   * @param on set or clear {@link SendFlag#SOLICITED}
   * @return this
   */
  public SendWr solicited(boolean on) {
    return flag(SendFlag.SOLICITED, on);
  }

  /** @return the immediate data, network byte order as in C */
  public int immData() {
    return immData;
  }

  /**
   * @param immData the immediate data in network byte order (see {@link #htonl(int)})
   * @return this
   */
  public SendWr immData(int immData) {
    this.immData = immData;
    return this;
  }

  /** @return the rkey to invalidate for SEND_WITH_INV */
  public int invalidateRkey() {
    return invalidateRkey;
  }

  /**
   * @param rkey the rkey the responder invalidates (SEND_WITH_INV)
   * @return this
   */
  public SendWr invalidateRkey(int rkey) {
    this.invalidateRkey = rkey;
    return this;
  }

  /**
   * Sets the RDMA destination ({@code wr.rdma}).
   *
   * @param remoteAddr remote virtual address
   * @param rkey remote key
   * @return this
   */
  public SendWr rdma(long remoteAddr, int rkey) {
    this.remoteAddr = remoteAddr;
    this.rkey = rkey;
    return this;
  }

  /**
   * Sets the atomic operands ({@code wr.atomic}).
   *
   * @param remoteAddr remote address, 8-byte aligned
   * @param rkey remote key
   * @param compareAdd the compare value (CMP_AND_SWP) or the addend (FETCH_AND_ADD)
   * @param swap the swap value (CMP_AND_SWP)
   * @return this
   */
  public SendWr atomic(long remoteAddr, int rkey, long compareAdd, long swap) {
    this.remoteAddr = remoteAddr;
    this.rkey = rkey;
    this.compareAdd = compareAdd;
    this.swap = swap;
    return this;
  }

  /**
   * Sets the UD destination ({@code wr.ud}).
   *
   * @param ah the address handle
   * @param remoteQpn the destination QP number
   * @param remoteQkey the Q_Key (if its most significant bit is set, the QP's own Q_Key is sent)
   * @return this
   */
  public SendWr ud(AddressHandle ah, int remoteQpn, int remoteQkey) {
    this.ah = ah;
    this.remoteQpn = remoteQpn;
    this.remoteQkey = remoteQkey;
    return this;
  }

  /**
   * Sets the DC destination (mlx5dv {@code wr_set_dc_addr}).
   *
   * @param ah the address handle of the target node
   * @param remoteDctn the DCT number
   * @param dcKey the DCT's access key
   * @return this
   */
  public SendWr dc(AddressHandle ah, int remoteDctn, long dcKey) {
    this.ah = ah;
    this.remoteDctn = remoteDctn;
    this.dcKey = dcKey;
    return this;
  }

  /** @return the remote address (RDMA or atomic) */
  public long remoteAddr() {
    return remoteAddr;
  }

  /** @return the remote key (RDMA or atomic) */
  public int rkey() {
    return rkey;
  }

  /** @return compare value or addend */
  public long compareAdd() {
    return compareAdd;
  }

  /** @return swap value */
  public long swap() {
    return swap;
  }

  /** @return the address handle (UD, DC) */
  public AddressHandle ah() {
    return ah;
  }

  /** @return the destination QPN (UD) */
  public int remoteQpn() {
    return remoteQpn;
  }

  /** @return the Q_Key (UD) */
  public int remoteQkey() {
    return remoteQkey;
  }

  /** @return the DCT number (DC) */
  public int remoteDctn() {
    return remoteDctn;
  }

  /** @return the DC access key (DC) */
  public long dcKey() {
    return dcKey;
  }

  /**
   * Copies every field except {@code next} from {@code other}.
   *
   * @param other the source
   * @return this
   */
  public SendWr copyFrom(SendWr other) {
    wrId = other.wrId;
    sgList.copyFrom(other.sgList);
    opcode = other.opcode;
    sendFlags = other.sendFlags;
    immData = other.immData;
    invalidateRkey = other.invalidateRkey;
    remoteAddr = other.remoteAddr;
    rkey = other.rkey;
    compareAdd = other.compareAdd;
    swap = other.swap;
    ah = other.ah;
    remoteQpn = other.remoteQpn;
    remoteQkey = other.remoteQkey;
    remoteDctn = other.remoteDctn;
    dcKey = other.dcKey;
    return this;
  }

  /**
   * Host to network byte order for a 32-bit value (C's {@code htonl}); Java ints are big-endian
   * in value, so this swaps bytes exactly as on a little-endian host.
   *
   * @param hostValue the host value
   * @return the value in network byte order
   */
  public static int htonl(int hostValue) {
    return Integer.reverseBytes(hostValue);
  }

  /**
   * Network to host byte order (C's {@code ntohl}).
   *
   * @param netValue the network-order value
   * @return the host value
   */
  public static int ntohl(int netValue) {
    return Integer.reverseBytes(netValue);
  }
}
