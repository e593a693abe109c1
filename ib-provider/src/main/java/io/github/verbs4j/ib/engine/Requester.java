package io.github.verbs4j.ib.engine;

import io.github.verbs4j.ib.wire.Opcode;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WrOpcode;
import io.github.verbs4j.verbs.spi.LateTimeout;
import io.github.verbs4j.verbs.spi.runtime.AckWait;
import io.github.verbs4j.verbs.spi.wire.Psn;
import io.netty.buffer.ByteBuf;

/**
 * The requester (rxe_req.c): turns send WQEs into request packets. It assigns PSNs, segments
 * messages at the path MTU, keeps the RC window ({@code maxUnackedPsns}) and the {@code
 * max_rd_atomic} limit, honours fences, sets AckReq at the end of each signaled message, of the
 * last message posted so far, and every {@code ackReqEvery} packets, and owns the timers: the
 * local ACK timeout (4.096 us * 2^timeout, {@code retry_cnt} retries), the RNR timer ({@code
 * rnr_retry}, 7 = infinite) and the seed-002 stop timer (a stopped stream probes after {@link
 * #STOP_PROBE_TIMEOUTS} local ACK timeouts). A retry rewinds to the oldest unacknowledged PSN and
 * regenerates packets from their PSN: the byte offset of PSN p in a WQE is {@code (p - firstPsn) *
 * mtu}.
 *
 * <p>Loss recovery and RNR flow control are one state machine, {@link Recovery}: the completer
 * moves it on timeouts and NAKs, this class on its timers and on rewinding. Only transport
 * retries (timeouts, sequence NAKs, lost responses) spend {@code retry_cnt}; an RNR NAK spends
 * {@code rnr_retry} and nothing else, so a stream that relies on RNR as flow control never ends
 * in RETRY_EXC_ERR while the receiver is alive. A seed-002 stop request spends nothing: the
 * stream holds at the stopped PSN until the receiver's resend request.
 *
 * <p>Engine thread only, under the QP lock.
 */
final class Requester {
  private final EngineQp qp;
  private final IbDevice dev;
  private final Transmitter tx;
  private final SendQueue sq;
  private final RequestPacket packet = new RequestPacket();

  /** Next PSN to send. */
  int psn;
  /** Next WQE to (re)send. */
  long wqeIndex;
  /**
   * SQD: WQEs below this index were posted before the modify to SQD and are still processed (the
   * doorbell had been rung, so for the QP they had started); later ones wait for RTS.
   */
  long drainLimit;
  /** One past the highest PSN ever sent, and whether anything was. */
  int sentHigh;
  boolean anySent;
  int rdAtomicCredits;
  private Recovery recovery = Recovery.NONE;
  /** The PSN {@link #recovery} refers to (NAK point, RNR-NAKed PSN). */
  private int recoveryPsn;
  /**
   * RNR_WAIT / RNR_PROBE: the last PSN of the RNR-NAKed message; STOPPED / STOP_PROBE: the last
   * PSN the stop probe's window may send.
   */
  private int probeLastPsn;
  /** STOPPED / STOP_PROBE: PSNs the stop probe's window holds; doubles on each ACK of it. */
  private int probeWindow;
  private boolean blocked;
  private int pktsSinceAckReq;
  int retryLeft;
  /**
   * Late timeouts left before they spend {@code retry_cnt} again ({@link LateTimeout}); reset with
   * the retry counts on progress.
   */
  int lateLeft;
  /** Timeouts that find the packets not yet at the peer's engine, or the answer not yet heard. */
  private final AckWait ackWait = new AckWait();
  int rnrLeft;
  private boolean retransmitArmed;
  private long retransmitDeadline;
  /** When the retransmit timer was armed, {@link System#nanoTime()} (what peers' engines stamp). */
  private long retransmitArmedWall;
  /** RNR_WAIT: when the RNR timer expires; STOPPED: when the stop timer sends a probe. */
  private long waitDeadline;
  boolean peerDead;
  private boolean moreToSend;
  private final RequestReadiness ready = new RequestReadiness();
  private final DcEpoch dc = new DcEpoch();

