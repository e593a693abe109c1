package io.github.verbs4j.ib.wire;

import io.netty.buffer.ByteBuf;

/**
 * Immediate data extended transport header (IBTA 9.3.7), 4 bytes. The value is opaque: the WR's
 * {@code imm_data} (already in network order, as C's) is written as the 32-bit big-endian field
 * and delivered unchanged in the receive completion.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |                        Immediate Data                         |  0
 * +---------------------------------------------------------------+
 * </pre>
 */
public final class ImmDt {
  /** Header length in bytes. */
  public static final int LENGTH = 4;
  /** The immediate value. */
  public static final int IMM_OFFSET = 0;

  private ImmDt() {}

  /** @param b buffer @param off header offset @param imm the immediate value */
  public static void write(ByteBuf b, int off, int imm) {
    b.setInt(off + IMM_OFFSET, imm);
  }

  /** @param b buffer @param off header offset @return the immediate value */
  public static int imm(ByteBuf b, int off) {
    return b.getInt(off + IMM_OFFSET);
  }
}
