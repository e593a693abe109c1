package io.github.verbs4j.ib.engine;

import io.github.verbs4j.ib.wire.Opcode.Transport;
import io.github.verbs4j.verbs.spi.RnrTimer;
import io.github.verbs4j.verbs.AsyncEventType;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpAttrMask;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.spi.AbstractProtectionDomain;
import io.github.verbs4j.verbs.spi.ReceiveQueue;
import io.github.verbs4j.verbs.spi.RecvWqe;
import io.github.verbs4j.verbs.spi.SoftCompletionQueue;
import io.github.verbs4j.verbs.spi.SoftSharedReceiveQueue;
import io.github.verbs4j.verbs.spi.wire.Psn;
import io.netty.util.collection.LongObjectHashMap;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The HCA's context of one QP (rxe's {@code rxe_qp}): its attributes as the engines see them, its
 * send queue, and its three role engines — {@link Requester} and {@link Completer} on the send
 * side, {@link Responder} on the receive side (a DCT has one responder per initiating DCI). It also
 * owns what happens on the transitions the verbs layer asks for: flush on ERR, reset on RESET,
 * drain on SQD.
 *
 * <p>Locking: every method except the posting-thread ones ({@link #enqueueSend}, {@link
 * #sendQueueFull}, {@link #doorbell}) runs with the QP lock held ({@link QpOwner#lock()}) — the engine takes it per
 * QP, and the verbs layer holds it around {@code applyModify}.
 */
public final class EngineQp {
  final IbDevice dev;
  final QpOwner owner;
  /** The QP lock ({@link QpOwner#lock()}). */
  final Object lock;
  final QpType type;
  final int qpn;
  final AbstractProtectionDomain pd;
  final MemoryDirectory memory;
  final SoftCompletionQueue sendCq;
  final SoftCompletionQueue recvCq;
  final ReceiveQueue rq;
  final SoftSharedReceiveQueue srq;
  /** The SRQ's seed-002 stop/resend state when {@code verbs.ib.srq-flow-control=stop-resend}, else null. */
  final SrqFlowControl srqFlow;
  final SendQueue sq;
  final boolean sqSigAll;
  final long dctKey;
  final Requester requester;
  final Completer completer;
  final Responder responder;
  private final LongObjectHashMap<Responder> dctContexts;
  /**
   * DCT: the contexts with work since the last duty cycle (a packet taken, an ACK or replies to
   * send), so a duty cycle visits them, not all of up to {@code dctContexts} peers' contexts.
   */
  private final ArrayList<Responder> dctBusy;
  private long dctUseClock;
  private final RecvWqe flushScratch = new RecvWqe();

  // Attributes, as last applied by modify.
  int accessFlags;
  int qkey;
  int dlid;
  int sl;
  int destQpn;
  int mtu;
  int timeout;
  long timeoutNanos;
  int retryCnt;
  int rnrRetry;
  int minRnrTimer;
  int maxRdAtomic;
  int maxDestRdAtomic;
  boolean sqdNotify;

  // Engine bookkeeping (engine thread, under the lock).
  boolean destroyed;
  boolean dirty;
  boolean inTimerList;
  boolean inAckHolders;
  boolean commEstRaised;
  private boolean sqDrainedRaised;
  final AtomicBoolean doorbellQueued = new AtomicBoolean();

  EngineQp(IbDevice dev, int qpn, QpOwner owner, QpType type, AbstractProtectionDomain pd, MemoryDirectory memory,
      SoftCompletionQueue sendCq, SoftCompletionQueue recvCq, ReceiveQueue rq, SoftSharedReceiveQueue srq, QpCap cap,
      boolean sqSigAll, long dctKey) {
    this.dev = dev;
    this.qpn = qpn;
    this.owner = owner;
    this.lock = owner.lock();
    this.type = type;
    this.pd = pd;
    this.memory = memory;
    this.sendCq = sendCq;
    this.recvCq = recvCq;
    this.rq = rq;
    this.srq = srq;
    this.srqFlow = srq != null && dev.params.srqFlow.stopResend() && (type == QpType.RC || type == QpType.DCT)
        ? SrqFlowControl.of(srq, dev) : null;
    this.sqSigAll = sqSigAll;
    this.dctKey = dctKey;
    boolean sends = type != QpType.DCT;
    this.sq = sends ? new SendQueue(cap.maxSendWr(), cap.maxSendSge(), cap.maxInlineData()) : null;
    this.requester = sends ? new Requester(this) : null;
    this.completer = sends ? new Completer(this) : null;
    this.responder = type == QpType.DCT || type == QpType.DCI ? null : new Responder(this, false);
    this.dctContexts = type == QpType.DCT ? new LongObjectHashMap<>() : null;
    this.dctBusy = type == QpType.DCT ? new ArrayList<>() : null;
    this.mtu = dev.params.portMtu;
    this.maxDestRdAtomic = type == QpType.DCT ? dev.params.device.maxQpRdAtom() : 0;
  }

  /** @return the QP number */
  public int qpn() {
    return qpn;
  }

  /** @return whether the path is reliable (ACKs, retries): RC and DC */
  boolean reliable() {
    return type == QpType.RC || type == QpType.DCI;
  }

  /** @return the path MTU the requester segments with (UD: the port MTU) */
  int sendMtu() {
    return type == QpType.UD ? dev.params.portMtu : mtu;
  }

  // ---------------------------------------------------------------- posting thread

  /**
   * @return whether the send queue holds one WR that has not completed (the one just posted): the
   *     QP has nothing else in flight (any thread; a racy read that only picks a thread)
   */
  boolean soleOutstanding() {
    return sq.tail() - sq.head() <= 1;
  }

  /** @return whether one more send WR would exceed max_send_wr (posting thread) */
  public boolean sendQueueFull() {
    return sq.full();
  }

  /**
   * Copies a validated WR into the send queue (posting thread). In ERR it is queued too and the
   * engine flushes it.
   *
   * @param wr the WR
   */
  public void enqueueSend(SendWr wr) {
    sq.enqueue(wr, sqSigAll, pd.softContext());
  }

  /** Rings the doorbell: the engine looks at this QP on its next duty cycle (any thread). */
  public void doorbell() {
    dev.doorbell(this);
  }

  // ---------------------------------------------------------------- transitions (under the lock)

  /**
   * Applies a validated transition (called by the verbs layer under the QP lock, before the new
   * state is published). Nothing here can fail.
   *
   * @param from the current state
   * @param next the new state
   * @param a every attribute after the modify
   */
  public void applyModify(QpState from, QpState next, QpAttr a) {
    if (a.has(QpAttrMask.ACCESS_FLAGS)) {
      accessFlags = a.qpAccessFlags();
    }
    if (a.has(QpAttrMask.QKEY)) {
      qkey = a.qkey();
    }
    if (a.has(QpAttrMask.AV) && a.ahAttr() != null) {
      dlid = a.ahAttr().dlid();
      sl = a.ahAttr().sl();
    }
    if (a.has(QpAttrMask.DEST_QPN)) {
      destQpn = a.destQpNum();
    }
    if (a.has(QpAttrMask.PATH_MTU)) {
      mtu = Math.min(a.pathMtu().bytes(), dev.params.portMtu);
    }
    if (a.has(QpAttrMask.TIMEOUT)) {
      timeout = a.timeout();
      timeoutNanos = RnrTimer.ackTimeoutNanos(timeout);
    }
    if (a.has(QpAttrMask.RETRY_CNT)) {
      retryCnt = a.retryCnt();
    }
    if (a.has(QpAttrMask.RNR_RETRY)) {
      rnrRetry = a.rnrRetry();
    }
    if (a.has(QpAttrMask.MIN_RNR_TIMER)) {
      minRnrTimer = a.minRnrTimer();
    }
    if (a.has(QpAttrMask.MAX_QP_RD_ATOMIC)) {
      maxRdAtomic = a.maxRdAtomic();
    }
    if (a.has(QpAttrMask.MAX_DEST_RD_ATOMIC)) {
      maxDestRdAtomic = a.maxDestRdAtomic();
    }
    if (a.has(QpAttrMask.EN_SQD_ASYNC_NOTIFY)) {
      sqdNotify = a.enSqdAsyncNotify();
    }
    switch (next) {
      case RESET -> reset();
      case RTR -> {
        if (from == QpState.INIT) {
          commEstRaised = false;
          if (responder != null) {
            responder.reset(a.has(QpAttrMask.RQ_PSN) ? a.rqPsn() : 0);
          }
        }
      }
      case RTS -> {
        if (from == QpState.RTR && requester != null) {
          int psn = a.has(QpAttrMask.SQ_PSN) ? a.sqPsn() & Psn.MASK : 0;
          requester.reset(psn);
          completer.reset(psn);
        } else if (requester != null) {
          requester.attributesChanged();
        }
        dev.doorbellDeferred(this);
      }
      case SQD -> {
        sqDrainedRaised = false;
        if (requester != null) {
          requester.beginDrain();
        }
        dev.doorbellDeferred(this);
      }
      case ERR -> {
        if (from != QpState.ERR) {
          stopEngines();
          flushAll();
        }
      }
      default -> {
        // INIT: attributes only.
      }
    }
  }

  private void reset() {
    if (sq != null) {
      sq.head(sq.tail());
      requester.reset(0);
      completer.reset(0);
    }
    if (rq != null) {
      rq.clear();
    }
    if (responder != null) {
      responder.reset(0);
    }
    if (dctContexts != null) {
      for (Responder r : dctContexts.values()) {
        r.release();
        r.dctBusy = false;
      }
      dctContexts.clear();
      dctBusy.clear();
    }
    commEstRaised = false;
    if (sendCq != null) {
      sendCq.purge(qpn);
    }
    if (recvCq != null && recvCq != sendCq) {
      recvCq.purge(qpn);
    }
  }

  private void stopEngines() {
    if (requester != null) {
      requester.stop();
    }
    if (responder != null) {
      responder.stop();
    }
    if (dctContexts != null) {
      for (Responder r : dctContexts.values()) {
        r.stop();
      }
    }
  }

  /** The QP detected an error on its data path: to ERR, then flush (under the lock). */
  void error() {
    if (owner.enterErrorState()) {
      stopEngines();
      flushAll();
    }
  }

  /**
   * Completes every queued WR with WR_FLUSH_ERR, send queue then receive queue, each in queue
   * order, unsignaled sends included (IBA 10.7.3.1; rxe's flush after commit ea4c990fa9e1).
   *
   * @return the number of completions pushed
   */
  int flushAll() {
    int n = 0;
    WorkCompletion wc = dev.wc;
    if (sq != null) {
      long h = sq.head();
      long t = sq.tail();
      for (; h < t; h++) {
        SendWqe w = sq.slot(h);
        if (w.hasCredit) {
          w.hasCredit = false;
        }
        wc.reset(w.wrId, WcStatus.WR_FLUSH_ERR, w.opcode.completionOpcode(), qpn);
        sendCq.push(wc, false);
        n++;
      }
      sq.head(t);
      requester.flushed(t);
    }
    if (responder != null) {
      n += responder.flushHeld();
    }
    if (dctContexts != null) {
      for (Responder r : dctContexts.values()) {
        n += r.flushHeld();
      }
    }
    if (rq != null) {
      while (rq.pop(flushScratch)) {
        wc.reset(flushScratch.wrId(), WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, qpn);
        recvCq.push(wc, false);
        n++;
      }
    }
    dev.counters.add(IbCounters.Counter.FLUSHES, n);
    return n;
  }

  /** The QP is being destroyed: stop touching it, release what it holds (under the lock). */
  public void destroy() {
    destroyed = true;
    stopEngines();
    if (responder != null) {
      responder.release();
    }
    if (dctContexts != null) {
      for (Responder r : dctContexts.values()) {
        r.release();
        r.dctBusy = false;
      }
      dctContexts.clear();
      dctBusy.clear();
    }
    dev.detach(this);
  }

  /**
   * Replaces, in a query's result, the PSNs modify set with the live ones (under the lock, so
   * consistent with the engine): sq_psn is the PSN of the next new request packet, rq_psn the PSN
   * the responder expects next (rxe_qp_to_attr). A DCT has one responder per initiator and keeps
   * the rq_psn modify set.
   *
   * @param q the attributes being returned
   */
  public void liveAttrs(QpAttr q) {
    if (requester != null && q.has(QpAttrMask.SQ_PSN)) {
      q.sqPsn(requester.nextNewPsn());
    }
    if (responder != null && q.has(QpAttrMask.RQ_PSN)) {
      q.rqPsn(responder.psn);
    }
  }

  /** @return true while an SQD drain is in progress */
  public boolean sqDraining() {
    return requester != null && owner.state() == QpState.SQD && !requester.drained();
  }

  // ---------------------------------------------------------------- engine (under the lock)

  /**
   * One packet for this QP (engine thread, under the lock).
   *
   * @param p the parsed packet
   * @param now the duty cycle's time
   */
  void receive(Packet p, long now) {
    QpState s = owner.state();
    if (p.opcode.is(io.github.verbs4j.ib.wire.Opcode.Flag.REQ)) {
      if (s != QpState.RTR && s != QpState.RTS && s != QpState.SQD && s != QpState.SQE) {
        dev.counters.inc(IbCounters.Counter.DROP_BAD_STATE);
        return;
      }
      if (s == QpState.RTR && !commEstRaised && type != QpType.UD) {
        // IBA 11.6.3: the first packet received in RTR establishes communication.
        commEstRaised = true;
        owner.raise(AsyncEventType.COMM_EST);
      }
      if (type == QpType.DCT) {
        Responder r = dctContext(p, now);
        if (r != null) {
          r.receive(p, now);
          if (!r.dctBusy) {
            r.dctBusy = true; // its ACK goes out in the duty cycle
            dctBusy.add(r);
          }
        }
      } else {
        responder.receive(p, now);
      }
    } else {
      if (s != QpState.RTS && s != QpState.SQD && s != QpState.SQE) {
        dev.counters.inc(IbCounters.Counter.DROP_BAD_STATE);
        return;
      }
      completer.receive(p, now);
    }
  }

  private Responder dctContext(Packet p, long now) {
    if (p.dcKey() != dctKey) {
      // mlx5 DC: a wrong access key is dropped silently; the initiator times out (CONFORMANCE.md).
      dev.counters.inc(IbCounters.Counter.DROP_DC_KEY_VIOLATION);
      return null;
    }
    long key = (long) p.slid << 24 | p.dcSrcQp();
    Responder r = dctContexts.get(key);
    int gen = p.dcGeneration();
    if (r != null && (r.dcGeneration != gen || r.dcEpochPsn != p.dcEpochPsn())) {
      // Another connection of the same DCI. Its generation (8 bits) wraps after 256 moves to other
      // DCTs, so it can neither say which connection is newer nor, after exactly 256 moves, that
      // this is another one; the epoch PSN can: the DCI's PSNs go on from one connection to the
      // next, so each connection starts at its own PSN and an older one's packets start earlier.
      if (Psn.compare(p.dcEpochPsn(), r.dcEpochPsn) < 0) {
        dev.counters.inc(IbCounters.Counter.DROP_DC_NO_CONTEXT);
        return null;
      }
      r.release();
      r.reset(p.dcEpochPsn());
      r.dcGeneration = gen;
      r.dcEpochPsn = p.dcEpochPsn();
    }
    if (r == null) {
      if (dctContexts.size() >= dev.params.dctContexts) {
        evictOldestDctContext();
      }
      r = new Responder(this, true);
      r.reset(p.dcEpochPsn());
      r.dcGeneration = gen;
      r.dcEpochPsn = p.dcEpochPsn();
      r.replyLid = p.slid;
      r.replyQpn = p.dcSrcQp();
      dctContexts.put(key, r);
    }
    r.lastUse = ++dctUseClock;
    return r;
  }

  private void evictOldestDctContext() {
    long oldestKey = 0;
    Responder oldest = null;
    for (LongObjectHashMap.PrimitiveEntry<Responder> e : dctContexts.entries()) {
      if (oldest == null || e.value().lastUse < oldest.lastUse) {
        oldest = e.value();
        oldestKey = e.key();
      }
    }
    if (oldest != null) {
      oldest.release();
      dctContexts.remove(oldestKey);
      if (oldest.dctBusy) {
        oldest.dctBusy = false;
        dctBusy.remove(oldest);
      }
    }
  }

  /**
   * Runs the engines' deferred work (engine thread, under the lock).
   *
   * @param now the duty cycle's time
   * @return work done
   */
  int progress(long now) {
    if (destroyed) {
      return 0;
    }
    QpState s = owner.state();
    if (s == QpState.ERR) {
      return flushAll();
    }
    if (s == QpState.RESET || s == QpState.INIT) {
      return 0;
    }
    int work = 0;
    if (completer != null) {
      work += completer.progress(now);
      if (owner.state() == QpState.ERR) {
        return work + flushAll();
      }
      if (s == QpState.RTS || s == QpState.SQD) {
        work += requester.progress(now);
        work += completer.progress(now);
      }
      if (s == QpState.SQD && !sqDrainedRaised && requester.drained()) {
        sqDrainedRaised = true;
        if (sqdNotify) {
          owner.raise(AsyncEventType.SQ_DRAINED);
        }
      }
    }
    if (responder != null) {
      work += responder.progress(now);
    }
    if (dctBusy != null) {
      for (int i = 0; i < dctBusy.size(); ) {
        Responder r = dctBusy.get(i);
        work += r.progress(now);
        if (r.wantsMore()) {
          i++;
        } else { // done until its next packet: out of the list (the last one takes its place)
          r.dctBusy = false;
          Responder last = dctBusy.remove(dctBusy.size() - 1);
          if (last != r) {
            dctBusy.set(i, last);
          }
        }
      }
    }
    if (owner.state() == QpState.ERR) {
      work += flushAll();
    }
    return work;
  }

  /** @return whether {@link #progress} has more to do right away (budget or back-pressure) */
  boolean wantsMore() {
    if (destroyed) {
      return false;
    }
    if (requester != null && requester.wantsMore()) {
      return true;
    }
    if (responder != null && responder.wantsMore()) {
      return true;
    }
    if (dctBusy != null) {
      for (int i = 0; i < dctBusy.size(); i++) {
        if (dctBusy.get(i).wantsMore()) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Fires expired timers (engine thread, under the lock).
   *
   * @param now the time
   * @return whether a timer fired
   */
  boolean fireTimers(long now) {
    // The SRQ poll runs even on a destroyed QP: it polls for every sender the SRQ stopped.
    boolean polled = srqFlow != null && srqFlow.poll(this, now);
    return requester != null && !destroyed && requester.fireTimers(now) || polled;
  }

  /** @return whether a timer is armed; then {@link #nextDeadline()} is valid */
  /** @return whether the requester waits for a reply the responder will send (under the QP lock) */
  boolean awaitsReply() {
    return requester != null && !destroyed && requester.awaitsReply();
  }

  boolean timerArmed() {
    return requester != null && !destroyed && requester.timerArmed() || srqFlow != null && srqFlow.polledBy(this);
  }

  /** @return the earliest armed deadline */
  long nextDeadline() {
    boolean req = requester != null && !destroyed && requester.timerArmed();
    if (srqFlow == null || !srqFlow.polledBy(this)) {
      return requester.nextDeadline();
    }
    long poll = srqFlow.pollDeadline();
    if (!req) {
      return poll;
    }
    long r = requester.nextDeadline();
    return r - poll < 0 ? r : poll;
  }

  /**
   * A peer LID went down: fail fast on a connection to it (under the lock).
   *
   * @param lid the LID
   * @param now the time
   */
  void peerDown(int lid, long now) {
    if (requester != null && !destroyed) {
      requester.peerDown(lid, now);
    }
  }

  /**
   * An engine bug surfaced on this QP: the QP goes to ERR with QP_FATAL (a catastrophic error
   * that no completion can report).
   */
  void fault() {
    owner.raise(AsyncEventType.QP_FATAL);
    error();
  }

  /** @return whether each WQE names its own destination (UD, DC initiator) rather than the QP */
  private boolean addressedPerWqe() {
    return type == QpType.UD || type == QpType.DCI;
  }

  /** @return the LID {@code w} goes to */
  int destination(SendWqe w) {
    return addressedPerWqe() ? w.dlid : dlid;
  }

  /** @return the service level {@code w} goes with */
  int serviceLevel(SendWqe w) {
    return addressedPerWqe() ? w.sl : sl;
  }

  /** @return the BTH opcode family of this QP's requests */
  Transport transport() {
    return switch (type) {
      case UC -> Transport.UC;
      case UD -> Transport.UD;
      case DCI -> Transport.DC;
      default -> Transport.RC;
    };
  }

  /** @return an estimate of the bytes this QP holds (queues, replay cache, contexts) */
  public long memoryBytes() {
    long b = 256;
    if (sq != null) {
      b += sq.footprint();
    }
    if (rq != null) {
      b += 16L + rq.capacity() * (48L + rq.maxSge() * 16L);
    }
    if (responder != null) {
      b += responder.footprint();
    }

    if (dctContexts != null) {
      for (Responder r : dctContexts.values()) {
        b += r.footprint();
      }
    }
    return b;
  }
}