  Requester(EngineQp qp) {
    this.qp = qp;
    this.dev = qp.dev;
    this.tx = qp.dev.tx;
    this.sq = qp.sq;
  }

  void reset(int startPsn) {
    psn = startPsn & Psn.MASK;
    sentHigh = psn;
    anySent = false;
    wqeIndex = sq.head();
    rdAtomicCredits = qp.maxRdAtomic;
    recovery = Recovery.NONE;
    blocked = false;
    pktsSinceAckReq = 0;
    retryLeft = qp.retryCnt;
    lateLeft = LateTimeout.BUDGET;
    ackWait.reset();
    rnrLeft = qp.rnrRetry;
    retransmitArmed = false;
    peerDead = qp.type != QpType.DCI && dev.params.failFastOnPeerDown && qp.dlid != 0 && dev.isDead(qp.dlid);
    moreToSend = false;
    dc.reset();
  }

  /** RTS to RTS / SQD to RTS: counts and limits may have changed. */
  void attributesChanged() {
    retryLeft = qp.retryCnt;
    lateLeft = LateTimeout.BUDGET;
    ackWait.reset();
    rnrLeft = qp.rnrRetry;
  }

  void stop() {
    retransmitArmed = false;
    recovery = Recovery.NONE;
    moreToSend = false;
  }

  void flushed(long tail) {
    wqeIndex = tail;
  }

  boolean wantsMore() {
    return moreToSend || rewindDue();
  }

  private boolean rewindDue() {
    return recovery.rewindDue();
  }

  /**
   * @return the PSN of the next new request packet: one past the highest PSN sent, so a rewind
   *     does not move it back (ibv_query_qp's sq_psn)
   */
  int nextNewPsn() {
    return anySent ? sentHigh : psn;
  }

  /** SQD entered: finish what was posted before it. */
  void beginDrain() {
    drainLimit = sq.tail();
  }

  /** @return true when every started WQE is complete and the next one has not started (SQD) */
  boolean drained() {
    long head = sq.head();
    return head == wqeIndex && (wqeIndex == sq.tail()
        || (wqeIndex >= drainLimit && sq.slot(wqeIndex).state == SendWqe.POSTED));
  }

  /** @return whether PSNs are sent and not yet acknowledged */
  boolean outstanding() {
    return anySent && Psn.compare(sentHigh, qp.completer.psn) > 0;
  }

  // ------------------------------------------------------------------ sending

