package io.github.verbs4j.tca.verbs;

import io.github.verbs4j.tca.peach2.Peach2Link;
import io.github.verbs4j.tca.peach2.TcaMallocPool;
import io.github.verbs4j.verbs.AsyncEventType;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import io.github.verbs4j.verbs.spi.LateTimeout;
import io.github.verbs4j.verbs.spi.runtime.AckWait;
import io.github.verbs4j.verbs.spi.RnrTimer;
import io.github.verbs4j.verbs.spi.wire.Psn;
import java.nio.ByteBuffer;

/**
 * The send side of a QP (seed 000 §3.3): turns WQEs into packets, moves long messages by
 * rendezvous, takes ACKs, NAKs and responses, runs the transport and RNR timers, and completes
 * WQEs in order.
 *
 * <ul>
 *   <li>SEND and WRITE up to {@code verbs.tca.eager-max} bytes: one packet with the payload.
 *   <li>Longer SEND and WRITE: an RTS packet; the target answers CTS with where the data goes (the
 *       receive buffer or region itself when the DMA rules allow, else a bounce buffer of its
 *       pool); the requester DMA-writes the data there (from its own memory when the rules allow,
 *       else through a bounce buffer with matching low four address bits) and sends FIN
 *       ({@link RendezvousSender}). Up to {@link RendezvousTarget#WINDOW} such messages (RC; UC
 *       one) wait for their CTS at once, so the data of one moves while the target answers the
 *       next; nothing else of this QP starts before their FINs have gone (eager data would overtake
 *       a FIN).
 *   <li>READ: a request packet; short data comes back in the response packet, long data is
 *       DMA-written by the target's proxy into a landing area here.
 *   <li>CAS and FETCH_ADD: a request packet; the old value comes back in the response.
 * </ul>
 *
 * <p>PEACH2 is lossless and in order (PCIe link-level retry), but a target QP that is not yet in
 * RTR (or was reset) drops what reaches it. So the local ACK timer (4.096 µs × 2^timeout) sends
 * the unfinished messages again from the oldest (same PSNs; the target answers duplicates again)
 * and ends the oldest WQE with RETRY_EXC_ERR after retry_cnt expiries without progress, which is
 * how a dead or reset peer is detected. After an RNR NAK the requester waits the responder's RNR
 * timer and starts again at the NAKed message (the target discarded what followed it); rnr_retry =
 * 7 retries forever.
 *
 * <p>Runs in the proxy's duty cycle under the QP's lock; times are the proxy's clock.
 */
final class Requester {
  private final TcaQueuePair qp;
  private final TcaContext ctx;
  private final RendezvousSender rendezvous;
  private final Packet out = new Packet();
  private final WorkCompletion wc = new WorkCompletion();

  /** Next WQE to start. */
  private long next;
  private int nextPsn;
  /** One past the highest PSN assigned: a rewind does not move it back (query()'s sq_psn). */
  private int newPsn;
  private int timeoutCode;
  private int retryCnt;
  private int rnrRetry;
  private int maxRdAtomic = 1;
  private int destQpn;
  private int dlid;
  private boolean configured;

  private int rdAtomicOutstanding;
  private long rnrUntil;
  private int rnrCount;
  private int timeouts;
  /** Late timeouts left before they count again ({@link LateTimeout}); reset with {@link #timeouts}. */
  private int lateLeft = LateTimeout.BUDGET;
  private long lastProgress;
  /** Expiries before the peer's engine had the packets or this side took what reached it. */
  private final AckWait ackWait = new AckWait();
  private boolean notifyDrain;
  private boolean drainRaised;
  private long sqdMark;

  Requester(TcaQueuePair qp) {
    this.qp = qp;
    this.ctx = qp.ctx;
    this.rendezvous = new RendezvousSender(qp);
  }

  /** RTR→RTS: the send side's attributes. */
  void configure(QpAttr a) {
    nextPsn = a.sqPsn() & 0xFFFFFF;
    newPsn = nextPsn;
    update(a);
    if (qp.type() != QpType.UD) {
      destQpn = a.destQpNum();
      dlid = a.ahAttr() != null ? a.ahAttr().dlid() : 0;
    }
    configured = true;
  }

