package io.github.verbs4j.tca.verbs;

import io.github.verbs4j.tca.peach2.TcaMallocPool;
import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AsyncEventType;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.spi.RecvWqe;
import io.github.verbs4j.verbs.spi.SoftMemoryRegion;
import io.github.verbs4j.verbs.spi.wire.Grh;
import io.github.verbs4j.verbs.spi.wire.Psn;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receive side of a QP and the software proxy's work for it (seed 000 §3.3): checks each
 * request (state, source, PSN, keys, bounds, access) before any memory is touched, places SEND
 * data in receive WQEs, answers RTS with CTS, executes READ and atomics at the target and writes
 * the results back with PEACH2 writes, and answers with NAK (RNR, invalid request, remote access,
 * remote operational error) as an InfiniBand responder would. An accepted SEND, WRITE or FIN gets
 * no ACK packet: the channel's write-back of what it took acknowledges it (seed 000's PSN pair);
 * one taken and not accepted nor NAKed is reported {@link Channel#discarded}. A duplicate is
 * acknowledged again by an ACK packet.
 *
 * <p>Atomics are executed once per PSN; a duplicate is answered from a replay cache of the last
 * {@code max_dest_rd_atomic} results. Runs in the proxy's duty cycle under the QP's lock.
 */
final class Responder {
  private static final Logger LOG = LoggerFactory.getLogger(Responder.class);
  private static final int GRH = Grh.LENGTH;

  private final TcaQueuePair qp;
  private final TcaContext ctx;
  /** Bytes of a long READ moved per DMA before a progress packet. */
  static final int READ_PIECE = 256 * 1024;
  private final Packet out = new Packet();
  private final Packet progress = new Packet();
  private final WorkCompletion wc = new WorkCompletion();
  private final RecvWqe recv = new RecvWqe();

  private boolean configured;
  private int epsn;
  private int destQpn;
  private int dlid;
  private int maxDestRdAtomic;
  private int minRnrTimer;
  private int access;
  private int qkey;
  private boolean commEst;

  // one rendezvous at a time (the requester starts nothing between RTS and FIN)
  private boolean rdv;
  private int rdvPsn;
  private boolean rdvHasRecv;
  private final RecvWqe rdvRecv = new RecvWqe();
  private boolean rdvWrite;
  private boolean rdvImm;
  private int rdvImmData;
  private boolean rdvSolicited;
  private int rdvLength;
  private SoftMemoryRegion rdvMr;
  private long rdvAddr;
  private TcaMallocPool.Block rdvBounce;
  private long rdvDst;

  private final int[] replayPsn = new int[16];
  private final long[] replayValue = new long[16];
  private int replayNext;

  Responder(TcaQueuePair qp) {
    this.qp = qp;
    this.ctx = qp.ctx;
    Arrays.fill(replayPsn, -1);
  }

  /** @return the PSN expected next (query()'s rq_psn); under the QP's lock */
  int expectedPsn() {
    return epsn;
  }

  /** INIT→RTR. */
  void configure(QpAttr a) {
    epsn = a.rqPsn() & 0xFFFFFF;
    destQpn = a.destQpNum();
    dlid = a.ahAttr() != null ? a.ahAttr().dlid() : 0;
    maxDestRdAtomic = a.maxDestRdAtomic();
    minRnrTimer = a.minRnrTimer();
    updateAccess(a);
    configured = true;
  }

  void updateAccess(QpAttr a) {
    access = a.qpAccessFlags();
    qkey = a.qkey();
    minRnrTimer = a.minRnrTimer();
  }

  void reset() {
    release();
    configured = false;
    commEst = false;
  }

  /** Returns pool memory held for a rendezvous. */
  void release() {
    if (rdvBounce != null) {
      rdvBounce.free();
      rdvBounce = null;
    }
    releaseRegion();
    rdv = false;
    rdvHasRecv = false;
  }

  /** Lets go of the region a rendezvous WRITE held. */
  private void releaseRegion() {
    if (rdvMr != null) {
      ((TcaMemoryRegion) rdvMr).release();
      rdvMr = null;
    }
  }

  /** Flushes the receive WQE a rendezvous holds. @return completions pushed */
  int flushHeld(WorkCompletion flush) {
    int n = 0;
    if (rdv && rdvHasRecv) {
      flush.reset(rdvRecv.wrId(), WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, qp.qpNum());
      qp.rcq().push(flush, false);
      n = 1;
    }
    release();
    return n;
  }

  private boolean accepts(QpState s) {
    return configured && (s == QpState.RTR || s == QpState.RTS || s == QpState.SQD || s == QpState.SQE);
  }

  // ================================================================ requests

  /**
   * One request packet for this QP.
   *
   * @param ch where it came from
   * @param p the packet
   * @param payload holds its payload
   * @param at index of the first payload byte
   */
  void onRequest(Channel ch, Packet p, ByteBuffer payload, int at) {
    QpState s = qp.state();
    if (LOG.isTraceEnabled()) {
      LOG.trace("responder {} in {} (epsn={}, dest={}@{}, rdv={}): {}", qp.describe(), s, epsn, destQpn, dlid, rdv, p);
    }
    if (!accepts(s)) {
      ctx.counters().dropped(1);
      ch.discarded(p);
      return;
    }
    if (qp.type() == QpType.UD) {
      if (p.opcode == Packet.UD_SEND) {
        ud(ch, p, payload, at);
      } else {
        ctx.counters().dropped(1);
        ch.discarded(p);
      }
      return;
    }
    if (ch.peer != dlid || p.srcQpn != destQpn || p.opcode == Packet.UD_SEND) {
      ctx.counters().dropped(1);
      ch.discarded(p);
      return;
    }
    if (s == QpState.RTR && !commEst) {
      commEst = true;
      qp.raise(AsyncEventType.COMM_EST);
    }
    boolean uc = qp.type() == QpType.UC;
    if (p.opcode == Packet.FIN) {
      if (rdv && p.psn == rdvPsn) {
        fin(ch, p, payload, at);
      } else if (!uc && Psn.diff(p.psn, epsn) < 0) {
        duplicate(ch, p); // a message completed before: acknowledged again
      } else {
        ctx.counters().dropped(1);
        ch.discarded(p);
      }
      return;
    }
    if (uc) {
      epsn = p.psn; // UC: no sequence recovery, each message stands alone
    }
    if (rdv && p.psn == rdvPsn && (p.opcode == Packet.RTS_SEND || p.opcode == Packet.RTS_WRITE)) {
      cts(ch, p, rdvDst, false); // the requester timed out waiting for the CTS and asks again
      return;
    }
    int d = Psn.diff(p.psn, epsn);
    if (d < 0) {
      // also during a rendezvous: a requester that timed out went back to a message this side
      // completed; dropping its RTS would leave it waiting for a CTS while this side waits for the
      // FIN of the later message (both stuck until RETRY_EXC_ERR)
      duplicate(ch, p);
      return;
    }
    if (d > 0 || rdv) {
      ctx.counters().outOfSequence(1); // behind an RNR-NAKed message: the requester sends it again
      ch.discarded(p);
      return;
    }
    switch (p.opcode) {
      case Packet.SEND -> send(ch, p, payload, at, uc);
      case Packet.WRITE -> write(ch, p, payload, at, uc);
      case Packet.RTS_SEND, Packet.RTS_WRITE -> rts(ch, p, uc);
      case Packet.READ_REQ -> read(ch, p, false);
      case Packet.ATOMIC_REQ -> atomic(ch, p);
      default -> {
        ctx.counters().dropped(1);
        ch.discarded(p);
      }
    }
  }

  private void send(Channel ch, Packet p, ByteBuffer payload, int at, boolean uc) {
    if (!qp.takeRecv(recv)) {
      rnr(ch, p, uc);
      return;
    }
    int len = p.payloadLength;
    if (len > recv.totalLength()) {
      recvError(WcStatus.LOC_LEN_ERR, ch, p, Packet.NAK_INVALID_REQUEST, uc);
      return;
    }
    if (!ctx.checkRecv(qp.pd(), recv, len)) {
      recvError(WcStatus.LOC_PROT_ERR, ch, p, Packet.NAK_REMOTE_OPERATIONAL, uc);
      return;
    }
    ctx.scatterRecv(recv, 0, payload, at, len);
    ctx.chargeCopy(len);
    if (!completeRecv(recv, WcOpcode.RECV, len, p.has(Packet.F_IMM), p.imm, p.has(Packet.F_SOLICITED), ch.peer,
        p.srcQpn)) {
      overflow(ch, p, uc);
      return;
    }
    advance(p.psn);
  }

  private void write(Channel ch, Packet p, ByteBuffer payload, int at, boolean uc) {
    int len = p.payloadLength;
    TcaMemoryRegion mr = null;
    if (len > 0) {
      mr = (TcaMemoryRegion) remoteRegion(p.rkey, p.addr, len, Access.REMOTE_WRITE);
      if (mr == null || !mr.hold()) {
        accessError(ch, p, uc);
        return;
      }
    }
    boolean imm = p.has(Packet.F_IMM);
    try {
      if (imm && !qp.takeRecv(recv)) {
        rnr(ch, p, uc);
        return;
      }
      if (mr != null) {
        ctx.chargeCopy(len);
        mr.copyIn(p.addr, payload, at, len); // held: a concurrent dereg cannot hand the memory to another user
      }
    } finally {
      if (mr != null) {
        mr.release();
      }
    }
    if (imm && !completeRecv(recv, WcOpcode.RECV_RDMA_WITH_IMM, len, true, p.imm, p.has(Packet.F_SOLICITED), ch.peer,
        p.srcQpn)) {
      overflow(ch, p, uc);
      return;
    }
    advance(p.psn);
  }

  private void rts(Channel ch, Packet p, boolean uc) {
    int len = p.length;
    boolean write = p.opcode == Packet.RTS_WRITE;
    boolean imm = p.has(Packet.F_IMM);
    SoftMemoryRegion mr = null;
    if (write) {
      mr = remoteRegion(p.rkey, p.addr, len, Access.REMOTE_WRITE);
      if (mr == null || !((TcaMemoryRegion) mr).hold()) {
        mr = null;
        if (uc) {
          cts(ch, p, 0, true);
          return;
        }
        accessError(ch, p, false);
        return;
      }
    }
    // from here the region is held until the FIN (or a flush): the requester may DMA into it directly
    rdvMr = mr;
    boolean hasRecv = false;
    if (!write || imm) {
      if (!qp.takeRecv(rdvRecv)) {
        releaseRegion();
        if (uc) {
          cts(ch, p, 0, true);
          return;
        }
        rnr(ch, p, false);
        return;
      }
      hasRecv = true;
      if (!write && len > rdvRecv.totalLength()) {
        releaseRegion();
        recvError(WcStatus.LOC_LEN_ERR, rdvRecv, ch, p, Packet.NAK_INVALID_REQUEST, uc);
        if (uc) {
          cts(ch, p, 0, true);
        }
        return;
      }
      if (!write && !ctx.checkRecv(qp.pd(), rdvRecv, len)) {
        releaseRegion();
        recvError(WcStatus.LOC_PROT_ERR, rdvRecv, ch, p, Packet.NAK_REMOTE_OPERATIONAL, uc);
        if (uc) {
          cts(ch, p, 0, true);
        }
        return;
      }
    }
    long dst = write ? ctx.directDestination(mr, p.addr, len) : ctx.directDestination(qp.pd(), rdvRecv, len);
    rdv = true;
    rdvPsn = p.psn;
    rdvHasRecv = hasRecv;
    rdvWrite = write;
    rdvImm = imm;
    rdvImmData = p.imm;
    rdvSolicited = p.has(Packet.F_SOLICITED);
    rdvLength = len;
    rdvAddr = p.addr;
    if (dst < 0) {
      rdvBounce = ctx.board().hostPool().allocate(len, 64);
      dst = rdvBounce.address();
    }
    rdvDst = dst;
    cts(ch, p, dst, false);
  }

  private void cts(Channel ch, Packet p, long dst, boolean drop) {
    out.clear();
    out.opcode = Packet.CTS;
    out.srcQpn = qp.qpNum();
    out.dstQpn = p.srcQpn;
    out.psn = p.psn;
    out.length = p.length;
    out.addr = dst;
    out.flags = drop ? Packet.F_DROP : 0;
    ch.send(out, null, 0);
  }

  private void fin(Channel ch, Packet p, ByteBuffer payload, int at) {
    boolean uc = qp.type() == QpType.UC;
    if (rdvWrite && !rdvMr.isValid()) {
      // deregistered while the data moved: the WRITE fails as one whose R_Key is no longer valid
      release();
      accessError(ch, p, uc);
      return;
    }
    int len = rdvLength;
    int tail = Math.min(p.payloadLength, len);
    int body = len - tail;
    if (rdvBounce != null && body > 0) {
      ByteBuffer b = rdvBounce.buffer();
      if (rdvWrite) {
        rdvMr.copyIn(rdvAddr, b, 0, body);
      } else {
        ctx.scatterRecv(rdvRecv, 0, b, 0, body);
      }
      ctx.chargeBounce(body);
    }
    if (tail > 0) {
      ctx.chargeCopy(tail);
      if (rdvWrite) {
        rdvMr.copyIn(rdvAddr + body, payload, at, tail);
      } else {
        ctx.scatterRecv(rdvRecv, body, payload, at, tail);
      }
    }
    boolean hadRecv = rdvHasRecv;
    release();
    if (hadRecv && !completeRecv(rdvRecv, rdvWrite ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV, len,
        rdvImm, rdvImmData, rdvSolicited, ch.peer, p.srcQpn)) {
      overflow(ch, p, uc);
      return;
    }
    advance(p.psn);
  }

  private void read(Channel ch, Packet p, boolean again) {
    if (maxDestRdAtomic == 0) {
      fatal(ch, p.psn, Packet.NAK_INVALID_REQUEST, AsyncEventType.QP_REQ_ERR);
      return;
    }
    int len = p.length;
    TcaMemoryRegion mr = null;
    if (len > 0) {
      mr = (TcaMemoryRegion) remoteRegion(p.rkey, p.addr, len, Access.REMOTE_READ);
      if (mr == null || !mr.hold()) {
        accessError(ch, p, false);
        return;
      }
    }
    ctx.counters().proxyServed(1);
    try {
      if (len > 0 && !readData(ch, p, mr, len)) {
        // deregistered during the transfer (ibv_dereg_mr returned): what was read may hold later
        // bytes, so the READ fails as one whose R_Key is no longer valid (IBA 9.7.5.2.8)
        accessError(ch, p, false);
        return;
      }
    } finally {
      if (mr != null) {
        mr.release();
      }
    }
    out.clear();
    out.opcode = Packet.READ_RESP;
    out.srcQpn = qp.qpNum();
    out.dstQpn = p.srcQpn;
    out.psn = p.psn;
    out.length = len;
    if (len > 0 && p.value == 0) {
      out.payloadLength = len;
      ch.send(out, ctx.scratch(len), 0);
    } else {
      ch.send(out, null, 0);
    }
    if (!again) {
      epsn = Psn.next(epsn);
    }
  }

  /**
   * Reads a READ's data: a short READ into the scratch buffer (sent in the response), a long one
   * DMA-written to the requester's landing address in pieces, each announced so the requester's
   * timer sees it progress (as each response packet of an InfiniBand READ restarts it). The region
   * is checked after each piece: a deregistration that began before a piece's copy ended may have
   * let the application write bytes the piece read.
   *
   * @return false if the region was deregistered before the last byte was read
   */
  private boolean readData(Channel ch, Packet p, TcaMemoryRegion mr, int len) {
    if (p.value == 0) {
      mr.copyOut(p.addr, ctx.scratch(len), 0, len);
      ctx.chargeCopy(len);
      ctx.chargeRead(mr);
      return mr.isValid();
    }
    for (int off = 0; off < len; off += READ_PIECE) {
      int n = Math.min(READ_PIECE, len - off);
      ctx.dmaFromRegion(mr, p.addr + off, n, p.value + off);
      if (!mr.isValid()) {
        return false;
      }
      if (off + n < len) {
        progress.clear();
        progress.opcode = Packet.READ_PROGRESS;
        progress.srcQpn = qp.qpNum();
        progress.dstQpn = p.srcQpn;
        progress.psn = p.psn;
        progress.length = off + n;
        ch.send(progress, null, 0);
        ctx.counters().packetsSent(ch.flush());
      }
    }
    return true;
  }

  private void atomic(Channel ch, Packet p) {
    if (maxDestRdAtomic == 0) {
      fatal(ch, p.psn, Packet.NAK_INVALID_REQUEST, AsyncEventType.QP_REQ_ERR);
      return;
    }
    if ((p.addr & 7) != 0) {
      fatal(ch, p.psn, Packet.NAK_INVALID_REQUEST, AsyncEventType.QP_REQ_ERR);
      return;
    }
    TcaMemoryRegion mr = (TcaMemoryRegion) remoteRegion(p.rkey, p.addr, 8, Access.REMOTE_ATOMIC);
    if (mr == null || !mr.hold()) {
      accessError(ch, p, false);
      return;
    }
    long old;
    try {
      old = p.has(Packet.F_CAS) ? mr.compareSwap(p.addr, p.value, p.aux) : mr.fetchAdd(p.addr, p.value);
    } finally {
      mr.release();
    }
    ctx.chargeAtomic();
    replayPsn[replayNext] = p.psn;
    replayValue[replayNext] = old;
    replayNext = (replayNext + 1) % Math.min(replayPsn.length, Math.max(1, maxDestRdAtomic));
    atomicResponse(ch, p, old);
    epsn = Psn.next(epsn);
  }

  private void atomicResponse(Channel ch, Packet p, long old) {
    out.clear();
    out.opcode = Packet.ATOMIC_RESP;
    out.srcQpn = qp.qpNum();
    out.dstQpn = p.srcQpn;
    out.psn = p.psn;
    out.length = 8;
    out.value = old;
    ch.send(out, null, 0);
  }

  private void duplicate(Channel ch, Packet p) {
    ctx.counters().duplicates(1);
    switch (p.opcode) {
      case Packet.READ_REQ -> read(ch, p, true);
      case Packet.ATOMIC_REQ -> {
        for (int i = 0; i < replayPsn.length; i++) {
          if (replayPsn[i] == p.psn) {
            atomicResponse(ch, p, replayValue[i]); // executed once, answered again
            return;
          }
        }
      }
      default -> ack(ch, (epsn - 1) & 0xFFFFFF);
    }
  }

  // ================================================================ UD

  private void ud(Channel ch, Packet p, ByteBuffer payload, int at) {
    if (p.rkey != qkey) {
      ctx.counters().qkeyViolations(1);
      return;
    }
    if (!qp.takeRecv(recv)) {
      ctx.counters().dropped(1);
      return;
    }
    int len = p.payloadLength;
    if (len + GRH > recv.totalLength()) {
      recvErrorOnly(recv, WcStatus.LOC_LEN_ERR); // the UD QP stays in RTS (CONFORMANCE.md)
      return;
    }
    if (!ctx.checkRecv(qp.pd(), recv, len + GRH)) {
      recvErrorOnly(recv, WcStatus.LOC_PROT_ERR);
      return;
    }
    ctx.scatterRecv(recv, GRH, payload, at, len);
    if (!completeRecv(recv, WcOpcode.RECV, len + GRH, p.has(Packet.F_IMM), p.imm, p.has(Packet.F_SOLICITED), ch.peer,
        p.srcQpn)) {
      qp.fail();
    }
  }

  // ================================================================ helpers

  private SoftMemoryRegion remoteRegion(int rkey, long addr, int len, Access need) {
    SoftMemoryRegion mr = ctx.memoryKeys().byRkey(rkey);
    if (mr == null || !mr.isValid() || mr.pd() != qp.pd() || !mr.allows(need) || (access & need.value()) == 0
        || !mr.contains(addr, len)) {
      return null;
    }
    return mr;
  }

  private boolean completeRecv(RecvWqe r, WcOpcode op, int len, boolean imm, int immData, boolean solicited, int slid,
      int srcQp) {
    ctx.chargeStore(); // the CQE
    wc.reset(r.wrId(), WcStatus.SUCCESS, op, qp.qpNum());
    wc.byteLen(len);
    if (imm) {
      wc.withImm(immData);
    }
    wc.source(srcQp, slid, 0, false);
    return qp.rcq().push(wc, solicited);
  }

  private void recvErrorOnly(RecvWqe r, WcStatus status) {
    wc.reset(r.wrId(), status, WcOpcode.RECV, qp.qpNum());
    qp.rcq().push(wc, false);
  }

  private void recvError(WcStatus status, Channel ch, Packet p, int nak, boolean uc) {
    recvError(status, recv, ch, p, nak, uc);
  }

  private void recvError(WcStatus status, RecvWqe r, Channel ch, Packet p, int nak, boolean uc) {
    recvErrorOnly(r, status);
    if (uc) {
      return;
    }
    fatal(ch, p.psn, nak, null);
  }

  private void accessError(Channel ch, Packet p, boolean uc) {
    if (uc) {
      ctx.counters().dropped(1);
      return;
    }
    fatal(ch, p.psn, Packet.NAK_REMOTE_ACCESS, AsyncEventType.QP_ACCESS_ERR);
  }

  private void overflow(Channel ch, Packet p, boolean uc) {
    if (!uc) {
        nak(ch, p.psn, Packet.NAK_REMOTE_OPERATIONAL);
    }
    qp.fail();
  }

  private void rnr(Channel ch, Packet p, boolean uc) {
    if (uc) {
      ctx.counters().dropped(1);
      return;
    }
    nak(ch, p.psn, Packet.NAK_RNR | (minRnrTimer & 0x1F));
    ctx.counters().rnrNaksSent(1);
  }

  private void fatal(Channel ch, int psn, int code, AsyncEventType event) {
    nak(ch, psn, code);
    if (event != null) {
      qp.raise(event);
    }
    qp.fail();
  }

  private void advance(int psn) {
    epsn = Psn.next(psn); // no ACK packet: the channel's write-back acknowledges it
  }

  private void ack(Channel ch, int psn) {
    out.clear();
    out.opcode = Packet.ACK;
    out.srcQpn = qp.qpNum();
    out.dstQpn = destQpn;
    out.psn = psn;
    ch.send(out, null, 0);
  }

  private void nak(Channel ch, int psn, int syndrome) {
    out.clear();
    out.opcode = Packet.NAK;
    out.srcQpn = qp.qpNum();
    out.dstQpn = destQpn;
    out.psn = psn;
    out.imm = syndrome;
    ch.send(out, null, 0);
  }
}
