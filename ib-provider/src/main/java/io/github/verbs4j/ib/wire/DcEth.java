package io.github.verbs4j.ib.wire;

import io.github.verbs4j.verbs.spi.wire.Psn;
import io.netty.buffer.ByteBuf;

/**
 * verbs4j DC extended transport header, 16 bytes, big-endian, directly after the BTH of every DC
 * request (opcodes of the {@link Opcode.Transport#DC} transport). It carries what mlx5's DC
 * transport keeps in hardware: the 64-bit DC access key the DCT checks (a mismatch is dropped and
 * counted, never NAKed: the initiator is untrusted), the DCI's QP number (where responses go, and
 * {@code src_qp} of receive completions), and the connection epoch: a DCI starts a new epoch
 * (generation + first PSN) each time it moves to another DCT, so the DCT can create or reset its
 * per-initiator context without a handshake ("half handshake").
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |                     DC Access Key (64 bits)                   |  0
 * +                                                               +
 * |                                                               |  4
 * +---------------+-----------------------------------------------+
 * |  Generation   |              Source DCI QP                    |  8
 * +---------------+-----------------------------------------------+
 * |    resv8      |          First PSN of the epoch               | 12
 * +---------------+-----------------------------------------------+
 * </pre>
 */
public final class DcEth {
  /** Header length in bytes. */
  public static final int LENGTH = 16;
  /** DC access key, 64 bits. */
  public static final int DC_KEY_OFFSET = 0;
  /** Generation byte, then the 24-bit DCI QP number. */
  public static final int GEN_SRC_QP_OFFSET = 8;
  /** Reserved byte, then the 24-bit first PSN of the connection epoch. */
  public static final int EPOCH_PSN_OFFSET = 12;

  private DcEth() {}

  /**
   * @param b buffer
   * @param off header offset
   * @param dcKey DC access key
   * @param generation connection generation 0..255
   * @param srcQp the DCI's QP number
   * @param epochPsn the first PSN of this connection epoch
   */
  public static void write(ByteBuf b, int off, long dcKey, int generation, int srcQp, int epochPsn) {
    b.setLong(off + DC_KEY_OFFSET, dcKey);
    b.setInt(off + GEN_SRC_QP_OFFSET, (generation & 0xFF) << 24 | (srcQp & Psn.MASK));
    b.setInt(off + EPOCH_PSN_OFFSET, epochPsn & Psn.MASK);
  }

  /** @param b buffer @param off header offset @return the DC access key */
  public static long dcKey(ByteBuf b, int off) {
    return b.getLong(off + DC_KEY_OFFSET);
  }

  /** @param b buffer @param off header offset @return the connection generation */
  public static int generation(ByteBuf b, int off) {
    return b.getUnsignedByte(off + GEN_SRC_QP_OFFSET);
  }

  /** @param b buffer @param off header offset @return the DCI's QP number */
  public static int srcQp(ByteBuf b, int off) {
    return b.getInt(off + GEN_SRC_QP_OFFSET) & Psn.MASK;
  }

  /** @param b buffer @param off header offset @return the first PSN of the epoch */
  public static int epochPsn(ByteBuf b, int off) {
    return b.getInt(off + EPOCH_PSN_OFFSET) & Psn.MASK;
  }
}