  /** Attributes that may change in RTS/SQD. */
  void update(QpAttr a) {
    timeoutCode = a.timeout();
    retryCnt = a.retryCnt();
    rnrRetry = a.rnrRetry();
    maxRdAtomic = Math.max(1, a.maxRdAtomic());
    drainRaised = false;
  }

  /**
   * RTS→SQD: the WQEs posted so far still start and complete; later ones wait for RTS.
   *
   * @param on whether to raise SQ_DRAINED when they have completed
   * @param mark the send queue's tail at the transition
   */
  void drainNotify(boolean on, long mark) {
    notifyDrain = on;
    drainRaised = false;
    sqdMark = mark;
  }

  /** @return whether every WQE posted before SQD has completed */
  boolean drained() {
    return qp.head >= sqdMark && qp.head == next;
  }

  /** The queue was flushed or reset up to {@code tail}. */
  void flushed(long tail) {
    next = tail;
    rdAtomicOutstanding = 0;
    rendezvous.flushed();
    rnrUntil = 0;
  }

  /** Returns a WQE's pool memory. */
  void release(SendWqe w) {
    if (w.landing != null) {
      w.landing.free();
      w.landing = null;
    }
  }

  // ================================================================ progress (the proxy's duty cycle)

  /**
   * Starts what may start, checks the timers, completes what finished.
   *
   * @param now the proxy's clock at this duty cycle
   * @return whether anything happened
   */
  boolean progress(long now) {
    QpState s = qp.state();
    if (!configured || (s != QpState.RTS && s != QpState.SQD)) {
      return false;
    }
    boolean work = false;
    if (rnrUntil != 0 && now - rnrUntil >= 0) {
      rnrUntil = 0;
      lastProgress = now; // the transport timer restarts with the retry
    }
    while ((s == QpState.RTS || next < sqdMark) && rnrUntil == 0 && next < qp.tail) {
      SendWqe w = qp.slot(next);
      if (rendezvous.holdsBack(w)) {
        break;
      }
      if (w.needsResponse() && rdAtomicOutstanding >= maxRdAtomic) {
        break;
      }
      if (w.fence && rdAtomicOutstanding > 0) {
        break;
      }
      if (!w.restarted && w.postTime - now > 0 && w.postTime != Long.MIN_VALUE) {
        ctx.board().clock().advanceTo(w.postTime); // a doorbell rung then: the WQE starts no earlier
        now = w.postTime;
      }
      if (qp.head == next && !w.restarted) {
        lastProgress = now; // the timer starts with the first outstanding WQE
        timeouts = 0;
        lateLeft = LateTimeout.BUDGET;
        ackWait.reset();
      }
      start(w);
      next++;
      work = true;
      if (w.state == SendWqe.DONE && w.status != WcStatus.SUCCESS) {
        break; // a local error: nothing after it starts; it completes (and fails the QP) in order
      }
    }
    work |= checkTimeout(now);
    work |= complete();
    if (s == QpState.SQD && notifyDrain && !drainRaised && drained()) {
      drainRaised = true;
      qp.raise(AsyncEventType.SQ_DRAINED);
    }
    return work;
  }

