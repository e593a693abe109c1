package io.github.verbs4j.ib.wire;

import io.netty.buffer.ByteBuf;

/**
 * Atomic extended transport header (IBTA 9.3.4), 28 bytes, big-endian, carried by COMPARE_SWAP
 * and FETCH_ADD. The operands travel in network order; the responder applies them to the
 * little-endian 8-byte word in memory (verbs4j's byte-order choice, CONFORMANCE.md).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |                 Virtual Address (64 bits)                     |  0
 * +                                                               +
 * |                                                               |  4
 * +---------------------------------------------------------------+
 * |                           R_Key                               |  8
 * +---------------------------------------------------------------+
 * |               Swap (CMP_SWAP) or Add (FETCH_ADD) Data         | 12
 * +                         (64 bits)                             +
 * |                                                               | 16
 * +---------------------------------------------------------------+
 * |                  Compare Data (64 bits)                       | 20
 * +                                                               +
 * |                                                               | 24
 * +---------------------------------------------------------------+
 * </pre>
 */
public final class AtomicEth {
  /** Header length in bytes. */
  public static final int LENGTH = 28;
  /** Virtual address, 64 bits, 8-byte aligned. */
  public static final int VA_OFFSET = 0;
  /** Remote key. */
  public static final int RKEY_OFFSET = 8;
  /** Swap value (COMPARE_SWAP) or addend (FETCH_ADD). */
  public static final int SWAP_ADD_OFFSET = 12;
  /** Compare value (COMPARE_SWAP). */
  public static final int COMPARE_OFFSET = 20;

  private AtomicEth() {}

  /**
   * @param b buffer
   * @param off AtomicETH offset
   * @param va remote address
   * @param rkey remote key
   * @param swapAdd swap value or addend
   * @param compare compare value
   */
  public static void write(ByteBuf b, int off, long va, int rkey, long swapAdd, long compare) {
    b.setLong(off + VA_OFFSET, va);
    b.setInt(off + RKEY_OFFSET, rkey);
    b.setLong(off + SWAP_ADD_OFFSET, swapAdd);
    b.setLong(off + COMPARE_OFFSET, compare);
  }

  /** @param b buffer @param off header offset @return the virtual address */
  public static long va(ByteBuf b, int off) {
    return b.getLong(off + VA_OFFSET);
  }

  /** @param b buffer @param off header offset @return the remote key */
  public static int rkey(ByteBuf b, int off) {
    return b.getInt(off + RKEY_OFFSET);
  }

  /** @param b buffer @param off header offset @return the swap value or addend */
  public static long swapAdd(ByteBuf b, int off) {
    return b.getLong(off + SWAP_ADD_OFFSET);
  }

  /** @param b buffer @param off header offset @return the compare value */
  public static long compare(ByteBuf b, int off) {
    return b.getLong(off + COMPARE_OFFSET);
  }
}