  int progress(long now) {
    moreToSend = false;
    ready.resume(now);
    switch (recovery) {
      case RETRY_DUE -> {
        retry(now);
        recovery = Recovery.NONE;
      }
      case NAK_RETRY_DUE -> {
        retry(now);
        recovery = Recovery.NAK_RETRIED;
      }
      case RNR_RETRY_DUE -> {
        retry(now);
        recovery = Recovery.RNR_PROBE;
      }
      case RESEND_DUE -> {
        rewind(now); // seed 002: the receiver asked for it; no retry, no retransmit counted
        recovery = Recovery.STOP_PROBE; // the stopped message first; the window reopens on its ACK
      }
      case STOP_PROBE_DUE -> {
        rewind(now);
        recovery = Recovery.STOP_PROBE;
      }
      case RNR_WAIT, STOPPED -> {
        ready.stall();
        return 0;
      }
      default -> {
        // NONE, NAK_RETRIED, RNR_PROBE, STOP_PROBE: send
      }
    }
    if (recovery != Recovery.NONE) {
      ready.stall(); // a retry or a probe: what follows waits on the peer's answer
    }
    if (blocked) {
      return 0;
    }
    int budget = dev.params.requesterBudget;
    int sent = 0;
    long tail = sq.tail();
    boolean sqd = qp.owner.state() == io.github.verbs4j.verbs.QpState.SQD;
    while (wqeIndex < tail) {
      SendWqe w = sq.slot(wqeIndex);
      if (w.state == SendWqe.POSTED) {
        if (sqd && wqeIndex >= drainLimit) {
          ready.stall();
          break;
        }
        if (w.postTime - now > 0 && w.postTime != Long.MIN_VALUE) {
          dev.port.advanceTo(w.postTime); // a doorbell rung then: the WQE starts no earlier
          now = w.postTime;
        }
        int r = start(w);
        if (r == STOP) {
          ready.stall(); // a fence, rd_atomic credits or a DC target switch: waits for ACKs
          break;
        }
        if (r == SKIP) {
          wqeIndex++;
          continue;
        }
      } else if (w.state == SendWqe.ERROR) {
        blocked = true;
        break;
      } else if (w.state != SendWqe.ACTIVE) {
        // PENDING or DONE beyond a rewind point: already complete on the wire.
        wqeIndex++;
        continue;
      }
      if (qp.reliable() && Psn.compare(psn, Psn.add(qp.completer.psn, dev.params.maxUnackedPsns)) >= 0) {
        ready.stall();
        break;
      }
      if (recovery.probing() && Psn.compare(psn, probeLastPsn) > 0) {
        ready.stall();
        break; // the probe is out; the rest waits for its ACK
      }
      if (sent >= budget) {
        moreToSend = true;
        break;
      }
      int dlid = qp.destination(w);
      // Back-pressure waits; a dead peer does not (its packets are dropped on the way and the
      // retransmit timer ends the WQE with RETRY_EXC_ERR, as on a wire to a vanished node).
      if (!dev.port.isWritable(dlid) && !dev.isDead(dlid)) {
        moreToSend = true;
        break;
      }
      if (!sendPacket(w, dlid, now)) {
        blocked = true;
        break;
      }
      sent++;
    }
    return sent;
  }

  private static final int GO = 0;
  private static final int STOP = 1;
  private static final int SKIP = 2;

  /** A WQE's first packet: fence, rd_atomic credit, DC epoch, local checks, PSN range. */
  private int start(SendWqe w) {
    // IBA 10.8.3.3 fence: wait for every earlier READ and atomic (not every WQE: rxe 930119a17200).
    if (w.fenced() && rdAtomicCredits < qp.maxRdAtomic) {
      return STOP;
    }
    if (w.isReadOrAtomic() && rdAtomicCredits <= 0) {
      return STOP;
    }
    if (qp.type == QpType.DCI && !dc.current(w)) {
      if (sq.head() != wqeIndex) {
        return STOP; // switch DCT only once every earlier WQE is acknowledged
      }
      dc.connect(w, psn);
      peerDead = dev.isDead(w.dlid);
    }
    WcStatus local = w.validate(qp.memory, qp.pd);
    if (local != WcStatus.SUCCESS) {
      w.state = SendWqe.ERROR;
      w.status = local;
      return STOP;
    }
    int mtu = qp.sendMtu();
    if (qp.type == QpType.UD && w.totalLength > mtu) {
      // C10-93.1.1: a UD message larger than the MTU is not sent and completes successfully.
      w.state = SendWqe.DONE;
      return SKIP;
    }
    if (w.isReadOrAtomic()) {
      rdAtomicCredits--;
      w.hasCredit = true;
    }
    w.npkts = w.opcode.isAtomic() ? 1 : Math.max(1, (w.totalLength + mtu - 1) / mtu);
    w.firstPsn = psn;
    w.lastPsn = Psn.add(psn, w.npkts - 1);
    w.state = SendWqe.ACTIVE;
    return GO;
  }

