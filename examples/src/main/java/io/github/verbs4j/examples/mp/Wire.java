package io.github.verbs4j.examples.mp;

import java.nio.ByteBuffer;

/**
 * The header of every message the verbs communicator sends through its eager slots (SEND/RECV).
 * Little-endian, 40 bytes, followed by the payload of an EAGER message.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |    version    |  kind         |  context      |   (reserved)  |  0
 * +---------------+---------------+---------------+---------------+
 * |                     credits returned                          |  4
 * +---------------------------------------------------------------+
 * |                            tag                                |  8
 * +---------------------------------------------------------------+
 * |                   message length (bytes)                      | 12
 * +---------------------------------------------------------------+
 * |                   sender's request id                         | 16
 * +---------------------------------------------------------------+
 * |                   receiver's request id                       | 20
 * +---------------------------------------------------------------+
 * |                   buffer address (64 bits)                    | 24
 * +                                                               +
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                         rkey                                  | 32
 * +---------------------------------------------------------------+
 * |                     sender's rank                             | 36
 * +---------------------------------------------------------------+
 * |                   payload (EAGER only) ...                    | 40
 * </pre>
 *
 * Kinds: EAGER carries the message; RTS announces a rendezvous message (in READ mode with the
 * sender's address and rkey); CTS answers with the receiver's address and rkey (WRITE mode);
 * FIN ends a rendezvous; CREDIT only returns credits; CLOSE is a side's last message on a link
 * that is being closed (on-demand connections), sent once its sends and RDMA have completed.
 * SWITCH, SWITCH_ACK and SWITCH_NACK are the hybrid's markers on the DC channel ({@link
 * HybridSwitch}): SWITCH and SWITCH_ACK carry the sender's RC QP address (LID in the sender's
 * request id, QPN in the tag, PSN in the length, read depth in the receiver's request id, MTU in
 * the rkey) and are the sender's last message on the DC channel to that peer. RING_OFFER gives the
 * peer a ring to write its messages into with RDMA over DC (address, rkey, the ring's index in the
 * tag). FENCE is a round message of the barrier a closing communicator runs once its sends have
 * completed; like CREDIT and CLOSE it needs no credit, as none are returned any more.
 */
final class Wire {
  static final byte VERSION = 2;
  static final int VERSION_OFFSET = 0;
  static final int KIND_OFFSET = 1;
  static final int CONTEXT_OFFSET = 2;
  static final int CREDITS_OFFSET = 4;
  static final int TAG_OFFSET = 8;
  static final int LENGTH_OFFSET = 12;
  static final int SENDER_ID_OFFSET = 16;
  static final int RECEIVER_ID_OFFSET = 20;
  static final int ADDR_OFFSET = 24;
  static final int RKEY_OFFSET = 32;
  /** The sender's rank: with shared receive buffers a buffer belongs to no peer. */
  static final int SOURCE_OFFSET = 36;
  static final int HEADER_LENGTH = 40;

  static final int EAGER = 1;
  static final int RTS = 2;
  static final int CTS = 3;
  static final int FIN = 4;
  static final int CREDIT = 5;
  static final int CLOSE = 6;
  static final int SWITCH = 7;
  static final int SWITCH_ACK = 8;
  static final int SWITCH_NACK = 9;
  static final int RING_OFFER = 10;
  static final int FENCE = 11;

  private Wire() {}

  static void write(ByteBuffer b, int at, int kind, int context, int credits, int tag, int length, int senderId,
      int receiverId, long addr, int rkey, int source) {
    b.put(at + VERSION_OFFSET, VERSION);
    b.put(at + KIND_OFFSET, (byte) kind);
    b.put(at + CONTEXT_OFFSET, (byte) context);
    b.put(at + 3, (byte) 0);
    b.putInt(at + CREDITS_OFFSET, credits);
    b.putInt(at + TAG_OFFSET, tag);
    b.putInt(at + LENGTH_OFFSET, length);
    b.putInt(at + SENDER_ID_OFFSET, senderId);
    b.putInt(at + RECEIVER_ID_OFFSET, receiverId);
    b.putLong(at + ADDR_OFFSET, addr);
    b.putInt(at + RKEY_OFFSET, rkey);
    b.putInt(at + SOURCE_OFFSET, source);
  }

  static int version(ByteBuffer b, int at) {
    return b.get(at + VERSION_OFFSET);
  }

  static int kind(ByteBuffer b, int at) {
    return b.get(at + KIND_OFFSET);
  }

  static int context(ByteBuffer b, int at) {
    return b.get(at + CONTEXT_OFFSET);
  }

  static int credits(ByteBuffer b, int at) {
    return b.getInt(at + CREDITS_OFFSET);
  }

  static int tag(ByteBuffer b, int at) {
    return b.getInt(at + TAG_OFFSET);
  }

  static int length(ByteBuffer b, int at) {
    return b.getInt(at + LENGTH_OFFSET);
  }

  static int senderId(ByteBuffer b, int at) {
    return b.getInt(at + SENDER_ID_OFFSET);
  }

  static int receiverId(ByteBuffer b, int at) {
    return b.getInt(at + RECEIVER_ID_OFFSET);
  }

  static long addr(ByteBuffer b, int at) {
    return b.getLong(at + ADDR_OFFSET);
  }

  static int source(ByteBuffer b, int at) {
    return b.getInt(at + SOURCE_OFFSET);
  }

  static int rkey(ByteBuffer b, int at) {
    return b.getInt(at + RKEY_OFFSET);
  }
}
