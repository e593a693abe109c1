package io.github.verbs4j.examples.mp;

import java.nio.ByteBuffer;

/**
 * The CONNECT datagram of on-demand connections, sent on the communicators' UD control QPs.
 * Little-endian, 36 bytes.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |    version    |  kind         |     flags     |  (reserved)   |  0
 * +---------------+---------------+---------------+---------------+
 * |                      sender's rank                            |  4
 * +---------------------------------------------------------------+
 * |                      epoch of the pair                        |  8
 * +---------------------------------------------------------------+
 * |                      sender's LID                             | 12
 * +---------------------------------------------------------------+
 * |                      sender's RC QP number                    | 16
 * +---------------------------------------------------------------+
 * |                      sender's first PSN                       | 20
 * +---------------------------------------------------------------+
 * |                      sender's MTU (bytes)                     | 24
 * +---------------------------------------------------------------+
 * |                      sender's read depth                      | 28
 * +---------------------------------------------------------------+
 * |                      sender's UD QP number                    | 32
 * +---------------------------------------------------------------+
 * </pre>
 *
 * Flags: bit 0, RTS, says the sender's RC QP is already at RTS, so the receiver may send on its
 * own as soon as it has connected; bit 1, CONFIRMED, says the sender knows the receiver's QP is at
 * RTS too (it is {@link Peer.State#OPEN} or later), so the datagram needs no answer. Any other
 * CONNECT is answered, so a lost answer is made good by the sender's next resend.
 */
final class ControlWire {
  static final byte VERSION = 1;
  static final int CONNECT = 1;
  static final int FLAG_RTS = 1;
  static final int FLAG_CONFIRMED = 2;
  static final int KIND_OFFSET = 1;
  static final int FLAGS_OFFSET = 2;
  static final int RANK_OFFSET = 4;
  static final int EPOCH_OFFSET = 8;
  static final int LID_OFFSET = 12;
  static final int QPN_OFFSET = 16;
  static final int PSN_OFFSET = 20;
  static final int MTU_OFFSET = 24;
  static final int OUT_READS_OFFSET = 28;
  static final int UD_QPN_OFFSET = 32;
  static final int LENGTH = 36;

  private ControlWire() {}

  static void writeConnect(ByteBuffer b, int at, boolean rts, boolean confirmed, int rank, int epoch, int lid, int qpn,
      int psn, int mtu, int outReads, int udQpn) {
    b.put(at, VERSION);
    b.put(at + KIND_OFFSET, (byte) CONNECT);
    b.put(at + FLAGS_OFFSET, (byte) ((rts ? FLAG_RTS : 0) | (confirmed ? FLAG_CONFIRMED : 0)));
    b.put(at + 3, (byte) 0);
    b.putInt(at + RANK_OFFSET, rank);
    b.putInt(at + EPOCH_OFFSET, epoch);
    b.putInt(at + LID_OFFSET, lid);
    b.putInt(at + QPN_OFFSET, qpn);
    b.putInt(at + PSN_OFFSET, psn);
    b.putInt(at + MTU_OFFSET, mtu);
    b.putInt(at + OUT_READS_OFFSET, outReads);
    b.putInt(at + UD_QPN_OFFSET, udQpn);
  }
}
