package io.github.verbs4j.tca.verbs;

/**
 * Where the packet rings live. Every context reserves, at the very start of its node's {@code
 * tcaMalloc} pool, one <b>receive area</b> per possible peer node (the node itself included, for
 * loopback), so that a sender computes the address of its rings at any node without a handshake,
 * as a driver that reserves them at load time would:
 *
 * <pre>
 * receive area of peer p at node n = hostBase(n) + (p - 1) * AREA
 *
 * offset  size            written by   what
 * 0       8               p (DMA)      LL send PSN: low-latency packets p has written here
 * 8       8               p (DMA)      HB send position: bytes p has written into the HB ring
 * 16      8               p (PIO)      LL receive PSN: n's LL packets that p has consumed (n's credits)
 * 24      8               p (PIO)      HB receive position: bytes of n's HB packets p has consumed
 * 32      8               p (PIO)      acknowledgement: low 32 bits the number of n's packets p has taken
 *                                      (its receive sequence), high 32 bits the fence: n must first take
 *                                      p's packets below it (the NAKs and DISCARDED notes p sent)
 * 64      LL_SLOTS*128    p (DMA)      low-latency ring: fixed 128-byte slots, one packet each
 * 4160    HB_BYTES        p (DMA)      high-bandwidth ring: variable packets, 16-byte aligned, may wrap
 * </pre>
 *
 * <p>The PSN pair of a ring is its send PSN (written by the sender right after each DMA of
 * packets, by chaining) and its receive PSN (written back by the receiver after it consumed
 * packets): their difference is what the ring holds, so the sender knows its credits and the
 * receiver knows what arrived. All offsets are multiples of 16, so a sender's staging buffer at
 * the same offsets satisfies the low-four-bit rule of the DMA controller.
 */
final class Layout {
  /** Slots of a low-latency ring. */
  static final int LL_SLOTS = 32;
  /** Bytes of a low-latency slot (one packet: header and payload). */
  static final int LL_SLOT = 128;
  /** Most payload in a low-latency packet. */
  static final int LL_PAYLOAD = LL_SLOT - Packet.HEADER;
  /** Bytes of a high-bandwidth ring. */
  static final int HB_BYTES = 64 * 1024;
  /** Most payload in a high-bandwidth packet (a quarter of the ring, so several are in flight). */
  static final int HB_MAX_PAYLOAD = HB_BYTES / 4 - Packet.HEADER;

  static final int LL_SEND_PSN = 0;
  static final int HB_SEND_POS = 8;
  static final int LL_RECV_PSN = 16;
  static final int HB_RECV_POS = 24;
  static final int ACK_WORD = 32;
  static final int LL_RING = 64;
  static final int HB_RING = LL_RING + LL_SLOTS * LL_SLOT;
  /** Bytes of one receive area (64-byte multiple). */
  static final int AREA = HB_RING + HB_BYTES;

  private Layout() {}

  /**
   * @param hostBase the global address of a node's host pool
   * @param peer the sending node (1-based)
   * @return the global address of the receive area of {@code peer} at that node
   */
  static long area(long hostBase, int peer) {
    return hostBase + (long) (peer - 1) * AREA;
  }

  /**
   * @param n bytes
   * @return n rounded up to a multiple of 16
   */
  static int pad16(int n) {
    return (n + 15) & ~15;
  }
}
