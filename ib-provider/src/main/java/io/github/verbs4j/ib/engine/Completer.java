package io.github.verbs4j.ib.engine;

import io.github.verbs4j.ib.wire.Aeth;
import io.github.verbs4j.ib.wire.Opcode.Flag;
import io.github.verbs4j.ib.wire.Opcode.Op;
import io.github.verbs4j.verbs.spi.RnrTimer;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import io.github.verbs4j.verbs.spi.SoftMemoryRegion;
import io.github.verbs4j.verbs.spi.wire.Psn;
import java.nio.ByteBuffer;

/**
 * The completer (rxe_comp.c): processes ACKs, NAKs, READ responses and atomic acknowledgements,
 * and completes send WQEs strictly in send-queue order. An ACK or response for PSN p acknowledges
 * every SEND/WRITE wholly before p (IBA 9.7.5.1.4 implicit acknowledgement); a READ or atomic
 * before p whose response never came means that response was lost, and the requester retries.
 * Errors complete the WQE they name with their status and move the QP to ERR; everything after
 * is flushed.
 *
 * <p>The packet steps are an enum and a dispatch loop in the order rxe checks them; each NAK
 * syndrome maps to its WC status in {@link #nakStatus}. Timeouts, NAKs and lost responses move
 * the requester's {@link Recovery}; this class decides what each costs: {@code
 * retry_cnt} for transport retries, {@code rnr_retry} for RNR NAKs, nothing for a seed-002 stop or
 * resend request, nothing for a sequence NAK that arrives while an RNR wait, a stop or a retry
 * from the same PSN is already on.
 *
 * <p>Engine thread only, under the QP lock.
 */
final class Completer {
  private enum Step {
    GET_WQE, CHECK_PSN, CHECK_ACK, READ, ATOMIC, WRITE_SEND, COMP_WQE, ERROR_RETRY, RNR_RETRY, SRQ_STOPPED, ERROR,
    DROP, DONE
  }

  private final EngineQp qp;
  private final IbDevice dev;
  private final FrameSplitter frames;
  private final SendQueue sq;
  /** The oldest PSN not yet acknowledged (rxe comp.psn). */
  int psn;
  private SendWqe w;
  private WcStatus errorStatus;
  private boolean implicit;

  Completer(EngineQp qp) {
    this.qp = qp;
    this.dev = qp.dev;
    this.frames = qp.dev.frames;
    this.sq = qp.sq;
  }

  void reset(int startPsn) {
    psn = startPsn & Psn.MASK;
  }

  /**
   * Completes the WQEs that need no acknowledgement (UC, UD, local errors) at the head.
   *
   * @return completions pushed
   */
  int progress(long now) {
    int n = 0;
    Requester r = qp.requester;
    long tail = sq.tail();
    while (true) {
      long head = sq.head();
      if (head >= tail || head >= r.wqeIndex && sq.slot(head).state != SendWqe.ERROR) {
        break;
      }
      SendWqe h = sq.slot(head);
      if (h.state == SendWqe.DONE) {
        complete(h, WcStatus.SUCCESS);
        n++;
      } else if (h.state == SendWqe.ERROR) {
        complete(h, h.status);
        qp.error();
        return n + 1;
      } else {
        break;
      }
    }
    return n;
  }

  /**
   * The retransmit timer expired with PSNs outstanding.
   *
   * @param late whether the engine ran it a whole timeout after its deadline: the host was too busy
   *     to run us, so the resend spends no retry while {@link Requester#lateLeft} lasts
   */
  void timeout(long now, boolean late) {
    Requester r = qp.requester;
    if (sq.head() == sq.tail()) {
      return; // flushed meanwhile: nothing left to resend or fail
    }
    if (late && r.lateLeft > 0 && !r.peerDead) {
      r.lateLeft--;
      dev.counters.inc(IbCounters.Counter.LATE_TIMEOUTS);
      r.timeoutRetry();
      return;
    }
    if (r.retryLeft <= 0) {
      // IBA 9.7.5.2.7 (C9-140): retry_cnt exhausted.
      SendWqe head = sq.slot(sq.head());
      complete(head, WcStatus.RETRY_EXC_ERR);
      qp.error();
      return;
    }
    r.retryLeft--;
    dev.counters.inc(IbCounters.Counter.TRANSPORT_RETRIES);
    r.timeoutRetry();
  }