  /** Builds and sends the packet with PSN {@link #psn} of WQE {@code w}; false on a local error. */
  private boolean sendPacket(SendWqe w, int dlid, long now) {
    int mtu = qp.sendMtu();
    int index = Psn.distance(w.firstPsn, psn);
    long offset = (long) index * mtu;
    WrOpcode wop = w.opcode;
    int pktPsn = psn;
    boolean retransmit = anySent && Psn.compare(pktPsn, sentHigh) < 0;
    RequestPacket pkt = packet;
    if (dev.port.modelledTime()) {
      tx.request(ready.readyAt(w, retransmit, dev.port.nowNanos()));
    }
    if (!pkt.build(tx, qp.transport(), w, offset, mtu, dlid, qp, dc.generation(), dc.epochPsn())) {
      tx.request(Long.MIN_VALUE);
      return false;
    }
    Opcode op = pkt.op;
    int payload = pkt.payload;
    boolean last = pkt.last;
    ByteBuf b = pkt.buf;
    int base = pkt.base;
    int destQp = pkt.destQp;
    boolean ackReq = false;
    if (qp.reliable()) {
      pktsSinceAckReq++;
      // Like rxe: ask for an ACK at the end of a signaled WQE, and every ackReqEvery packets so the
      // window moves; also at the end of the last WQE posted so far, so an unsignaled tail is
      // acknowledged without waiting for the retransmit timer. Unsignaled messages in a stream
      // then need no ACK packet each (the next ACK covers them: ACKs are cumulative).
      // An RNR probe asks for its ACK: the window reopens on it.
      if (last && (w.signaled || wqeIndex + 1 >= sq.tail()) || pktsSinceAckReq >= dev.params.ackReqEvery
          || recovery.probing() && pktPsn == probeLastPsn) {
        ackReq = true;
        pktsSinceAckReq = 0;
      }
    }
    boolean se = last && w.solicited() && (wop == WrOpcode.SEND || wop == WrOpcode.SEND_WITH_IMM
        || wop == WrOpcode.RDMA_WRITE_WITH_IMM);
    int sl = qp.serviceLevel(w);
    // Update every piece of state before the packet leaves (rxe pitfall P2).
    if (wop == WrOpcode.RDMA_READ) {
      psn = Psn.next(w.lastPsn);
    } else {
      psn = Psn.next(psn);
    }
    if (last) {
      w.state = qp.reliable() ? SendWqe.PENDING : SendWqe.DONE;
      wqeIndex++;
    }
    if (!anySent || Psn.compare(psn, sentHigh) > 0) {
      sentHigh = psn;
      anySent = true;
    }
    if (retransmit) {
      dev.counters.inc(IbCounters.Counter.RETRANSMITTED_PACKETS);
    }
    if (qp.reliable() && !retransmitArmed && qp.timeoutNanos > 0) {
      armRetransmit(now);
    }
    tx.commit(b, base, op, dlid, sl, destQp, pktPsn, se, ackReq, payload);
    if (last && !qp.reliable()) {
      w.sentTime = tx.departure(); // an unreliable WQE completes when its last packet has left
    }
    return true;
  }

  // ------------------------------------------------------------------ retry

  /**
   * Rewinds to the oldest unacknowledged PSN (rxe req_retry): every started WQE from the SQ head
   * on is sent again from there, with its original PSNs.
   */
  private void retry(long now) {
    dev.counters.inc(IbCounters.Counter.RETRANSMITS);
    rewind(now);
  }

  private void rewind(long now) {
    long head = sq.head();
    long tail = sq.tail();
    long end = Math.max(wqeIndex, head);
    for (long i = head; i < tail && i <= end; i++) {
      SendWqe w = sq.slot(i);
      if (w.state == SendWqe.PENDING) {
        w.state = SendWqe.ACTIVE;
      } else if (w.state != SendWqe.ACTIVE) {
        break;
      }
    }
    wqeIndex = head;
    psn = qp.completer.psn;
    pktsSinceAckReq = 0;
    if (qp.timeoutNanos > 0) {
      armRetransmit(now);
    }
  }

