package io.github.verbs4j.verbs;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A scatter/gather element ({@code struct ibv_sge}): {@code length} bytes at virtual address
 * {@code addr} inside the memory region whose local key is {@code lkey}.
 *
 * <p>Mutable and reusable. The address is a {@link MemoryRegion#iova()}-based address: the
 * virtual address, or for a {@link Access#ZERO_BASED} region the offset from its start. Not
 * thread-safe.
 *
 * <p><b>Buffer SGEs (inline data only).</b> {@link #set(ByteBuffer)} names the bytes of a {@link
 * ByteBuffer} — direct or heap, registered or not — instead of an address: the data source of an
 * {@link SendFlag#INLINE} send, which C programs name by a plain pointer ({@code ibv_post_send(3)}:
 * with IBV_SEND_INLINE the lkey is not checked and the data is copied at post time). The provider
 * copies the bytes during {@code postSend}, so the buffer may be overwritten as soon as the call
 * returns. Rules, checked at post with {@code EINVAL} naming the SGE and the WR index:
 * <ul>
 *   <li>a buffer SGE is valid only in a send WR with {@link SendFlag#INLINE}; without it (and in a
 *       receive WR) it is rejected, because the provider would read or write the memory after the
 *       call returns and it has no lkey: use {@link #set(MemoryRegion, long, int)} for that;
 *   <li>the inline total (every SGE of the WR) is at most the QP's {@code max_inline_data};
 *   <li>an <em>address</em> SGE of an inline WR must lie inside a memory region of this context
 *       (the one its lkey names, else any live one: the lkey itself is not checked). verbs4j never
 *       reads a raw address the application did not hand over as a region or a buffer, so an
 *       address in no region fails at post instead of completing later with {@code LOC_PROT_ERR}.
 * </ul>
 *
 * <pre>{@code
 * ByteBuffer header = ByteBuffer.allocateDirect(64);   // not registered
 * header.putLong(seq).flip();
 * wr.opcode(WrOpcode.SEND).inline(true).sgList().numSge(2);
 * wr.sgList().sge(0).set(header);                      // header.position()..header.limit()
 * wr.sgList().sge(1).set(payloadMr, 0, 128);
 * qp.postSend(wr);                                     // header may be reused now
 * }</pre>
 */
public final class Sge {
  private long addr;
  private int length;
  private int lkey;
  /** Non-null for a buffer SGE: the data is {@code length} bytes at {@code bufferOffset}. */
  private ByteBuffer buffer;
  private int bufferOffset;

  /** Creates an empty SGE. */
  public Sge() {}

  /**
   * Creates an SGE.
   *
   * @param addr start address inside the MR
   * @param length length in bytes (unsigned 32-bit in C; 0 to 2^31-1 here)
   * @param lkey the MR's local key
   */
  public Sge(long addr, int length, int lkey) {
    set(addr, length, lkey);
  }

  /**
   * Sets all fields.
   *
   * @param addr start address
   * @param length length in bytes
   * @param lkey local key
   * @return this
   */
  public Sge set(long addr, int length, int lkey) {
    this.addr = addr;
    this.length = length;
    this.lkey = lkey;
    this.buffer = null;
    this.bufferOffset = 0;
    return this;
  }

  /**
   * Makes this a buffer SGE: the bytes of {@code buffer} from its position to its limit, taken
   * now (the buffer's position and limit are read, never changed; later changes to them do not
   * move this SGE). The bytes themselves are read at post time. Valid only in an {@link
   * SendFlag#INLINE} send WR (see the class comment); {@link #addr()} and {@link #lkey()} become
   * 0. This SGE keeps a reference to the buffer until it is set again.
   *
   * @param buffer a direct or heap buffer, registered or not
   * @return this
   * @throws NullPointerException if buffer is null
   */
  public Sge set(ByteBuffer buffer) {
    Objects.requireNonNull(buffer, "buffer");
    this.addr = 0;
    this.lkey = 0;
    this.length = buffer.remaining();
    this.buffer = buffer;
    this.bufferOffset = buffer.position();
    return this;
  }

  /**
   * Points this SGE at {@code length} bytes at {@code offset} into {@code mr}.
   *
   * @param mr the memory region
   * @param offset offset from the MR start
   * @param length length in bytes
   * @return this
   */
  public Sge set(MemoryRegion mr, long offset, int length) {
    return set(mr.iova() + offset, length, mr.lkey());
  }

  /** @return the start address (0 for a buffer SGE) */
  public long addr() {
    return addr;
  }

  /**
   * Sets the start address; a buffer SGE becomes an address SGE.
   *
   * @param addr the start address
   * @return this
   */
  public Sge addr(long addr) {
    this.addr = addr;
    this.buffer = null;
    this.bufferOffset = 0;
    return this;
  }

  /** @return the buffer of a buffer SGE ({@link #set(ByteBuffer)}), or null for an address SGE */
  public ByteBuffer buffer() {
    return buffer;
  }

  /** @return where a buffer SGE's data starts in its buffer (the position when it was set); 0 otherwise */
  public int bufferOffset() {
    return bufferOffset;
  }

  /** @return the length in bytes */
  public int length() {
    return length;
  }

  /**
   * Sets the length; for a buffer SGE, {@code bufferOffset() + length} must stay within the
   * buffer's capacity (checked at post).
   *
   * @param length the length in bytes
   * @return this
   */
  public Sge length(int length) {
    this.length = length;
    return this;
  }

  /** @return the local key */
  public int lkey() {
    return lkey;
  }

  /**
   * Sets the local key (ignored for a buffer SGE, which is inline data).
   *
   * @param lkey the local key
   * @return this
   */
  public Sge lkey(int lkey) {
    this.lkey = lkey;
    return this;
  }

  /**
   * Copies another SGE's fields into this one.
   *
   * @param other the source
   * @return this
   */
  public Sge copyFrom(Sge other) {
    addr = other.addr;
    length = other.length;
    lkey = other.lkey;
    buffer = other.buffer;
    bufferOffset = other.bufferOffset;
    return this;
  }

  @Override
  public String toString() {
    if (buffer != null) {
      return "Sge{buffer=" + (buffer.isDirect() ? "direct" : "heap") + ", offset=" + bufferOffset + ", length="
          + length + '}';
    }
    return "Sge{addr=0x" + Long.toHexString(addr) + ", length=" + length + ", lkey=0x" + Integer.toHexString(lkey) + '}';
  }
}