  /** One ACK, NAK, READ response or atomic acknowledgement. */
  void receive(Packet p, long now) {
    if (!qp.reliable()) {
      dev.counters.inc(IbCounters.Counter.DROP_BAD_TRANSPORT);
      return;
    }
    Requester r = qp.requester;
    if (!r.anySent || Psn.compare(p.psn, r.sentHigh) >= 0) {
      dev.counters.inc(IbCounters.Counter.DROP_STALE_RESPONSE);
      return;
    }
    if (p.opcode.is(Flag.SRQ_RESEND)) {
      // Seed 002 §3.1: the receiver posted receives; resume from the stopped PSN, nothing spent.
      dev.counters.inc(r.resendRequested(p.psn) ? IbCounters.Counter.SRQ_RESENDS_RECEIVED
          : IbCounters.Counter.SRQ_RESENDS_IGNORED);
      return;
    }
    Step s = Step.GET_WQE;
    while (s != Step.DONE) {
      s = switch (s) {
        case GET_WQE -> getWqe();
        case CHECK_PSN -> checkPsn(p);
        case CHECK_ACK -> checkAck(p);
        case READ -> read(p, now);
        case ATOMIC -> atomic(p, now);
        case WRITE_SEND -> writeSend(p, now);
        case COMP_WQE -> compWqe(now);
        case ERROR_RETRY -> errorRetry(p);
        case RNR_RETRY -> rnrRetry(p, now);
        case SRQ_STOPPED -> srqStopped(p, now);
        case ERROR -> error();
        case DROP -> drop();
        case DONE -> Step.DONE;
      };
    }
    w = null;
  }

  private Step getWqe() {
    long head = sq.head();
    if (head >= sq.tail()) {
      return Step.DROP;
    }
    w = sq.slot(head);
    if (w.state == SendWqe.POSTED || w.state == SendWqe.DONE) {
      return Step.DROP;
    }
    if (w.state == SendWqe.ERROR) {
      errorStatus = w.status;
      return Step.ERROR;
    }
    return Step.CHECK_PSN;
  }

  private Step checkPsn(Packet p) {
    Requester r = qp.requester;
    if (Psn.compare(p.psn, w.lastPsn) > 0) {
      boolean sentOnce = Psn.compare(w.lastPsn, r.sentHigh) < 0;
      if (!w.isReadOrAtomic() && sentOnce) {
        implicit = true; // a later PSN acknowledges this SEND/WRITE
        return Step.COMP_WQE;
      }
      if (w.isReadOrAtomic() && sentOnce) {
        return Step.ERROR_RETRY; // its response was lost
      }
      return Step.DROP;
    }
    if (Psn.compare(p.psn, psn) < 0) {
      return Step.DROP; // older than what is acknowledged: a duplicate
    }
    return Step.CHECK_ACK;
  }

  private Step checkAck(Packet p) {
    if (p.opcode.is(Flag.SRQ_STOP)) {
      return Step.SRQ_STOPPED;
    }
    if (p.opcode.is(Flag.READ_RESP)) {
      if (w.opcode != WrOpcode.RDMA_READ || p.psn != psn) {
        return Step.DROP; // responses must arrive in order; a gap waits for the timer
      }
      if (p.opcode.is(Flag.START | Flag.END) && Aeth.type(p.aethSyndrome()) != Aeth.TYPE_ACK) {
        return Step.DROP;
      }
      return Step.READ;
    }
    if (p.opcode.is(Flag.ATOMIC_RESP)) {
      if (!w.opcode.isAtomic() || p.psn != w.firstPsn || p.psn != psn) {
        return Step.DROP;
      }
      return Step.ATOMIC;
    }
    int syndrome = p.aethSyndrome();
    switch (Aeth.type(syndrome)) {
      case Aeth.TYPE_ACK:
        if (w.isReadOrAtomic()) {
          // The responder acknowledged past a READ/atomic whose response never came.
          return Psn.compare(p.psn, w.firstPsn) >= 0 ? Step.ERROR_RETRY : Step.DROP;
        }
        return Step.WRITE_SEND;
      case Aeth.TYPE_RNR_NAK:
        return Step.RNR_RETRY;
      case Aeth.TYPE_NAK:
        if (Aeth.value(syndrome) == Aeth.NAK_PSN_SEQUENCE_ERROR) {
          dev.counters.inc(IbCounters.Counter.SEQ_NAKS_RECEIVED);
          // Everything before the expected PSN the responder names is acknowledged.
          advance(p.psn, dev.now);
          return Step.ERROR_RETRY;
        }
        errorStatus = nakStatus(Aeth.value(syndrome));
        return Step.ERROR;
      default:
        return Step.DROP;
    }
  }

