package io.github.verbs4j.ib;

import io.github.verbs4j.ib.engine.SrqFlowControl;
import io.github.verbs4j.verbs.SrqAttr;
import io.github.verbs4j.verbs.spi.SoftSharedReceiveQueue;
import io.micrometer.core.instrument.Meter;

/**
 * A shared receive queue of {@code sim_ib0}: the SPI SRQ (limit event once per arming, resize),
 * reported by the memory gauge. Responders take WQEs from it at the first packet of a message
 * (copying them out, as rxe does), so a resize never moves a WQE under a responder. With seed-002
 * stop-resend its retransmission management table ({@link SrqFlowControl}) counts in its bytes.
 */
final class IbSharedReceiveQueue extends SoftSharedReceiveQueue {
  private final IbContext ctx;
  private final Meter gauge;

  IbSharedReceiveQueue(IbProtectionDomain pd, SrqAttr attr, int srqNum) {
    super(pd, attr, srqNum);
    this.ctx = pd.ib();
    this.gauge = ctx.metrics().memoryGauge("srq", Integer.toString(srqNum), this, IbSharedReceiveQueue::bytes);
  }

  private double bytes() {
    return 64.0 + capacity() * (48.0 + maxSge() * 16.0) + SrqFlowControl.tableBytes(this);
  }

  @Override
  public void close() {
    boolean wasOpen = !isClosed();
    super.close();
    if (wasOpen && isClosed()) {
      ctx.metrics().remove(gauge);
    }
  }
}
