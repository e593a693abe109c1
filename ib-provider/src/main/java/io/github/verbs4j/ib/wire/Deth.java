package io.github.verbs4j.ib.wire;

import io.github.verbs4j.verbs.spi.wire.Psn;
import io.netty.buffer.ByteBuf;

/**
 * Datagram extended transport header (IBTA 9.3.2), 8 bytes, big-endian, in every UD packet: the
 * Q_Key the receiver checks and the sender's QP number (reported as {@code src_qp}).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |                            Q_Key                              |  0
 * +---------------+-----------------------------------------------+
 * |    resv8      |               Source QP                       |  4
 * +---------------+-----------------------------------------------+
 * </pre>
 */
public final class Deth {
  /** Header length in bytes. */
  public static final int LENGTH = 8;
  /** Q_Key, 32 bits. */
  public static final int QKEY_OFFSET = 0;
  /** Reserved byte, then the 24-bit source QP. */
  public static final int SRC_QP_OFFSET = 4;

  private Deth() {}

  /** @param b buffer @param off header offset @param qkey Q_Key @param srcQp source QP */
  public static void write(ByteBuf b, int off, int qkey, int srcQp) {
    b.setInt(off + QKEY_OFFSET, qkey);
    b.setInt(off + SRC_QP_OFFSET, srcQp & Psn.MASK);
  }

  /** @param b buffer @param off header offset @return the Q_Key */
  public static int qkey(ByteBuf b, int off) {
    return b.getInt(off + QKEY_OFFSET);
  }

  /** @param b buffer @param off header offset @return the source QP */
  public static int srcQp(ByteBuf b, int off) {
    return b.getInt(off + SRC_QP_OFFSET) & Psn.MASK;
  }
}
