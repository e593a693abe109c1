package io.github.verbs4j.ib.wire;

import io.netty.buffer.ByteBuf;

/**
 * Atomic acknowledge extended transport header (IBTA 9.3.6), 8 bytes, big-endian: the value the
 * remote word held before the atomic. Follows the AETH in ATOMIC_ACKNOWLEDGE.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |                 Original Remote Data (64 bits)                |  0
 * +                                                               +
 * |                                                               |  4
 * +---------------------------------------------------------------+
 * </pre>
 */
public final class AtomicAckEth {
  /** Header length in bytes. */
  public static final int LENGTH = 8;
  /** Original remote value, 64 bits. */
  public static final int ORIG_OFFSET = 0;

  private AtomicAckEth() {}

  /** @param b buffer @param off header offset @param orig the original remote value */
  public static void write(ByteBuf b, int off, long orig) {
    b.setLong(off + ORIG_OFFSET, orig);
  }

  /** @param b buffer @param off header offset @return the original remote value */
  public static long orig(ByteBuf b, int off) {
    return b.getLong(off + ORIG_OFFSET);
  }
}