  /** IBA 9.7.5.2.3 / table 44: NAK code to the requester's completion status. */
  private static WcStatus nakStatus(int code) {
    switch (code) {
      case Aeth.NAK_INVALID_REQUEST:
        return WcStatus.REM_INV_REQ_ERR;
      case Aeth.NAK_REMOTE_ACCESS_ERROR:
        return WcStatus.REM_ACCESS_ERR;
      case Aeth.NAK_REMOTE_OPERATIONAL_ERROR:
        return WcStatus.REM_OP_ERR;
      default:
        return WcStatus.BAD_RESP_ERR;
    }
  }

  private Step read(Packet p, long now) {
    int mtu = qp.sendMtu();
    long offset = (long) Psn.distance(w.firstPsn, p.psn) * mtu;
    int expect = (int) Math.min(mtu, w.totalLength - offset);
    if (p.payloadLength != expect) {
      dev.counters.inc(IbCounters.Counter.DROP_MALFORMED);
      return Step.DROP;
    }
    if (expect > 0 && !scatterLocal(w, (int) offset, frames.payload(p, expect), expect)) {
      errorStatus = WcStatus.LOC_PROT_ERR;
      return Step.ERROR;
    }
    advance(Psn.next(p.psn), now);
    if (p.psn == w.lastPsn) {
      implicit = false;
      return Step.COMP_WQE;
    }
    return Step.DONE;
  }

  private Step atomic(Packet p, long now) {
    ByteBuffer v = dev.atomicScratch;
    v.putLong(0, p.atomicAckOrig());
    if (!scatterLocal(w, 0, v, 0, 8)) {
      errorStatus = WcStatus.LOC_PROT_ERR;
      return Step.ERROR;
    }
    advance(Psn.next(p.psn), now);
    implicit = false;
    return Step.COMP_WQE;
  }

  private Step writeSend(Packet p, long now) {
    advance(Psn.next(p.psn), now);
    if (p.psn == w.lastPsn && Psn.compare(w.lastPsn, qp.requester.sentHigh) < 0) {
      implicit = false;
      return Step.COMP_WQE;
    }
    return Step.DONE;
  }

  private Step compWqe(long now) {
    advance(Psn.next(w.lastPsn), now);
    complete(w, WcStatus.SUCCESS);
    if (qp.owner.state() == io.github.verbs4j.verbs.QpState.ERR) {
      return Step.DONE;
    }
    return implicit ? Step.GET_WQE : Step.DONE;
  }

  /** A sequence NAK or a lost READ/atomic response: a transport retry from {@link #psn}. */
  private Step errorRetry(Packet p) {
    Requester r = qp.requester;
    if (r.nakAbsorbed(psn)) {
      // An RNR wait resends from the NAKed PSN anyway; a retry from this PSN is already on (one
      // retry per point of loss until a timeout, rxe 4e4c53df5677). Neither costs retry_cnt.
      if (p.opcode.op() == Op.ACKNOWLEDGE && Aeth.type(p.aethSyndrome()) == Aeth.TYPE_NAK) {
        dev.counters.inc(IbCounters.Counter.SEQ_NAKS_IGNORED);
      }
      return Step.DONE;
    }
    if (r.retryLeft <= 0) {
      errorStatus = WcStatus.RETRY_EXC_ERR;
      return Step.ERROR;
    }
    r.retryLeft--;
    dev.counters.inc(IbCounters.Counter.TRANSPORT_RETRIES);
    r.nakRetry(psn);
    return Step.DONE;
  }

  /**
   * IBA 9.7.5.2.8: an RNR NAK acknowledges everything before its PSN; the requester waits the
   * responder's RNR timer and resends from that PSN. It spends rnr_retry (7: never runs out),
   * never retry_cnt.
   */
  private Step rnrRetry(Packet p, long now) {
    dev.counters.inc(IbCounters.Counter.RNR_NAKS_RECEIVED);
    Requester r = qp.requester;
    advance(p.psn, now);
    if (r.waitingForRnr(p.psn)) {
      return Step.DONE; // the same NAK for a second copy of the packet: already waiting
    }
    if (qp.rnrRetry != 7) {
      if (r.rnrLeft <= 0) {
        errorStatus = WcStatus.RNR_RETRY_EXC_ERR;
        return Step.ERROR;
      }
      r.rnrLeft--;
    }
    dev.counters.inc(IbCounters.Counter.RNR_RETRIES);
    r.rnrWait(p.psn, w.lastPsn, RnrTimer.nanos(Aeth.value(p.aethSyndrome())), now);
    return Step.DONE;
  }

