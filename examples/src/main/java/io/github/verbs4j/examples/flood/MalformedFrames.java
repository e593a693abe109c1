package io.github.verbs4j.examples.flood;

import io.github.verbs4j.fabric.FrameHeader;
import io.netty.buffer.ByteBuf;
import java.util.SplittableRandom;

/**
 * Fabric frames an attacker inside the job would write into an {@code ib} node: every one fails
 * the node's checks on arrival. Written from the attacker's side, from the IBTA layouts (LRH, IBTA
 * 7.7; BTH, 9.2), not with the provider's own classes. Five kinds, by {@code i % 5}:
 *
 * <ol start="0">
 *   <li>random bytes (with LNH 0, so they cannot pass as a packet): {@code malformed};
 *   <li>a valid 8-byte RC SEND_ONLY cut short: {@code malformed};
 *   <li>that packet with one bit of a checked field flipped (LVer, LNH, DLID, PktLen, SLID, TVer):
 *       {@code malformed};
 *   <li>a train of two such packets whose second one is cut: {@code malformed};
 *   <li>a valid packet in a frame whose header has a bad version byte: {@code bad_version} (the
 *       fabric's decoder skips it).
 * </ol>
 *
 * Every frame names the connection's own (valid, authenticated) node as its source.
 */
final class MalformedFrames {
  /** The kinds: frames of kind 4 are counted as {@code bad_version}, the others as {@code malformed}. */
  static final int KINDS = 5;
  /** The ib provider's frame tag (virtual lane 0, IBA local). */
  static final int IB_TAG = 0x1B00;
  private static final int LRH = 8;
  private static final int BTH = 12;
  private static final int ICRC = 4;
  private static final int RC_SEND_ONLY = 0x04;
  /** LRH + BTH + 8 bytes + ICRC. */
  static final int PACKET = LRH + BTH + 8 + ICRC;
  /** Bits (from byte 0's most significant) of the fields a receiver checks. */
  private static final int[] CHECKED_BITS = checkedBits();

  private final int src;
  private final int dst;
  private final int destQp;
  private final SplittableRandom rnd;

  /**
   * @param src the source node (LID) the frames claim: the connection's own
   * @param dst the destination node (LID)
   * @param destQp the QP number packets name
   * @param seed the random seed
   */
  MalformedFrames(int src, int dst, int destQp, long seed) {
    this.src = src;
    this.dst = dst;
    this.destQp = destQp;
    this.rnd = new SplittableRandom(seed);
  }

  private static int[] checkedBits() {
    int[] bits = new int[4 + 2 + 16 + 11 + 16 + 4];
    int n = 0;
    for (int i = 4; i < 8; i++) {
      bits[n++] = i; // LVer
    }
    bits[n++] = 14; // LNH
    bits[n++] = 15;
    for (int i = 16; i < 32; i++) {
      bits[n++] = i; // DLID
    }
    for (int i = 37; i < 48; i++) {
      bits[n++] = i; // PktLen
    }
    for (int i = 48; i < 64; i++) {
      bits[n++] = i; // SLID
    }
    for (int i = 4; i < 8; i++) {
      bits[n++] = (LRH + 1) * 8 + i; // BTH TVer
    }
    return bits;
  }

  /** Writes a well-formed RC SEND_ONLY of 8 bytes, sent without ICRC, at the writer index. */
  private void packet(ByteBuf b) {
    int at = b.writerIndex();
    b.writeByte(0); // VL 0, LVer 0
    b.writeByte(0x04 | 0x02); // SL 0, no-ICRC bit (verbs4j), LNH IBA local
    b.writeShort(dst);
    b.writeShort(PACKET >>> 2); // PktLen in words
    b.writeShort(src);
    b.writeByte(RC_SEND_ONLY);
    b.writeByte(0); // SE 0, M 0, pad 0, TVer 0
    b.writeShort(0xFFFF); // default P_Key
    b.writeInt(destQp & 0xFFFFFF);
    b.writeInt(7); // PSN
    b.writeZero(8 + ICRC);
    assert b.writerIndex() - at == PACKET;
  }

  /**
   * Appends frame {@code i}, header and payload, to {@code out}.
   *
   * @param i the frame's index (its kind is {@code i % KINDS})
   * @param out where to write
   */
  void write(int i, ByteBuf out) {
    int headerAt = out.writerIndex();
    out.writeZero(FrameHeader.LENGTH);
    int at = out.writerIndex();
    switch (i % KINDS) {
      case 0 -> {
        int n = 1 + rnd.nextInt(120);
        for (int j = 0; j < n; j++) {
          out.writeByte(rnd.nextInt(256));
        }
        if (n > 1) {
          out.setByte(at + 1, out.getByte(at + 1) & ~3); // LNH 0: never a packet
        }
      }
      case 1 -> {
        packet(out);
        out.writerIndex(at + 1 + rnd.nextInt(PACKET - 1));
      }
      case 2 -> {
        packet(out);
        int bit = CHECKED_BITS[rnd.nextInt(CHECKED_BITS.length)];
        out.setByte(at + bit / 8, out.getByte(at + bit / 8) ^ (0x80 >>> (bit % 8)));
      }
      case 3 -> {
        packet(out);
        packet(out);
        out.writerIndex(out.writerIndex() - 1 - rnd.nextInt(16));
      }
      default -> packet(out);
    }
    int len = out.writerIndex() - at;
    int end = out.writerIndex();
    out.writerIndex(headerAt);
    FrameHeader.write(out, FrameHeader.TYPE_DATA, 0, 1, src, dst, IB_TAG, len, 0, 0);
    out.writerIndex(end);
    if (i % KINDS == KINDS - 1) {
      out.setByte(headerAt + FrameHeader.VERSION_OFFSET, FrameHeader.VERSION + 1);
    }
  }

  /**
   * @param frames frames written from index 0
   * @return how many of them are of the {@code bad_version} kind
   */
  static long badVersion(long frames) {
    return frames / KINDS;
  }
}
