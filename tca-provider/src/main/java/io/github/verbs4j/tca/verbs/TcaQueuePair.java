package io.github.verbs4j.tca.verbs;

import io.github.verbs4j.verbs.AsyncEventType;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpAttrMask;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.AsyncEvent;
import io.github.verbs4j.verbs.spi.AbstractQueuePair;
import io.github.verbs4j.verbs.spi.RecvWqe;
import io.github.verbs4j.verbs.spi.SoftCompletionQueue;

/**
 * A TCA Verbs queue pair: RC, UC or UD over the packet rings of the context's {@link Channel}s. The
 * state machine, post-time checks and the receive queue come from {@link AbstractQueuePair}; the
 * send side is a {@link Requester}, the receive side a {@link Responder}, both driven by the
 * context's {@link Proxy} agent under the QP lock {@link #lock()} (posting and modify take it too):
 * a private object, so an application that synchronizes on its QP never stalls the proxy.
 */
final class TcaQueuePair extends AbstractQueuePair {
  private final Object lock = new Object();
  final TcaContext ctx;
  final Requester requester;
  final Responder responder;
  /** Send queue: WQEs [head, tail) in post order; capacity max_send_wr. */
  private final SendWqe[] sq;
  long head;
  long tail;
  private final WorkCompletion flushWc = new WorkCompletion();
  private final RecvWqe flushRecv = new RecvWqe();
  volatile boolean destroyed;

  TcaQueuePair(TcaProtectionDomain pd, QpInitAttr init, int qpNum, QpCap cap) {
    super(pd, init, qpNum, cap);
    this.ctx = pd.tcaContext();
    int n = Math.max(1, cap.maxSendWr());
    this.sq = new SendWqe[n];
    for (int i = 0; i < n; i++) {
      sq[i] = new SendWqe();
    }
    this.requester = new Requester(this);
    this.responder = new Responder(this);
  }

  SendWqe slot(long index) {
    return sq[(int) (index % sq.length)];
  }

  SoftCompletionQueue scq() {
    return sendCq;
  }

  SoftCompletionQueue rcq() {
    return recvCq;
  }

  /**
   * Takes the next receive WQE (own RQ or SRQ).
   *
   * @param into filled in
   * @return false if none is posted
   */
  boolean takeRecv(RecvWqe into) {
    return srq != null ? srq.pop(into) : rq != null && rq.pop(into);
  }

  @Override
  protected void applyModify(QpState from, QpState next, QpAttr merged, QpAttr requested) {
    switch (next) {
      case RTR -> responder.configure(merged);
      case RTS -> {
        if (from == QpState.RTR) {
          requester.configure(merged);
        } else {
          requester.update(merged);
        }
        responder.updateAccess(merged);
      }
      case SQD -> requester.drainNotify(merged.enSqdAsyncNotify(), tail);
      case ERR -> {
        if (from != QpState.ERR) {
          flushAll();
        }
      }
      case RESET -> reset();
      default -> {
        // INIT: nothing to set up
      }
    }
    ctx.proxy().wake();
  }

  /** Completes every queued WR with WR_FLUSH_ERR: send queue, held receive, receive queue, in order. */
  void flushAll() {
    WorkCompletion wc = flushWc;
    for (long h = head; h < tail; h++) {
      SendWqe w = slot(h);
      requester.release(w);
      wc.reset(w.wrId, WcStatus.WR_FLUSH_ERR, w.opcode.completionOpcode(), qpNum);
      sendCq.push(wc, false);
    }
    int n = (int) (tail - head);
    head = tail;
    requester.flushed(tail);
    n += responder.flushHeld(wc);
    if (rq != null) {
      while (rq.pop(flushRecv)) {
        wc.reset(flushRecv.wrId(), WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, qpNum);
        recvCq.push(wc, false);
        n++;
      }
    }
    ctx.counters().flushes(n);
  }

  private void reset() {
    for (long h = head; h < tail; h++) {
      requester.release(slot(h));
    }
    head = tail;
    requester.flushed(tail);
    responder.reset();
    if (rq != null) {
      rq.clear();
    }
    if (sendCq != null) {
      sendCq.purge(qpNum);
    }
    if (recvCq != null && recvCq != sendCq) {
      recvCq.purge(qpNum);
    }
  }

  /** A data-path error: to ERR (QP_LAST_WQE_REACHED for SRQ QPs), then flush. Under the QP lock. */
  void fail() {
    if (enterError()) {
      flushAll();
    }
  }

  /**
   * Raises an async event for this QP.
   *
   * @param type the event
   */
  void raise(AsyncEventType type) {
    ctx.raiseAsyncEvent(AsyncEvent.ofQp(type, this));
  }

  /** @return the QP's attributes (for the engine) */
  QpAttr attrs() {
    return currentAttrs();
  }

  @Override
  protected boolean sendQueueFull() {
    synchronized (lock) {
      return tail - head >= cap.maxSendWr();
    }
  }

  @Override
  protected void enqueueSend(SendWr wr) {
    ctx.chargeStore(); // the WQE
    synchronized (lock) {
      if (state() == QpState.ERR) {
        flushWc.reset(wr.wrId(), WcStatus.WR_FLUSH_ERR, wr.opcode().completionOpcode(), qpNum);
        sendCq.push(flushWc, false);
        ctx.counters().flushes(1);
        return;
      }
      SendWqe w = slot(tail);
      w.copyFrom(wr, ctx);
      if (w.isInline()) {
        ctx.chargeReads(w); // the data was read at the post, from device memory through gdrcopy
      }
      tail++;
    }
  }

  @Override
  protected void sendPosted() {
    ctx.proxy().posted();
  }

  @Override
  protected void recvPosted() {
    synchronized (lock) {
      if (state() == QpState.ERR && rq != null) {
        while (rq.pop(flushRecv)) {
          flushWc.reset(flushRecv.wrId(), WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, qpNum);
          recvCq.push(flushWc, false);
          ctx.counters().flushes(1);
        }
      }
    }
  }

  @Override
  protected void liveAttrs(QpAttr q) {
    // query() holds the QP lock, the one the proxy runs the engines under
    if (q.has(QpAttrMask.SQ_PSN) && type() != QpType.UD) {
      q.sqPsn(requester.nextNewPsn());
    }
    if (q.has(QpAttrMask.RQ_PSN)) {
      q.rqPsn(responder.expectedPsn());
    }
  }

  @Override
  protected boolean sqDraining() {
    return state() == QpState.SQD && !requester.drained();
  }

  @Override
  protected Object qpLock() {
    return lock;
  }

  /** @return the QP lock: the proxy works on this QP only while holding it */
  Object lock() {
    return lock;
  }

  @Override
  protected void destroy() {
    synchronized (lock) {
      destroyed = true;
      for (long h = head; h < tail; h++) {
        requester.release(slot(h));
      }
      responder.release();
    }
    ctx.proxy().detach(this);
  }

  /** @return whether this QP moves data reliably (RC) */
  boolean reliable() {
    return type() == QpType.RC;
  }

  /** @return an estimate of the bytes this QP holds */
  long memoryBytes() {
    return 512L + sq.length * 160L + (rq != null ? rq.capacity() * 64L : 0);
  }
}
