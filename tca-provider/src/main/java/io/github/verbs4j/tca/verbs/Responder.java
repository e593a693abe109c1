package io.github.verbs4j.tca.verbs;

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

  private final RendezvousTarget rendezvous = new RendezvousTarget();

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

  /** Returns pool memory and regions held for rendezvous messages. */
  void release() {
    rendezvous.release();
  }

  /** Flushes the receive WQEs rendezvous messages hold, in order. @return completions pushed */
  int flushHeld(WorkCompletion flush) {
    return rendezvous.flush(flush, qp);
  }

  /** @return rendezvous messages granted and waiting for their FIN (diagnostics, tests) */
  int granted() {
    return rendezvous.granted();
  }

  /** @return rendezvous messages granted or held (diagnostics, tests) */
  int keptRendezvous() {
    return rendezvous.kept();
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
      LOG.trace("responder {} in {} (epsn={}, dest={}@{}, granted={}): {}", qp.describe(), s, epsn, destQpn, dlid,
          rendezvous.granted(), p);
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
      RendezvousTarget.Grant g = rendezvous.oldest();
      if (g != null && p.psn == g.psn) {
        fin(ch, p, payload, at, g); // FINs come in PSN order: a later one waits for the requester to go back
      } else if (!uc && Psn.diff(p.psn, epsn) < 0) {
        duplicate(ch, p); // a message completed before: acknowledged again
      } else {
        ctx.counters().dropped(1);
        ch.discarded(p);
      }
      return;
    }
    if (uc) {
      if (rendezvous.kept() > 0 && rendezvous.find(p.psn) == null) {
        // a newer message: the requester gave up on the one granted (its CTS came too late) and
        // sends no FIN; waiting for it would discard every later message on this QP
        ctx.counters().dropped(1);
        rendezvous.abandon();
      }
      epsn = p.psn; // UC: no sequence recovery, each message stands alone
    }
    boolean rts = p.opcode == Packet.RTS_SEND || p.opcode == Packet.RTS_WRITE;
    RendezvousTarget.Grant kept = rts ? rendezvous.find(p.psn) : null;
    if (kept != null) {
      // the requester went back (timer) and asks again: the same CTS, the same granted memory; a
      // held RTS is answered when its turn comes
      ctx.counters().duplicates(1);
      kept.rts.value = p.value; // the CTS answers the requester's latest RTS
      if (kept.state == RendezvousTarget.Grant.GRANTED) {
        cts(ch, p, kept.dst, false);
      }
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
    if (rts && d == rendezvous.kept()) {
      if (rendezvous.mayGrant()) {
        rts(ch, p, uc); // the next message after those granted (UC: only when none is)
        return;
      }
      if (rendezvous.queue(p)) {
        return; // behind a held RTS: judged after it
      }
    }
    if (d > 0 || rendezvous.kept() > 0) {
      ctx.counters().outOfSequence(1); // behind an RNR-NAKed message: the requester sends it again
      ch.discarded(p);
      return;
    }
    switch (p.opcode) {
      case Packet.SEND -> send(ch, p, payload, at, uc);
      case Packet.WRITE -> write(ch, p, payload, at, uc);
      case Packet.READ_REQ -> read(ch, p, false);
      case Packet.ATOMIC_REQ -> atomic(ch, p);
      default -> {
        ctx.counters().dropped(1);
        ch.discarded(p);
      }
    }
  }

  /** Takes the receive WQE for the next message: a lost UC message's first, else the queue's next. */
  private boolean takeRecv(RecvWqe into) {
    return rendezvous.takeSpare(into) || qp.takeRecv(into);
  }

  private void send(Channel ch, Packet p, ByteBuffer payload, int at, boolean uc) {
    if (!takeRecv(recv)) {
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
      if (imm && !takeRecv(recv)) {
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

  /**
   * An RTS at the next PSN after those granted (arriving, or held and judged again): CTS with where
   * the data goes; when earlier messages are granted and this one cannot be, held until they
   * finish; else refused with a NAK ({@link RendezvousTarget}).
   */
  private void rts(Channel ch, Packet p, boolean uc) {
    int len = p.length;
    boolean write = p.opcode == Packet.RTS_WRITE;
    boolean imm = p.has(Packet.F_IMM);
    boolean ahead = rendezvous.granted() > 0;
    RendezvousTarget.Grant g = rendezvous.judging();
    if (write) {
      SoftMemoryRegion mr = remoteRegion(p.rkey, p.addr, len, Access.REMOTE_WRITE);
      if (mr == null || !((TcaMemoryRegion) mr).hold()) {
        if (ahead) {
          rendezvous.hold(g, p);
          return;
        }
        rendezvous.refuse(g);
        if (uc) {
          cts(ch, p, 0, true);
        } else {
          accessError(ch, p, false);
        }
        return;
      }
      // from here the region is held until the FIN (or a flush): the requester may DMA into it directly
      g.mr = mr;
    }
    if ((!write || imm) && !g.hasRecv) {
      if (!takeRecv(g.recv)) {
        g.releaseRegion();
        if (ahead) {
          rendezvous.hold(g, p);
          return;
        }
        rendezvous.refuse(g);
        if (uc) {
          cts(ch, p, 0, true);
        } else {
          rnr(ch, p, false);
        }
        return;
      }
      g.hasRecv = true;
    }
    if (!write) {
      WcStatus bad = len > g.recv.totalLength() ? WcStatus.LOC_LEN_ERR
          : !ctx.checkRecv(qp.pd(), g.recv, len) ? WcStatus.LOC_PROT_ERR : null;
      if (bad != null) {
        if (ahead) {
          rendezvous.hold(g, p); // with its receive WQE: it completes in error once those before it are done
          return;
        }
        g.hasRecv = false;
        rendezvous.refuse(g);
        int nak = bad == WcStatus.LOC_LEN_ERR ? Packet.NAK_INVALID_REQUEST : Packet.NAK_REMOTE_OPERATIONAL;
        recvError(bad, g.recv, ch, p, nak, uc);
        if (uc) {
          cts(ch, p, 0, true);
        }
        return;
      }
    }
    long dst = write ? ctx.directDestination(g.mr, p.addr, len) : ctx.directDestination(qp.pd(), g.recv, len);
    g.psn = p.psn;
    g.write = write;
    g.imm = imm;
    g.immData = p.imm;
    g.solicited = p.has(Packet.F_SOLICITED);
    g.length = len;
    g.addr = p.addr;
    if (dst < 0) {
      g.bounce = ctx.board().hostPool().allocate(len, 64);
      dst = g.bounce.address();
    }
    g.dst = dst;
    rendezvous.grant(g);
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
    out.value = p.value; // which of the requester's RTSs for this message it answers
    out.flags = drop ? Packet.F_DROP : 0;
    ch.send(out, null, 0);
  }

  /** The FIN of the oldest granted message: the rest of its data, its completion, then a held RTS's turn. */
  private void fin(Channel ch, Packet p, ByteBuffer payload, int at, RendezvousTarget.Grant g) {
    boolean uc = qp.type() == QpType.UC;
    if (g.write && !g.mr.isValid()) {
      // deregistered while the data moved: the WRITE fails as one whose R_Key is no longer valid;
      // RC: the QP fails, flushing the receive WQEs of this message and those after it, in order
      g.releaseRegion();
      if (uc) {
        rendezvous.removeOldest();
      }
      accessError(ch, p, uc);
      return;
    }
    int len = g.length;
    int tail = Math.min(p.payloadLength, len);
    int body = len - tail;
    if (g.bounce != null && body > 0) {
      ByteBuffer b = g.bounce.buffer();
      if (g.write) {
        g.mr.copyIn(g.addr, b, 0, body);
      } else {
        ctx.scatterRecv(g.recv, 0, b, 0, body);
      }
      ctx.chargeBounce(body);
    }
    if (tail > 0) {
      ctx.chargeCopy(tail);
      if (g.write) {
        g.mr.copyIn(g.addr + body, payload, at, tail);
      } else {
        ctx.scatterRecv(g.recv, body, payload, at, tail);
      }
    }
    rendezvous.removeOldest();
    if (g.hasRecv && !completeRecv(g.recv, g.write ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV, len,
        g.imm, g.immData, g.solicited, ch.peer, p.srcQpn)) {
      overflow(ch, p, uc);
      return;
    }
    advance(p.psn);
    // held RTSs are judged now, as if they arrived after this FIN: the first one is granted or
    // refused; each one after a granted one may be granted or stays held
    RendezvousTarget.Grant h = rendezvous.heldDue();
    while (h != null) {
      int before = rendezvous.granted();
      rts(ch, h.rts, uc);
      h = rendezvous.granted() > before ? rendezvous.firstHeld() : null; // held again or refused: stop
    }
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