  private boolean checkTimeout(long now) {
    if (qp.head == next || rnrUntil != 0 || (!qp.reliable() && rendezvous.awaitingCts() == 0)) {
      return false;
    }
    long t = timeoutNanos();
    if (t == 0) {
      return false;
    }
    if (now - lastProgress < t) {
      return false;
    }
    if (qp.reliable() && ctx.board().dataLink().unacknowledgedTlps(dlid) > 0) {
      // PEACH2 links are lossless: what the link still holds for the peer is being replayed, not
      // lost. In hardware that takes microseconds; on a loaded host's wall clock it can outlast this
      // timer, and going back would only add duplicates. The timer counts again once the link has
      // delivered everything, or went down and discarded it.
      lastProgress = now;
      ctx.counters().linkBusyTimeouts(1);
      return false;
    }
    if (qp.reliable() && waiting(now)) {
      lastProgress = now;
      ctx.counters().waitTimeouts(1);
      return false;
    }
    boolean late = LateTimeout.isLate(now - lastProgress - t, t) && lateLeft > 0;
    lastProgress = now;
    SendWqe w = qp.slot(qp.head);
    if (!qp.reliable()) {
      finish(w, WcStatus.SUCCESS); // UC: the target never answered the RTS; the message is lost, as UC loses it
      return true;
    }
    ctx.counters().timeouts(1);
    if (late) {
      lateLeft--;
      ctx.counters().lateTimeouts(1);
    } else {
      timeouts++;
    }
    if (timeouts > retryCnt) {
      finish(w, WcStatus.RETRY_EXC_ERR);
      return true;
    }
    if (!late) {
      ctx.counters().transportRetries(1); // RNR NAKs never get here: they stop this timer
    }
    // go back: the oldest unfinished WQE and everything after it go out again with the same PSNs
    for (long i = qp.head; i < next; i++) {
      SendWqe o = qp.slot(i);
      if (o.state != SendWqe.DONE) {
        ctx.counters().retransmits(next - i);
        rewind(o);
        break;
      }
    }
    return true;
  }

  /**
   * @return whether the expired timer must wait ({@link AckWait}): the peer's proxy has not caught
   *     up since the timer started (its host did not run it), or frames that reached this node
   *     still wait in the fabric's queues
   */
  private boolean waiting(long now) {
    Peach2Link link = ctx.board().link();
    long startedAt = System.nanoTime() - (now - lastProgress); // the timer's start on the peers' clock
    return ackWait.judge(link.receiveDrained(), 0, link.peerReadMark(dlid), link.peerCaughtUpNanos(dlid), startedAt,
        now, AckWait.patience(timeoutNanos(), link.peerTimeoutNanos())) != AckWait.Verdict.EXPIRED;
  }

  /** @return whether sent messages wait for their ACK (not an RNR wait: its timer is a real event) */
  boolean awaitsAck() {
    return timeoutNanos() != 0 && qp.head != next && rnrUntil == 0;
  }

  /** The time of the next timer, or Long.MAX_VALUE (for the proxy's park). */
  long nextDeadline() {
    long d = Long.MAX_VALUE;
    if (rnrUntil != 0) {
      d = rnrUntil;
    }
    long t = timeoutNanos();
    if (t != 0 && qp.head != next && rnrUntil == 0) {
      d = Math.min(d, lastProgress + t);
    }
    return d;
  }

  /** @return the local ACK timeout in ns (0 = infinite); UC uses timeout code 14 to give up on a CTS */
  private long timeoutNanos() {
    return RnrTimer.ackTimeoutNanos(qp.reliable() ? timeoutCode : 14);
  }

  private void finish(SendWqe w, WcStatus status) {
    if (w.state == SendWqe.DONE) {
      return;
    }
    if (w.needsResponse() && w.state == SendWqe.SENT) {
      rdAtomicOutstanding--;
    }
    rendezvous.left(w);
    w.state = SendWqe.DONE;
    w.status = status;
    release(w);
    if (status == WcStatus.RETRY_EXC_ERR) {
      ctx.counters().retryExceeded(1);
    } else if (status == WcStatus.RNR_RETRY_EXC_ERR) {
      ctx.counters().rnrRetryExceeded(1);
    }
  }

  /** @return the PSN of the next new request (query()'s sq_psn); under the QP's lock */
  int nextNewPsn() {
    return newPsn;
  }

  /** Completes finished WQEs from the head, in order. */
  private boolean complete() {
    boolean any = false;
    while (qp.head < next) {
      SendWqe w = qp.slot(qp.head);
      if (w.state != SendWqe.DONE) {
        break;
      }
      qp.head++;
      any = true;
      boolean ok = w.status == WcStatus.SUCCESS;
      if (w.signaled || !ok) {
        ctx.chargeStore(); // the CQE
        wc.reset(w.wrId, w.status, w.opcode.completionOpcode(), qp.qpNum());
        if (ok && w.needsResponse()) {
          wc.byteLen(w.opcode == WrOpcode.RDMA_READ ? (int) w.total : 8);
        }
        if (!qp.scq().push(wc, false)) {
          qp.fail();
          return true;
        }
      }
      if (!ok) {
        qp.fail();
        return true;
      }
    }
    return any;
  }