  /**
   * The completer acknowledged up to {@code compPsn}: never resend below it.
   *
   * @param compPsn the completer's PSN
   */
  void acknowledged(int compPsn, long now) {
    ready.resume(now); // the ACK that reopens the window was processed then
    retryLeft = qp.retryCnt;
    lateLeft = LateTimeout.BUDGET;
    ackWait.reset();
    rnrLeft = qp.rnrRetry;
    switch (recovery) {
      case NAK_RETRIED -> {
        if (Psn.compare(compPsn, recoveryPsn) > 0) {
          recovery = Recovery.NONE; // past the point of loss
        }
      }
      case NAK_RETRY_DUE -> {
        if (Psn.compare(compPsn, recoveryPsn) > 0) {
          recovery = Recovery.RETRY_DUE; // still to be resent, no longer tied to that PSN
        }
      }
      case RNR_WAIT, RNR_RETRY_DUE -> {
        if (Psn.compare(compPsn, recoveryPsn) > 0) {
          // A copy sent before the RNR NAK was accepted after all: resend what follows now.
          recovery = Recovery.RETRY_DUE;
        }
      }
      case STOPPED, RESEND_DUE -> {
        if (Psn.compare(compPsn, recoveryPsn) > 0) {
          recovery = Recovery.RETRY_DUE; // the stopped request was taken after all (an earlier copy)
        }
      }
      case STOP_PROBE_DUE -> {
        if (Psn.compare(compPsn, probeLastPsn) > 0) {
          growProbe(compPsn, Recovery.RETRY_DUE); // an earlier copy of the probe was taken
        }
      }
      case RNR_PROBE -> {
        if (Psn.compare(compPsn, probeLastPsn) > 0) {
          recovery = Recovery.NONE; // the receiver takes messages again: reopen the window
        }
      }
      case STOP_PROBE -> {
        if (Psn.compare(compPsn, probeLastPsn) > 0) {
          growProbe(compPsn, Recovery.NONE);
        }
      }
      default -> {
        // NONE, RETRY_DUE
      }
    }
    if (Psn.compare(psn, compPsn) < 0) {
      psn = compPsn;
      if (wqeIndex < sq.head()) {
        wqeIndex = sq.head();
      }
    }
    if (peerDead) {
      retryLeft = 0;
      lateLeft = 0;
    }
    if (outstanding() && qp.timeoutNanos > 0) {
      armRetransmit(now);
    } else {
      retransmitArmed = false;
    }
  }

  /**
   * The receiver took the stop probe's window: double it (the SRQ it found dry may be dry again;
   * a whole window sent now would be dropped behind the next stop), and leave probing for {@code
   * done} once it reaches the transport's own window.
   */
  private void growProbe(int compPsn, Recovery done) {
    probeWindow *= 2;
    if (probeWindow >= dev.params.maxUnackedPsns) {
      recovery = done;
    } else {
      probeLastPsn = Psn.add(compPsn, probeWindow - 1);
    }
  }

  private void armRetransmit(long now) {
    retransmitArmed = true;
    retransmitArmedWall = System.nanoTime();
    // from when the packet leaves: in modelled time the send engine may be ahead of the clock
    retransmitDeadline = Math.max(now, tx.departure()) + qp.timeoutNanos;
    dev.armTimer(qp, retransmitDeadline);
  }

  /**
   * An RNR NAK for {@code nakPsn} arrived: send nothing until the responder's RNR timer expires,
   * then resend from {@code nakPsn} (IBA 9.7.5.2.8). The retransmit timer is off meanwhile (rxe
   * pitfall P1).
   *
   * @param nakPsn the RNR-NAKed PSN
   * @param lastPsn the last PSN of its message (the end of the probe)
   * @param nanos the RNR timer
   * @param now the time
   */
  void rnrWait(int nakPsn, int lastPsn, long nanos, long now) {
    recovery = Recovery.RNR_WAIT;
    recoveryPsn = nakPsn;
    probeLastPsn = lastPsn;
    retransmitArmed = false;
    waitDeadline = now + nanos;
    dev.armTimer(qp, waitDeadline);
  }

