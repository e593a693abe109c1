package io.github.verbs4j.ib.engine;

import io.github.verbs4j.ib.wire.Aeth;
import io.github.verbs4j.ib.wire.AtomicAckEth;
import io.github.verbs4j.ib.wire.AtomicEth;
import io.github.verbs4j.ib.wire.Bth;
import io.github.verbs4j.ib.wire.DcEth;
import io.github.verbs4j.ib.wire.Deth;
import io.github.verbs4j.ib.wire.HeaderType;
import io.github.verbs4j.ib.wire.Icrc;
import io.github.verbs4j.ib.wire.ImmDt;
import io.github.verbs4j.ib.wire.Lrh;
import io.github.verbs4j.ib.wire.Opcode;
import io.github.verbs4j.ib.wire.Reth;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;

/**
 * A received packet, parsed once (rxe's {@code rxe_pkt_info}): header fields the engines test on
 * every packet, and accessors for the extension headers its opcode carries. One instance is
 * reused by the engine for every packet; it is valid until the next {@link #parse}.
 */
final class Packet {
  /** {@link #parse} result: the packet is well formed. */
  static final int OK = 0;
  /** {@link #parse} result: bad length, version, pad or opcode. */
  static final int MALFORMED = 1;
  /** {@link #parse} result: the ICRC does not match. */
  static final int BAD_CRC = 2;

  ByteBuf buf;
  /** A view of {@link #buf} for bulk reads (ICRC, payload), or null: index i is position i + viewDelta. */
  ByteBuffer view;
  int viewDelta;
  int base;
  int length;
  Opcode opcode;
  int slid;
  int dlid;
  int sl;
  int destQp;
  int psn;
  boolean solicited;
  boolean ackReq;
  int pkey;
  int payloadOffset;
  int payloadLength;

  /**
   * Parses the packet between {@code b}'s reader and writer index.
   *
   * @param b the packet
   * @param icrc the checker, or null to skip the ICRC check (a packet parsed again)
   * @return {@link #OK}, {@link #MALFORMED} or {@link #BAD_CRC}
   */
  int parse(ByteBuf b, Icrc icrc) {
    return parse(b, b.readerIndex(), b.readableBytes(), null, 0, icrc);
  }

  /**
   * Parses the packet of {@code len} bytes at index {@code at} of {@code b} (one of a train).
   *
   * @param b the buffer
   * @param at the packet's first byte
   * @param len the packet's length
   * @param v a view of {@code b} (index i at position i + delta) for the bulk reads, or null
   * @param delta the view's position minus the buffer's index
   * @param icrc the checker, or null to skip the ICRC check (a packet parsed again)
   * @return {@link #OK}, {@link #MALFORMED} or {@link #BAD_CRC}
   */
  int parse(ByteBuf b, int at, int len, ByteBuffer v, int delta, Icrc icrc) {
    buf = b;
    view = v;
    viewDelta = delta;
    base = at;
    length = len;
    if (length < Opcode.BASE_LENGTH + Icrc.LENGTH || (length & 3) != 0) {
      return MALFORMED;
    }
    // Three reads give every LRH and BTH field (each read through a slice of a read buffer costs
    // index and reference-count checks; reading field by field was ~17 of them per packet).
    long lrh = Lrh.word(b, base);
    int bth = base + Lrh.LENGTH;
    long bthWord = Bth.word(b, bth);
    int psnWord = Bth.psnWord(b, bth);
    // ICRC first: a flipped bit anywhere, length fields included, counts as what it is. A packet
    // the sender marked as without one (bit and zero trailer: the fabric never corrupts those) is
    // not checked; the bit alone, flipped in a checked packet, does not switch the check off.
    if (icrc != null && !(Lrh.noIcrc(lrh) && b.getInt(base + length - Icrc.LENGTH) == 0)
        && !(v != null ? icrc.check(b, base, base + length - Icrc.LENGTH, v, delta)
        : icrc.check(b, base, base + length - Icrc.LENGTH))) {
      return BAD_CRC;
    }
    if (Lrh.lver(lrh) != Lrh.LVER || Lrh.lnh(lrh) != Lrh.LNH_IBA_LOCAL || Lrh.packetBytes(lrh) != length) {
      return MALFORMED;
    }
    if (Bth.tver(bthWord) != Bth.TVER) {
      return MALFORMED;
    }
    opcode = Opcode.fromValue(Bth.opcode(bthWord));
    if (opcode == null) {
      return MALFORMED;
    }
    int pad = Bth.padCount(bthWord);
    payloadOffset = base + opcode.headerLength();
    payloadLength = length - opcode.headerLength() - pad - Icrc.LENGTH;
    if (payloadLength < 0 || (payloadLength > 0 && !opcode.is(Opcode.Flag.PAYLOAD))
        || Bth.padFor(payloadLength) != pad) {
      return MALFORMED;
    }
    slid = Lrh.slid(lrh);
    dlid = Lrh.dlid(lrh);
    sl = Lrh.sl(lrh);
    destQp = Bth.destQp(bthWord);
    psn = Bth.psn(psnWord);
    solicited = Bth.solicited(bthWord);
    ackReq = Bth.ackReq(psnWord);
    pkey = Bth.pkey(bthWord);
    return OK;
  }

  private int at(HeaderType h) {
    return base + opcode.offset(h);
  }

  long rethVa() {
    return Reth.va(buf, at(HeaderType.RETH));
  }

  int rethRkey() {
    return Reth.rkey(buf, at(HeaderType.RETH));
  }

  long rethLength() {
    return Reth.length(buf, at(HeaderType.RETH));
  }

  int aethSyndrome() {
    return Aeth.syndrome(buf, at(HeaderType.AETH));
  }

  int aethMsn() {
    return Aeth.msn(buf, at(HeaderType.AETH));
  }

  long atomicVa() {
    return AtomicEth.va(buf, at(HeaderType.ATOMIC_ETH));
  }

  int atomicRkey() {
    return AtomicEth.rkey(buf, at(HeaderType.ATOMIC_ETH));
  }

  long atomicSwapAdd() {
    return AtomicEth.swapAdd(buf, at(HeaderType.ATOMIC_ETH));
  }

  long atomicCompare() {
    return AtomicEth.compare(buf, at(HeaderType.ATOMIC_ETH));
  }

  long atomicAckOrig() {
    return AtomicAckEth.orig(buf, at(HeaderType.ATOMIC_ACK_ETH));
  }

  int imm() {
    return ImmDt.imm(buf, at(HeaderType.IMM_DT));
  }

  int dethQkey() {
    return Deth.qkey(buf, at(HeaderType.DETH));
  }

  int dethSrcQp() {
    return Deth.srcQp(buf, at(HeaderType.DETH));
  }

  long dcKey() {
    return DcEth.dcKey(buf, at(HeaderType.DCETH));
  }

  int dcGeneration() {
    return DcEth.generation(buf, at(HeaderType.DCETH));
  }

  int dcSrcQp() {
    return DcEth.srcQp(buf, at(HeaderType.DCETH));
  }

  int dcEpochPsn() {
    return DcEth.epochPsn(buf, at(HeaderType.DCETH));
  }
}
