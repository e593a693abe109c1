package io.github.verbs4j.ib.wire;

import io.github.verbs4j.verbs.spi.RnrTimer;
import io.github.verbs4j.verbs.spi.wire.Psn;
import io.netty.buffer.ByteBuf;

/**
 * ACK extended transport header (IBTA 9.3.5), 4 bytes, big-endian: an 8-bit syndrome and the
 * responder's 24-bit message sequence number.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+---+---------+-----------------------------------------------+
 * |0|Typ|  Value  |           Message Sequence Number             |  0
 * +-+---+---------+-----------------------------------------------+
 * </pre>
 *
 * Type 0 = ACK (value = credit count, {@link #CREDITS_INVALID} = not tracked), 1 = RNR NAK (value =
 * RNR timer code, see {@link RnrTimer}), 3 = NAK (value = {@link #NAK_PSN_SEQUENCE_ERROR} ..
 * {@link #NAK_REMOTE_OPERATIONAL_ERROR}).
 */
public final class Aeth {
  /** Header length in bytes. */
  public static final int LENGTH = 4;
  /** Syndrome byte. */
  public static final int SYNDROME_OFFSET = 0;
  /** 24-bit MSN (in the low bits of the word at offset 0). */
  public static final int MSN_OFFSET = 0;

  /** Type bits of the syndrome. */
  public static final int TYPE_MASK = 0x60;
  /** Value bits of the syndrome. */
  public static final int VALUE_MASK = 0x1F;
  /** Type: positive acknowledgement. */
  public static final int TYPE_ACK = 0x00;
  /** Type: receiver not ready. */
  public static final int TYPE_RNR_NAK = 0x20;
  /** Type: reserved. */
  public static final int TYPE_RESERVED = 0x40;
  /** Type: negative acknowledgement. */
  public static final int TYPE_NAK = 0x60;
  /** ACK credit value meaning "end-to-end credits not tracked". */
  public static final int CREDITS_INVALID = 0x1F;
  /** NAK code: PSN sequence error (a gap). */
  public static final int NAK_PSN_SEQUENCE_ERROR = 0;
  /** NAK code: invalid request. */
  public static final int NAK_INVALID_REQUEST = 1;
  /** NAK code: remote access error. */
  public static final int NAK_REMOTE_ACCESS_ERROR = 2;
  /** NAK code: remote operational error. */
  public static final int NAK_REMOTE_OPERATIONAL_ERROR = 3;
  /** The syndrome of a plain ACK as the simulated HCA sends it. */
  public static final int SYNDROME_ACK = TYPE_ACK | CREDITS_INVALID;

  private Aeth() {}

  /**
   * @param b buffer
   * @param off AETH offset
   * @param syndrome the syndrome
   * @param msn the MSN (24 bits)
   */
  public static void write(ByteBuf b, int off, int syndrome, int msn) {
    b.setInt(off, (syndrome & 0x7F) << 24 | (msn & Psn.MASK));
  }

  /** @param b buffer @param off AETH offset @return the syndrome */
  public static int syndrome(ByteBuf b, int off) {
    return b.getUnsignedByte(off + SYNDROME_OFFSET);
  }

  /** @param b buffer @param off AETH offset @return the MSN */
  public static int msn(ByteBuf b, int off) {
    return b.getInt(off + MSN_OFFSET) & Psn.MASK;
  }

  /** @param syndrome a syndrome @return its type bits */
  public static int type(int syndrome) {
    return syndrome & TYPE_MASK;
  }

  /** @param syndrome a syndrome @return its value bits */
  public static int value(int syndrome) {
    return syndrome & VALUE_MASK;
  }

  /** @param timerCode RNR timer code 0..31 @return an RNR NAK syndrome */
  public static int rnrNak(int timerCode) {
    return TYPE_RNR_NAK | (timerCode & VALUE_MASK);
  }

  /** @param code NAK code @return a NAK syndrome */
  public static int nak(int code) {
    return TYPE_NAK | (code & VALUE_MASK);
  }
}