  /**
   * @param nakPsn a PSN an RNR NAK names
   * @return whether the requester already waits out an RNR NAK for it (a second copy of that
   *     NAK, from a packet sent twice, starts no second wait)
   */
  boolean waitingForRnr(int nakPsn) {
    return recovery == Recovery.RNR_WAIT && recoveryPsn == nakPsn;
  }

  /** Local ACK timeouts a stopped requester waits before it probes with the stopped message. */
  static final int STOP_PROBE_TIMEOUTS = 4;

  /**
   * Seed 002 §3.1: a stop request for {@code stopPsn} arrived (the responder's SRQ was empty and
   * it dropped that request). Send nothing until a resend request names that PSN; the retransmit
   * timer is off, and the counts are restored, since the receiver answered. The stop timer probes
   * after {@link #STOP_PROBE_TIMEOUTS} local ACK timeouts (none if the timeout is infinite, code 0).
   *
   * @param stopPsn the dropped PSN
   * @param lastPsn the last PSN of its message (the end of a probe)
   * @param now the time
   */
  void stopped(int stopPsn, int lastPsn, long now) {
    recovery = Recovery.STOPPED;
    recoveryPsn = stopPsn;
    probeLastPsn = lastPsn;
    probeWindow = Psn.distance(stopPsn, lastPsn) + 1;
    retransmitArmed = false;
    if (!peerDead) {
      retryLeft = qp.retryCnt;
      lateLeft = LateTimeout.BUDGET;
      ackWait.reset();
    }
    if (qp.timeoutNanos > 0) {
      waitDeadline = now + STOP_PROBE_TIMEOUTS * qp.timeoutNanos;
      dev.armTimer(qp, waitDeadline);
    }
  }

  /**
   * Seed 002 §3.1: a resend request for {@code resendPsn} arrived.
   *
   * @param resendPsn the PSN it names
   * @return false if this requester is not stopped at that PSN (a late or duplicate request)
   */
  boolean resendRequested(int resendPsn) {
    if (recovery != Recovery.STOPPED || recoveryPsn != resendPsn) {
      return false;
    }
    recovery = Recovery.RESEND_DUE;
    return true;
  }

  /**
   * A local ACK timeout spent a retry: resend from the oldest unacknowledged PSN. It ends any
   * NAK or RNR probe state (the probe itself may have been lost). A seed-002 probe (after a stop)
   * is sent again in its window: the receiver's SRQ was dry when last heard of, and a whole
   * window behind it would only be dropped behind the next stop. With stop-resend on, a timeout
   * while sending normally probes the same way, from the oldest unacknowledged message.
   */
  void timeoutRetry() {
    if (recovery == Recovery.STOP_PROBE) {
      recovery = Recovery.STOP_PROBE_DUE;
      return;
    }
    if (dev.params.srqFlow.stopResend() && recovery == Recovery.NONE && sq.head() < sq.tail()) {
      // With stop-resend a silent receiver may be one whose SRQ ran dry under many senders and
      // that has not yet reached this sender's requests: probe with the oldest message alone and
      // reopen the window as its ACKs come, instead of sending the whole window again into the
      // backlog (go-back-N by 64 senders at once made the backlog, and the silence, grow).
      SendWqe h = sq.slot(sq.head());
      if (h.state == SendWqe.PENDING || h.state == SendWqe.ACTIVE) {
        recoveryPsn = qp.completer.psn;
        probeLastPsn = h.lastPsn;
        probeWindow = Psn.distance(recoveryPsn, h.lastPsn) + 1;
        recovery = Recovery.STOP_PROBE_DUE;
        return;
      }
    }
    recovery = Recovery.RETRY_DUE;
  }

  /**
   * Decides about a NAK (sequence error, lost response) at {@code compPsn} before it spends a
   * retry.
   *
   * @param compPsn the completer's PSN after the NAK's implicit acknowledgement
   * @return true if it starts no retry: an RNR wait is on (the resend starts at the NAKed PSN
   *     anyway), or a retry from this same PSN was already started
   */
  boolean nakAbsorbed(int compPsn) {
    return switch (recovery) {
      case RNR_WAIT, RNR_RETRY_DUE, STOPPED, RESEND_DUE, STOP_PROBE_DUE -> true;
      case NAK_RETRY_DUE, NAK_RETRIED -> recoveryPsn == compPsn;
      default -> false;
    };
  }

