package io.github.verbs4j.ib.wire;

import io.netty.buffer.ByteBuf;

/**
 * RDMA extended transport header (IBTA 9.3.3), 16 bytes, big-endian. Carried by RDMA WRITE
 * FIRST/ONLY and RDMA READ REQUEST; the DMA length is the length of the whole message (FIRST) or of
 * the rest still to transfer (a READ re-requested after a partial response).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |                    Virtual Address (high)                     |  0
 * +---------------------------------------------------------------+
 * |                    Virtual Address (low)                      |  4
 * +---------------------------------------------------------------+
 * |                           R_Key                               |  8
 * +---------------------------------------------------------------+
 * |                         DMA Length                            | 12
 * +---------------------------------------------------------------+
 * </pre>
 */
public final class Reth {
  /** Header length in bytes. */
  public static final int LENGTH = 16;
  /** Virtual address, 64 bits. */
  public static final int VA_OFFSET = 0;
  /** Remote key, 32 bits. */
  public static final int RKEY_OFFSET = 8;
  /** DMA length, unsigned 32 bits. */
  public static final int LENGTH_OFFSET = 12;

  private Reth() {}

  /**
   * @param b buffer
   * @param off RETH offset
   * @param va virtual address
   * @param rkey remote key
   * @param length DMA length
   */
  public static void write(ByteBuf b, int off, long va, int rkey, int length) {
    b.setLong(off + VA_OFFSET, va);
    b.setInt(off + RKEY_OFFSET, rkey);
    b.setInt(off + LENGTH_OFFSET, length);
  }

  /** @param b buffer @param off RETH offset @return the virtual address */
  public static long va(ByteBuf b, int off) {
    return b.getLong(off + VA_OFFSET);
  }

  /** @param b buffer @param off RETH offset @return the remote key */
  public static int rkey(ByteBuf b, int off) {
    return b.getInt(off + RKEY_OFFSET);
  }

  /** @param b buffer @param off RETH offset @return the DMA length, unsigned */
  public static long length(ByteBuf b, int off) {
    return b.getUnsignedInt(off + LENGTH_OFFSET);
  }
}
