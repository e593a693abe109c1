package io.github.verbs4j.ib.engine;

import io.github.verbs4j.ib.wire.AtomicEth;
import io.github.verbs4j.ib.wire.DcEth;
import io.github.verbs4j.ib.wire.Deth;
import io.github.verbs4j.ib.wire.HeaderType;
import io.github.verbs4j.ib.wire.ImmDt;
import io.github.verbs4j.ib.wire.Opcode;
import io.github.verbs4j.ib.wire.Opcode.Op;
import io.github.verbs4j.ib.wire.Opcode.Transport;
import io.github.verbs4j.ib.wire.Reth;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WrOpcode;
import io.netty.buffer.ByteBuf;

/**
 * The request packet a requester is building (rxe's {@code init_req_packet}): the opcode for the
 * WQE's verb and the packet's place in the message, the claimed transmit buffer with the extension
 * headers that opcode carries (RETH, AtomicETH, ImmDt, DETH, DCETH) and the gathered payload. One
 * per requester, reused for every packet; the requester then sets the BTH fields and commits.
 */
final class RequestPacket {
  Opcode op;
  int payload;
  boolean last;
  ByteBuf buf;
  int base;
  int destQp;

  /**
   * Builds the packet at byte {@code offset} of WQE {@code w}.
   *
   * @return false if gathering the payload failed (the WQE is marked LOC_PROT_ERR, nothing claimed)
   */
  boolean build(Transmitter tx, Transport t, SendWqe w, long offset, int mtu, int dlid, EngineQp qp,
      int dcGeneration, int dcEpochPsn) {
    WrOpcode wop = w.opcode;
    base = 0;
    if (wop == WrOpcode.RDMA_READ) {
      op = Opcode.of(t, Op.READ_REQUEST);
      payload = 0;
      last = true;
      buf = tx.claim(op, 0);
      Reth.write(buf, op.offset(HeaderType.RETH), w.remoteAddr + offset, w.rkey, (int) (w.totalLength - offset));
    } else if (wop.isAtomic()) {
      boolean cas = wop == WrOpcode.ATOMIC_CMP_AND_SWP;
      op = Opcode.of(t, cas ? Op.COMPARE_SWAP : Op.FETCH_ADD);
      payload = 0;
      last = true;
      buf = tx.claim(op, 0);
      AtomicEth.write(buf, op.offset(HeaderType.ATOMIC_ETH), w.remoteAddr, w.rkey, cas ? w.swap : w.compareAdd,
          cas ? w.compareAdd : 0);
    } else {
      payload = (int) Math.min(mtu, w.totalLength - offset);
      boolean first = offset == 0;
      last = offset + payload >= w.totalLength;
      op = Opcode.of(t, dataOp(wop, first, last));
      buf = tx.claim(op, payload, dlid);
      base = tx.base();
      if (op.has(HeaderType.RETH)) {
        Reth.write(buf, base + op.offset(HeaderType.RETH), w.remoteAddr, w.rkey, w.totalLength);
      }
      if (op.has(HeaderType.IMM_DT)) {
        ImmDt.write(buf, base + op.offset(HeaderType.IMM_DT), w.immData);
      }
      if (payload > 0 && !w.gather((int) offset, buf, base + op.headerLength(), payload)) {
        tx.abort(buf);
        buf = null;
        w.state = SendWqe.ERROR;
        w.status = WcStatus.LOC_PROT_ERR;
        return false;
      }
    }
    destQp = qp.destQpn;
    if (op.has(HeaderType.DETH)) {
      // A Q_Key with the high bit set means "use the QP's own Q_Key" (IBA 10.2.5).
      int qkey = w.remoteQkey < 0 ? qp.qkey : w.remoteQkey;
      Deth.write(buf, base + op.offset(HeaderType.DETH), qkey, qp.qpn);
      destQp = w.remoteQpn;
    }
    if (op.has(HeaderType.DCETH)) {
      DcEth.write(buf, base + op.offset(HeaderType.DCETH), w.dcKey, dcGeneration, qp.qpn, dcEpochPsn);
      destQp = w.dctn;
    }
    return true;
  }

  /** The SEND or WRITE opcode for a packet at this place in its message (IBA 9.2, table 38). */
  private static int dataOp(WrOpcode wop, boolean first, boolean last) {
    boolean write = wop == WrOpcode.RDMA_WRITE || wop == WrOpcode.RDMA_WRITE_WITH_IMM;
    boolean imm = wop == WrOpcode.SEND_WITH_IMM || wop == WrOpcode.RDMA_WRITE_WITH_IMM;
    if (first && last) {
      return write ? (imm ? Op.WRITE_ONLY_IMM : Op.WRITE_ONLY) : (imm ? Op.SEND_ONLY_IMM : Op.SEND_ONLY);
    }
    if (first) {
      return write ? Op.WRITE_FIRST : Op.SEND_FIRST;
    }
    if (last) {
      return write ? (imm ? Op.WRITE_LAST_IMM : Op.WRITE_LAST) : (imm ? Op.SEND_LAST_IMM : Op.SEND_LAST);
    }
    return write ? Op.WRITE_MIDDLE : Op.SEND_MIDDLE;
  }
}