  /**
   * A NAK at {@code compPsn} spent a retry: resend from there.
   *
   * @param compPsn the point of loss
   */
  void nakRetry(int compPsn) {
    recovery = Recovery.NAK_RETRY_DUE;
    recoveryPsn = compPsn;
  }

  /** @return whether the RNR timer or the stop timer runs */
  private boolean waitArmed() {
    return recovery == Recovery.RNR_WAIT || recovery == Recovery.STOPPED && qp.timeoutNanos > 0;
  }

  boolean timerArmed() {
    return retransmitArmed || waitArmed();
  }

  /** @return whether requests wait for a reply the responder will send (not an RNR wait) */
  boolean awaitsReply() {
    return retransmitArmed && recovery != Recovery.RNR_WAIT;
  }

  long nextDeadline() {
    boolean rnr = waitArmed();
    if (retransmitArmed && rnr) {
      return retransmitDeadline - waitDeadline < 0 ? retransmitDeadline : waitDeadline;
    }
    return retransmitArmed ? retransmitDeadline : waitDeadline;
  }

  /** @return whether a timer fired */
  boolean fireTimers(long now) {
    boolean fired = false;
    if (waitArmed() && now - waitDeadline >= 0) {
      if (recovery == Recovery.STOPPED) {
        dev.counters.inc(IbCounters.Counter.SRQ_STOP_PROBES);
        recovery = Recovery.STOP_PROBE_DUE;
      } else {
        recovery = Recovery.RNR_RETRY_DUE;
      }
      fired = true;
    }
    if (retransmitArmed && now - retransmitDeadline >= 0) {
      retransmitArmed = false;
      fired = true;
      if (outstanding() && !recovery.holding()) {
        retransmitExpired(now);
      }
    }
    return fired;
  }

  /** The local ACK timer expired with packets outstanding: a real timeout, or not yet ({@link AckWait}). */
  private void retransmitExpired(long now) {
    int dlid = qp.type == QpType.DCI ? dc.dlid() : qp.dlid;
    PacketPort port = dev.port;
    AckWait.Verdict v = ackWait.judge(port.receiveDrained(), port.unsentBytes(dlid), port.peerReadMark(dlid),
        port.peerCaughtUpNanos(dlid), retransmitArmedWall, now, AckWait.patience(qp.timeoutNanos, port.peerTimeoutNanos()));
    if (v != AckWait.Verdict.EXPIRED) { // time a busy host did not run is not time on the wire
      dev.counters.inc(v == AckWait.Verdict.UNHEARD ? IbCounters.Counter.UNHEARD_TIMEOUTS : IbCounters.Counter.QUEUED_TIMEOUTS);
      armRetransmit(now);
      return;
    }
    dev.counters.inc(IbCounters.Counter.TIMEOUTS);
    qp.completer.timeout(now, LateTimeout.isLate(now - retransmitDeadline, qp.timeoutNanos));
  }

  /** The port reported {@code lid} down: a connection to it gets one more timeout, no retries. */
  void peerDown(int lid, long now) {
    boolean mine = qp.type == QpType.DCI ? dc.connectedTo(lid) : qp.dlid == lid;
    if (!mine || !dev.params.failFastOnPeerDown) {
      return;
    }
    peerDead = true;
    ackWait.exhaust();
    retryLeft = 0;
    lateLeft = 0;
    rnrLeft = 0;
    if (recovery == Recovery.STOPPED) {
      dev.counters.inc(IbCounters.Counter.SRQ_STOP_PROBES);
      recovery = Recovery.STOP_PROBE_DUE; // probe now: its one timeout ends the stream
      return;
    }
    if (outstanding() && !retransmitArmed && qp.timeoutNanos > 0) {
      armRetransmit(now);
    }
  }

}
