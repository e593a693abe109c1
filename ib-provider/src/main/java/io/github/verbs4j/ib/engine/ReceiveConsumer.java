package io.github.verbs4j.ib.engine;

import io.github.verbs4j.ib.wire.Opcode.Flag;
import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.spi.AbstractProtectionDomain;
import io.github.verbs4j.verbs.spi.RecvWqe;
import io.github.verbs4j.verbs.spi.SoftMemoryRegion;
import io.github.verbs4j.verbs.spi.wire.Grh;
import java.nio.ByteBuffer;

/**
 * A responder's receive WQE (the receive-queue half of rxe_resp.c: {@code get_srq_wqe}, {@code
 * send_data_in}, the WQE side of {@code do_complete}): taken at a message's first packet from the
 * QP's receive queue — whose head stays queued until the message completes — or copied out of the
 * SRQ, as rxe does (so an SRQ resize never moves it); payload scattered into it at the message
 * offset with lkey, PD, access and bounds checked per SGE; released when the message completes or
 * fails; flushed if the QP fails while it holds one from an SRQ.
 *
 * <p>Engine thread only, under the QP lock.
 */
final class ReceiveConsumer {
  /** Bytes of a UD receive buffer reserved for the GRH (ibv_post_recv(3)). */
  static final int GRH_LENGTH = Grh.LENGTH;
  private final EngineQp qp;
  private final IbDevice dev;
  private final FrameSplitter frames;
  private final RecvWqe srqWqe = new RecvWqe();
  /** The WQE the current message fills (valid while {@link #have}). */
  RecvWqe recv;
  /** Whether a WQE is held. */
  boolean have;
  private boolean fromSrq;
  /** Bytes of the current message placed so far. */
  int offset;

  ReceiveConsumer(EngineQp qp) {
    this.qp = qp;
    this.dev = qp.dev;
    this.frames = qp.dev.frames;
  }

  /** Forgets the held WQE without a completion (RESET, new connection). */
  void reset() {
    have = false;
    offset = 0;
  }

  /** @return whether a WQE is held or could be taken now */
  boolean acquire() {
    if (have) {
      return true;
    }
    if (qp.srq != null) {
      if (!qp.srq.pop(srqWqe)) {
        return false;
      }
      recv = srqWqe;
      fromSrq = true;
    } else {
      RecvWqe head = qp.rq.peek();
      if (head == null) {
        return false;
      }
      recv = head;
      fromSrq = false;
    }
    have = true;
    offset = 0;
    return true;
  }

  /** The message is done with its WQE: pop it from the RQ (an SRQ's was popped at acquire). */
  void release() {
    if (!fromSrq) {
      qp.rq.pop(dev.recvScratch);
    }
    have = false;
    offset = 0;
  }

  /**
   * Flushes a WQE taken from an SRQ (the QP's RQ entries are flushed by the QP).
   *
   * @return completions pushed
   */
  int flushHeld() {
    if (!have) {
      return 0;
    }
    have = false;
    if (!fromSrq) {
      return 0;
    }
    WorkCompletion wc = dev.wc;
    wc.reset(srqWqe.wrId(), WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, qp.qpn);
    qp.recvCq.push(wc, false);
    return 1;
  }

  /** Completes the held WQE, if any, with an error status and releases it. */
  void completeError(WcStatus status) {
    if (!have) {
      return;
    }
    WorkCompletion wc = dev.wc;
    wc.reset(recv.wrId(), status, WcOpcode.RECV, qp.qpn);
    release();
    dev.stamp(wc);
    qp.recvCq.push(wc, false);
  }

  /**
   * Scatters {@code len} payload bytes of {@code p} at message offset {@code at} into the held WQE.
   *
   * @return false if an SGE's lkey, PD, access or bounds do not allow it, or the WQE is too short
   */
  boolean scatter(int at, Packet p, int len) {
    RecvWqe w = recv;
    ByteBuffer src = frames.payload(p, len);
    int pos = src.position();
    AbstractProtectionDomain pd = qp.srq != null ? (AbstractProtectionDomain) qp.srq.pd() : qp.pd;
    int sge = 0;
    int off = at;
    int n = w.numSge();
    while (sge < n && off >= w.length(sge)) {
      off -= w.length(sge);
      sge++;
    }
    int left = len;
    while (left > 0) {
      while (sge < n && off >= w.length(sge)) {
        off = 0;
        sge++;
      }
      if (sge >= n) {
        return false;
      }
      int chunk = Math.min(left, w.length(sge) - off);
      long addr = w.addr(sge) + off;
      SoftMemoryRegion m = qp.memory.byLkey(w.lkey(sge));
      if (m == null || m.softPd() != pd || !m.allows(Access.LOCAL_WRITE) || !m.contains(addr, chunk)) {
        return false;
      }
      if (!m.copyIn(addr, src, pos, chunk)) {
        return false;
      }
      pos += chunk;
      off += chunk;
      left -= chunk;
    }
    return true;
  }

  long footprint() {
    return srqWqe.numSge() * 16L;
  }

  /**
   * A UD packet: its own message, into a WQE of its own, after the 40-byte GRH room (UD has no
   * RNR: without a receive WQE it is dropped and counted).
   */
  void receiveUd(Packet p) {
    if (p.dethQkey() != qp.qkey) {
      // C10-15: a Q_Key mismatch is dropped silently and counted (the port's qkey_viol_cntr).
      dev.counters.inc(IbCounters.Counter.DROP_QKEY_VIOLATION);
      return;
    }
    int len = p.payloadLength;
    if (len > dev.params.portMtu) {
      dev.counters.inc(IbCounters.Counter.DROP_MALFORMED);
      return;
    }
    if (!acquire()) {
      dev.counters.inc(IbCounters.Counter.DROP_NO_RECEIVE);
      return;
    }
    if (len + GRH_LENGTH > recv.totalLength()) {
      completeError(WcStatus.LOC_LEN_ERR); // the UD QP stays in RTS (CONFORMANCE.md)
      return;
    }
    if (len > 0 && !scatter(GRH_LENGTH, p, len)) {
      completeError(WcStatus.LOC_PROT_ERR);
      return;
    }
    WorkCompletion wc = dev.wc;
    wc.reset(recv.wrId(), WcStatus.SUCCESS, WcOpcode.RECV, qp.qpn);
    wc.byteLen(len + GRH_LENGTH);
    if (p.opcode.is(Flag.IMM)) {
      wc.withImm(p.imm());
    }
    wc.source(p.dethSrcQp(), p.slid, p.sl, false);
    release();
    dev.stamp(wc);
    if (!qp.recvCq.push(wc, p.solicited)) {
      qp.error();
    }
  }
}

