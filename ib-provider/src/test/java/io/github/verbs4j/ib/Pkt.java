package io.github.verbs4j.ib;

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
import io.github.verbs4j.ib.wire.SrqFlowEth;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/** Crafts and reads packets for engine tests, with the wire classes (fluent, test-only). */
final class Pkt {
  final Opcode op;
  int slid = 2;
  int dlid = 1;
  int destQp;
  int psn;
  boolean ackReq;
  boolean se;
  boolean noIcrc;
  byte[] payload = new byte[0];
  long va;
  int rkey;
  long rethLength;
  int syndrome = Aeth.SYNDROME_ACK;
  int msn;
  long swapAdd;
  long compare;
  long orig;
  int imm;
  int qkey;
  int srcQp;
  long dcKey;
  int gen;
  int epochPsn;
  int srqNum;
  int slot;

  Pkt(Opcode op) {
    this.op = op;
  }

  static Pkt of(Opcode op) {
    return new Pkt(op);
  }

  Pkt to(int qp) {
    destQp = qp;
    return this;
  }

  Pkt psn(int p) {
    psn = p;
    return this;
  }

  Pkt ackReq() {
    ackReq = true;
    return this;
  }

  Pkt payload(byte[] p) {
    payload = p;
    return this;
  }

  Pkt reth(long va, int rkey, long len) {
    this.va = va;
    this.rkey = rkey;
    this.rethLength = len;
    return this;
  }

  Pkt atomic(long va, int rkey, long swapAdd, long compare) {
    this.va = va;
    this.rkey = rkey;
    this.swapAdd = swapAdd;
    this.compare = compare;
    return this;
  }

  Pkt aeth(int syndrome, int msn) {
    this.syndrome = syndrome;
    this.msn = msn;
    return this;
  }

  /** Sends the packet as a sender that computed no ICRC: {@link Lrh#NO_ICRC} and a zero trailer. */
  Pkt noIcrc() {
    noIcrc = true;
    return this;
  }

  /** The seed-002 header of a stop or resend request. */
  Pkt srqFc(int srq, int tableSlot) {
    srqNum = srq;
    slot = tableSlot;
    return this;
  }

  Pkt from(int lid) {
    slid = lid;
    return this;
  }

  ByteBuf build() {
    int hdr = op.headerLength();
    int pad = Bth.padFor(payload.length);
    int end = hdr + payload.length + pad;
    ByteBuf b = Unpooled.directBuffer(end + Icrc.LENGTH);
    b.writerIndex(end + Icrc.LENGTH);
    b.setZero(0, end + Icrc.LENGTH);
    Lrh.write(b, 0, 0, 0, dlid, slid, end + Icrc.LENGTH, noIcrc);
    Bth.write(b, Lrh.LENGTH, op.value(), se, pad, Bth.DEFAULT_PKEY, destQp, ackReq, psn);
    if (op.has(HeaderType.RETH)) {
      Reth.write(b, op.offset(HeaderType.RETH), va, rkey, (int) rethLength);
    }
    if (op.has(HeaderType.AETH)) {
      Aeth.write(b, op.offset(HeaderType.AETH), syndrome, msn);
    }
    if (op.has(HeaderType.ATOMIC_ETH)) {
      AtomicEth.write(b, op.offset(HeaderType.ATOMIC_ETH), va, rkey, swapAdd, compare);
    }
    if (op.has(HeaderType.ATOMIC_ACK_ETH)) {
      AtomicAckEth.write(b, op.offset(HeaderType.ATOMIC_ACK_ETH), orig);
    }
    if (op.has(HeaderType.IMM_DT)) {
      ImmDt.write(b, op.offset(HeaderType.IMM_DT), imm);
    }
    if (op.has(HeaderType.DETH)) {
      Deth.write(b, op.offset(HeaderType.DETH), qkey, srcQp);
    }
    if (op.has(HeaderType.DCETH)) {
      DcEth.write(b, op.offset(HeaderType.DCETH), dcKey, gen, srcQp, epochPsn);
    }
    if (op.has(HeaderType.SRQ_FLOW_ETH)) {
      SrqFlowEth.write(b, op.offset(HeaderType.SRQ_FLOW_ETH), srqNum, slot);
    }
    b.setBytes(hdr, payload);
    if (!noIcrc) {
      new Icrc().write(b, 0, end);
    }
    return b;
  }

  /** A view of a captured packet. */
  record Seen(Opcode op, int dlid, int destQp, int psn, boolean ackReq, int syndrome, int payloadLength, ByteBuf buf) {
    static Seen of(ByteBuf b) {
      Opcode op = Opcode.fromValue(Bth.opcode(b, Lrh.LENGTH));
      int syn = op.has(HeaderType.AETH) ? Aeth.syndrome(b, op.offset(HeaderType.AETH)) : -1;
      int payload = b.readableBytes() - op.headerLength() - Bth.padCount(b, Lrh.LENGTH) - Icrc.LENGTH;
      return new Seen(op, Lrh.dlid(b, 0), Bth.destQp(b, Lrh.LENGTH), Bth.psn(b, Lrh.LENGTH),
          Bth.ackReq(b, Lrh.LENGTH), syn, payload, b);
    }

    long rethVa() {
      return Reth.va(buf, op.offset(HeaderType.RETH));
    }

    long rethLength() {
      return Reth.length(buf, op.offset(HeaderType.RETH));
    }

    long atomicOrig() {
      return AtomicAckEth.orig(buf, op.offset(HeaderType.ATOMIC_ACK_ETH));
    }

    /** @return the table slot of a stop or resend request */
    int srqFcSlot() {
      return SrqFlowEth.slot(buf, op.offset(HeaderType.SRQ_FLOW_ETH));
    }

    /** @return the SRQ number of a stop or resend request */
    int srqFcSrq() {
      return SrqFlowEth.srqNum(buf, op.offset(HeaderType.SRQ_FLOW_ETH));
    }

    byte[] payloadBytes() {
      byte[] p = new byte[payloadLength];
      buf.getBytes(op.headerLength(), p);
      return p;
    }
  }
}