  /**
   * Seed 002 §3.1: a stop request acknowledges everything before its PSN, like an RNR NAK; the
   * requester holds the stream at that PSN until a resend request. It spends neither rnr_retry
   * nor retry_cnt.
   */
  private Step srqStopped(Packet p, long now) {
    dev.counters.inc(IbCounters.Counter.SRQ_STOPS_RECEIVED);
    advance(p.psn, now);
    qp.requester.stopped(p.psn, w.lastPsn, now);
    return Step.DONE;
  }

  private Step error() {
    complete(w, errorStatus);
    qp.error();
    return Step.DONE;
  }

  /** Counts a WQE ending because a retry count ran out. */
  private void countExhausted(WcStatus status) {
    if (status == WcStatus.RETRY_EXC_ERR) {
      dev.counters.inc(IbCounters.Counter.RETRY_EXCEEDED);
    } else if (status == WcStatus.RNR_RETRY_EXC_ERR) {
      dev.counters.inc(IbCounters.Counter.RNR_RETRY_EXCEEDED);
    }
  }

  private Step drop() {
    dev.counters.inc(IbCounters.Counter.DROP_STALE_RESPONSE);
    return Step.DONE;
  }

  /** comp.psn moves forward to {@code next}: progress resets the retry counts and the timer. */
  private void advance(int next, long now) {
    if (Psn.compare(next, psn) > 0) {
      psn = next;
      qp.requester.acknowledged(psn, now);
    }
  }

  /**
   * Completes a WQE at the head: a completion if it is signaled or failed (errors are always
   * reported, IBA 10.7.3.1), its rd_atomic credit back, its slot freed.
   */
  void complete(SendWqe x, WcStatus status) {
    countExhausted(status);
    if (x.hasCredit) {
      x.hasCredit = false;
      qp.requester.rdAtomicCredits++;
    }
    boolean report = x.signaled || status != WcStatus.SUCCESS;
    WorkCompletion wc = dev.wc;
    if (report) {
      wc.reset(x.wrId, status, x.opcode.completionOpcode(), qp.qpn);
      wc.byteLen(x.opcode.isAtomic() ? 8 : x.totalLength);
      if (x.sentTime != Long.MIN_VALUE && status == WcStatus.SUCCESS) {
        wc.timestampNanos(Math.max(x.sentTime, dev.port.nowNanos()));
      }
    }
    // The slot is the poster's again once head moves: read it before, never after.
    long head = sq.head() + 1;
    sq.head(head);
    if (qp.requester.wqeIndex < head) {
      qp.requester.wqeIndex = head;
    }
    if (report) {
      if (x.sentTime == Long.MIN_VALUE) {
        dev.stamp(wc); // completed by an ACK or a response: when that packet was processed
      }
      if (!qp.sendCq.push(wc, false)) {
        qp.error(); // CQ overrun: CQ_ERR was raised once; the QP goes to ERR (class G)
      }
    }
  }

  /** Scatters bytes into the WQE's local SGEs (READ data, atomic result) at message offset. */
  private boolean scatterLocal(SendWqe x, int offset, ByteBuffer src, int len) {
    return scatterLocal(x, offset, src, src.position(), len);
  }

  private boolean scatterLocal(SendWqe x, int offset, ByteBuffer src, int srcPos, int len) {
    int sge = 0;
    int sgeOff = offset;
    while (sge < x.numSge && sgeOff >= x.length[sge]) {
      sgeOff -= x.length[sge];
      sge++;
    }
    int left = len;
    int pos = srcPos;
    while (left > 0) {
      while (sge < x.numSge && sgeOff >= x.length[sge]) {
        sgeOff = 0;
        sge++;
      }
      if (sge >= x.numSge) {
        return false;
      }
      SoftMemoryRegion mr = x.mrs[sge];
      if (mr == null || !mr.isValid()) {
        return false;
      }
      int n = Math.min(left, x.length[sge] - sgeOff);
      if (!mr.copyIn(x.addr[sge] + sgeOff, src, pos, n)) {
        return false;
      }
      pos += n;
      sgeOff += n;
      left -= n;
    }
    return true;
  }

  /** @return whether this QP type uses the completer's ACK path */
  boolean acks() {
    return qp.type == QpType.RC || qp.type == QpType.DCI;
  }
}