  // ================================================================ starting WQEs

  private void start(SendWqe w) {
    ctx.chargePoll(); // the proxy finds the WQE
    if (!w.restarted && (!w.isInline() || w.inlineLength == -2)) {
      boolean write = w.needsResponse();
      if (w.inlineLength == -2 || !ctx.checkLocal(qp.pd(), w, write)) {
        finish(w, WcStatus.LOC_PROT_ERR);
        return;
      }
    }
    if (qp.type() == QpType.UD) {
      startUd(w);
      return;
    }
    w.psn = nextPsn;
    nextPsn = Psn.next(nextPsn);
    if (Psn.diff(nextPsn, newPsn) > 0) {
      newPsn = nextPsn;
    }
    out.clear();
    out.srcQpn = qp.qpNum();
    out.dstQpn = destQpn;
    out.psn = w.psn;
    out.length = (int) w.total;
    out.addr = w.remoteAddr;
    out.rkey = w.rkey;
    out.imm = w.imm;
    int eagerMax = ctx.eagerMax();
    Channel ch = ctx.proxy().channel(dlid);
    if (ch == null) {
      w.state = SendWqe.SENT; // no such node: the timer will end it
      return;
    }
    switch (w.opcode) {
      case SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM -> {
        boolean send = w.opcode == WrOpcode.SEND || w.opcode == WrOpcode.SEND_WITH_IMM;
        if (w.opcode == WrOpcode.SEND_WITH_IMM || w.opcode == WrOpcode.RDMA_WRITE_WITH_IMM) {
          out.flags |= Packet.F_IMM;
        }
        if (w.solicited) {
          out.flags |= Packet.F_SOLICITED;
        }
        if (w.total <= eagerMax) {
          out.opcode = send ? Packet.SEND : Packet.WRITE;
          out.payloadLength = (int) w.total;
          if (qp.reliable()) {
            out.flags |= Packet.F_ACK_REQ;
          }
          // gathered straight into the ring (or a copy that waits for credits)
          w.seq = ch.send(out, ctx, w, 0);
          w.state = qp.reliable() ? SendWqe.SENT : SendWqe.DONE;
        } else {
          rendezvous.rts(ch, out, w, send);
        }
      }
      case RDMA_READ -> {
        out.opcode = Packet.READ_REQ;
        if (w.total > eagerMax) {
          out.value = w.landingAddress != 0 ? w.landingAddress : landing(w);
          w.landingAddress = out.value;
        }
        ch.send(out, null, 0);
        w.state = SendWqe.SENT;
        rdAtomicOutstanding++;
      }
      case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> {
        out.opcode = Packet.ATOMIC_REQ;
        out.length = 8;
        if (w.opcode == WrOpcode.ATOMIC_CMP_AND_SWP) {
          out.flags |= Packet.F_CAS;
        }
        out.value = w.compareAdd;
        out.aux = w.swap;
        ch.send(out, null, 0);
        w.state = SendWqe.SENT;
        rdAtomicOutstanding++;
      }
      default -> finish(w, WcStatus.LOC_QP_OP_ERR);
    }
  }

  /** Where a long READ's data lands: the requester's SGE itself when the rules allow, else a bounce buffer. */
  private long landing(SendWqe w) {
    long want = w.remoteAddr & 12; // a 4-byte aligned landing whose low bits match the source's
    if (w.numSge == 1) {
      long g = ctx.globalAddress(w.lkey[0], w.addr[0], w.len[0]);
      if (g >= 0 && (g & 15) == want) {
        w.landsInPlace = true;
        return g;
      }
    }
    TcaMallocPool.Block b = ctx.board().hostPool().allocate((int) w.total + 16, 64);
    w.landing = b;
    return b.address() + want;
  }

