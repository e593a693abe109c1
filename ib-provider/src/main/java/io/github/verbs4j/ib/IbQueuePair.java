package io.github.verbs4j.ib;

import io.github.verbs4j.ib.engine.EngineQp;
import io.github.verbs4j.ib.engine.QpOwner;
import io.github.verbs4j.verbs.AsyncEvent;
import io.github.verbs4j.verbs.AsyncEventType;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.SendWr;
import io.micrometer.core.instrument.Meter;

/**
 * A queue pair of {@code sim_ib0} (RC, UC, UD, DCI, DCT). The SPI base validates everything a
 * libibverbs caller can get wrong; this class hands the result to the HCA's {@link EngineQp}: a
 * modify becomes the engine's transition (flush on ERR, reset on RESET, drain on SQD), a post
 * copies the WR into the engine's send queue and rings the doorbell.
 *
 * <p>Its QP lock is a private object shared with the engine (see {@link QpOwner#lock()}).
 */
final class IbQueuePair extends io.github.verbs4j.verbs.spi.AbstractQueuePair implements QpOwner {
  private final IbContext ctx;
  private final EngineQp engine;
  private final Meter gauge;
  /** The QP lock: the base's modify/query/close and the engine take it; initialised before attach. */
  private final Object lock = new Object();

  IbQueuePair(IbProtectionDomain pd, QpInitAttr init, int qpn, QpCap cap) {
    super(pd, init, qpn, cap);
    this.ctx = pd.ib();
    this.engine = ctx.engine().attach(qpn, this, init.qpType(), pd, ctx, sendCq, recvCq, rq, srq, cap,
        init.sqSigAll(), init.dcKey());
    this.gauge = ctx.metrics().memoryGauge("qp", "0x" + Integer.toHexString(qpn), this, IbQueuePair::memoryBytes);
  }

  /** @return the bytes this QP's queues, replay cache and contexts hold */
  double memoryBytes() {
    synchronized (lock) {
      return engine.memoryBytes();
    }
  }

  /** @return the engine context (tests) */
  EngineQp engine() {
    return engine;
  }

  @Override
  protected void applyModify(QpState from, QpState next, QpAttr merged, QpAttr requested) {
    engine.applyModify(from, next, merged);
  }

  @Override
  protected boolean sendQueueFull() {
    return engine.sendQueueFull();
  }

  @Override
  protected void enqueueSend(SendWr wr) {
    engine.enqueueSend(wr);
  }

  @Override
  protected void sendPosted() {
    engine.doorbell();
  }

  @Override
  protected void recvPosted() {
    if (state() == QpState.ERR) {
      engine.doorbell(); // receives posted in ERR complete with WR_FLUSH_ERR
    }
  }

  @Override
  protected void liveAttrs(QpAttr q) {
    engine.liveAttrs(q); // query() holds the QP lock
  }

  @Override
  protected boolean sqDraining() {
    return engine.sqDraining();
  }

  @Override
  protected void destroy() {
    synchronized (lock) {
      engine.destroy();
    }
    ctx.metrics().remove(gauge);
  }

  @Override
  protected Object qpLock() {
    return lock;
  }

  @Override
  public Object lock() {
    return lock;
  }

  @Override
  public boolean enterErrorState() {
    return enterError();
  }

  @Override
  public void raise(AsyncEventType type) {
    ctx.raiseAsyncEvent(AsyncEvent.ofQp(type, this));
  }
}
