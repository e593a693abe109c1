package io.github.verbs4j.verbs;

/**
 * A scatter/gather element ({@code struct ibv_sge}): {@code length} bytes at virtual address
 * {@code addr} inside the memory region whose local key is {@code lkey}.
 *
 * <p>Mutable and reusable. The address is a {@link MemoryRegion#iova()}-based address: the
 * virtual address, or for a {@link Access#ZERO_BASED} region the offset from its start. Not
 * thread-safe.
 */
public final class Sge {
  private long addr;
  private int length;
  private int lkey;

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

  /** @return the start address */
  public long addr() {
    return addr;
  }

  /**
   * @param addr the start address
   * @return this
   */
  public Sge addr(long addr) {
    this.addr = addr;
    return this;
  }

  /** @return the length in bytes */
  public int length() {
    return length;
  }

  /**
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
    return set(other.addr, other.length, other.lkey);
  }

  @Override
  public String toString() {
    return "Sge{addr=0x" + Long.toHexString(addr) + ", length=" + length + ", lkey=0x" + Integer.toHexString(lkey) + '}';
  }
}