  private void startUd(SendWqe w) {
    Channel ch = ctx.proxy().channel(w.dlid);
    if (w.total > ctx.udMtu()) {
      ctx.counters().dropped(1); // larger than the UD MTU: completes, is never delivered (as on a real HCA)
    } else if (ch != null) {
      out.clear();
      out.opcode = Packet.UD_SEND;
      out.srcQpn = qp.qpNum();
      out.dstQpn = w.remoteQpn;
      out.rkey = (w.remoteQkey & 0x80000000) != 0 ? qp.attrs().qkey() : w.remoteQkey;
      out.length = (int) w.total;
      out.payloadLength = (int) w.total;
      out.imm = w.imm;
      if (w.opcode == WrOpcode.SEND_WITH_IMM) {
        out.flags |= Packet.F_IMM;
      }
      if (w.solicited) {
        out.flags |= Packet.F_SOLICITED;
      }
      ch.send(out, ctx, w, 0);
    }
    w.state = SendWqe.DONE; // unreliable: complete once handed to the board
    w.status = WcStatus.SUCCESS;
  }

  // ================================================================ responses

  /**
   * A response packet for this QP.
   *
   * @param ch the channel it came on
   * @param p the packet
   * @param payload holds its payload
   * @param at index of the first payload byte
   * @param now the proxy's clock at this duty cycle
   */
  void onResponse(Channel ch, Packet p, ByteBuffer payload, int at, long now) {
    QpState s = qp.state();
    if (!configured || (s != QpState.RTS && s != QpState.SQD) || ch.peer != dlid || p.srcQpn != destQpn) {
      ctx.counters().dropped(1);
      return;
    }
    switch (p.opcode) {
      case Packet.ACK -> ackUpTo(p.psn, true, now);
      case Packet.READ_RESP, Packet.ATOMIC_RESP -> {
        ackUpTo(p.psn, false, now);
        SendWqe w = find(p.psn);
        if (w == null || w.state != SendWqe.SENT || !w.needsResponse()) {
          ctx.counters().dropped(1);
          return;
        }
        if (p.opcode == Packet.READ_RESP) {
          readDone(w, p, payload, at);
        } else {
          ctx.putLong(w, p.value);
        }
        finish(w, WcStatus.SUCCESS);
        progressMade(now);
      }
      case Packet.CTS -> cts(ch, p, now);
      case Packet.READ_PROGRESS -> {
        SendWqe w = find(p.psn);
        if (w != null && w.state == SendWqe.SENT) {
          progressMade(now);
        }
      }
      case Packet.NAK -> nak(p, now);
      default -> ctx.counters().dropped(1);
    }
    complete();
  }

  /**
   * The peer's write-back says it took and accepted the packet {@code seq} of PSN {@code psn} (seed
   * 000: the receive PSN is the acknowledgement). Acknowledges up to that PSN, as an ACK would, if
   * {@code seq} is the message's latest transmission (an earlier one may have been discarded).
   *
   * @param ch the channel it went on
   * @param psn its PSN
   * @param seq its sequence number on the channel
   * @param now the proxy's clock at this duty cycle
   */
  void delivered(Channel ch, int psn, int seq, long now) {
    QpState s = qp.state();
    if (!configured || (s != QpState.RTS && s != QpState.SQD) || ch.peer != dlid) {
      return;
    }
    SendWqe w = find(psn);
    if (w == null || w.state != SendWqe.SENT || w.needsResponse() || w.seq != seq) {
      return;
    }
    ackUpTo(psn, true, now);
    complete();
  }

  private void progressMade(long now) {
    lastProgress = now;
    timeouts = 0;
    lateLeft = LateTimeout.BUDGET;
    ackWait.reset();
  }

  /** WQEs before {@code psn} (and at it, if {@code inclusive}) that wait only for an ACK are done. */
  private void ackUpTo(int psn, boolean inclusive, long now) {
    boolean any = false;
    for (long i = qp.head; i < next; i++) {
      SendWqe w = qp.slot(i);
      int d = Psn.diff(w.psn, psn);
      if (d > 0 || (d == 0 && !inclusive)) {
        break;
      }
      if ((w.state == SendWqe.SENT || w.state == SendWqe.WAIT_CTS) && !w.needsResponse()) {
        finish(w, WcStatus.SUCCESS);
        any = true;
      }
    }
    if (any || inclusive) {
      rnrCount = 0;
      progressMade(now);
    }
  }

