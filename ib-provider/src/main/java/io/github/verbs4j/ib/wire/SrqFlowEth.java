package io.github.verbs4j.ib.wire;

import io.github.verbs4j.verbs.spi.wire.Psn;
import io.netty.buffer.ByteBuf;

/**
 * The header of both seed 002 flow-control packets (§3.1–3.2), 8 bytes, big-endian, directly after
 * the BTH; the opcode says which.
 *
 * <ul>
 *   <li>{@link Opcode#SRQ_STOP_REQUEST stop request}: a responder whose shared receive queue is
 *       empty when a request needs a receive WQE drops the request, sends this to its sender instead
 *       of an RNR NAK and sets the sender's bit in the SRQ's retransmission management table. The
 *       BTH carries the requester's QP and the dropped PSN: like an RNR NAK it acknowledges every
 *       PSN before it, and the requester holds its send stream there.
 *   <li>{@link Opcode#SRQ_RESEND_REQUEST resend request}: when the device, polling the SRQ, finds
 *       receive WQEs posted again, it sends one to a sender whose bit is set and clears the bit. The
 *       BTH carries the PSN the stop request named: the requester resumes from it.
 * </ul>
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------+-----------------------------------------------+
 * |    Version    |                 SRQ number                    |  0
 * +---------------+-----------------------------------------------+
 * |             Table slot (node * processes + process)           |  4
 * +---------------------------------------------------------------+
 * </pre>
 *
 * Version is {@link #VERSION}. The table slot is the index of the sender's bit in the responder's
 * table; a stop request sets it and the resend request that clears it carries the same slot, so a
 * trace pairs the two.
 */
public final class SrqFlowEth {
  /** Header length in bytes. */
  public static final int LENGTH = 8;
  /** Version byte, then the 24-bit SRQ number. */
  public static final int VERSION_SRQ_OFFSET = 0;
  /** 32-bit table slot. */
  public static final int SLOT_OFFSET = 4;
  /** The only version. */
  public static final int VERSION = 1;

  private SrqFlowEth() {}

  /**
   * @param b buffer
   * @param off header offset
   * @param srqNum the responder's SRQ number (24 bits)
   * @param slot the sender's bit in the SRQ's table (set by a stop, cleared by a resend)
   */
  public static void write(ByteBuf b, int off, int srqNum, int slot) {
    b.setInt(off + VERSION_SRQ_OFFSET, VERSION << 24 | (srqNum & Psn.MASK));
    b.setInt(off + SLOT_OFFSET, slot);
  }

  /** @param b buffer @param off header offset @return the version byte */
  public static int version(ByteBuf b, int off) {
    return b.getUnsignedByte(off + VERSION_SRQ_OFFSET);
  }

  /** @param b buffer @param off header offset @return the SRQ number */
  public static int srqNum(ByteBuf b, int off) {
    return b.getInt(off + VERSION_SRQ_OFFSET) & Psn.MASK;
  }

  /** @param b buffer @param off header offset @return the table slot */
  public static int slot(ByteBuf b, int off) {
    return b.getInt(off + SLOT_OFFSET);
  }
}