  private SendWqe find(int psn) {
    for (long i = qp.head; i < next; i++) {
      SendWqe w = qp.slot(i);
      if (w.state != SendWqe.DONE && w.psn == psn) {
        return w;
      }
    }
    return null;
  }

  private void readDone(SendWqe w, Packet p, ByteBuffer payload, int at) {
    if (p.payloadLength > 0) {
      ctx.scatter(w, payload, at, p.payloadLength);
      ctx.chargeCopy(p.payloadLength);
    } else if (w.landing != null) {
      ByteBuffer m = w.landing.buffer();
      ctx.scatter(w, m, (int) (w.remoteAddr & 12), (int) w.total);
      ctx.chargeBounce(w.total);
    }
  }

  private void cts(Channel ch, Packet p, long now) {
    SendWqe w = find(p.psn);
    if (!rendezvous.answers(w, p)) {
      // also a CTS that answers an RTS from before the requester went back: the target may have
      // taken that try's FIN and let its memory go since; only the CTS of the latest RTS is used
      ctx.counters().dropped(1);
      return;
    }
    rendezvous.left(w);
    progressMade(now);
    if (!p.has(Packet.F_DROP)) {
      rendezvous.writeBody(w, p);
      progressMade(ctx.proxy().clockNanos()); // the DMA took its time here: not the peer's silence
      rendezvous.fin(ch, w, destQpn);
    }
    w.state = SendWqe.SENT;
    if (!qp.reliable()) {
      finish(w, WcStatus.SUCCESS);
    }
  }

  private void nak(Packet p, long now) {
    ackUpTo(p.psn, false, now);
    SendWqe w = find(p.psn);
    if (w == null) {
      ctx.counters().dropped(1);
      return;
    }
    int syndrome = p.imm;
    if ((syndrome & 0xE0) == Packet.NAK_RNR) {
      ctx.counters().rnrNaksReceived(1);
      if (rnrRetry != 7 && rnrCount >= rnrRetry) {
        finish(w, WcStatus.RNR_RETRY_EXC_ERR);
        return;
      }
      rnrCount++;
      progressMade(now); // the target answered: it is alive, only out of receives
      rnrUntil = now + RnrTimer.nanos(syndrome & 0x1F);
      rewind(w);
      return;
    }
    WcStatus st = switch (syndrome) {
      case Packet.NAK_INVALID_REQUEST -> WcStatus.REM_INV_REQ_ERR;
      case Packet.NAK_REMOTE_ACCESS -> WcStatus.REM_ACCESS_ERR;
      case Packet.NAK_REMOTE_OPERATIONAL -> WcStatus.REM_OP_ERR;
      default -> WcStatus.BAD_RESP_ERR;
    };
    finish(w, st);
  }

  /** Starts again at {@code from}: it and everything sent after it go out again (same PSNs). */
  private void rewind(SendWqe from) {
    long at = -1;
    for (long k = qp.head; k < next; k++) {
      if (qp.slot(k) == from) {
        at = k;
        break;
      }
    }
    if (at < 0) {
      return;
    }
    for (long i = at; i < next; i++) {
      SendWqe w = qp.slot(i);
      if (w.state == SendWqe.DONE) {
        continue;
      }
      if (w.needsResponse() && w.state == SendWqe.SENT) {
        rdAtomicOutstanding--;
      } else {
        rendezvous.left(w);
      }
      w.state = SendWqe.QUEUED; // a READ keeps its landing area: a late DMA of the first try may still land
      w.restarted = true;
    }
    nextPsn = from.psn;
    next = at;
  }

  /** @return for diagnostics */
  @Override
  public String toString() {
    return "Requester{head=" + qp.head + ", next=" + next + ", tail=" + qp.tail + ", psn=" + nextPsn + ", rdAtomic="
        + rdAtomicOutstanding + ", awaitingCts=" + rendezvous.awaitingCts() + '}';
  }
}
