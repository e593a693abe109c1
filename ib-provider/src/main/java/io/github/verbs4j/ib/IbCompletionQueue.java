package io.github.verbs4j.ib;

import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.spi.SoftCompletionChannel;
import io.github.verbs4j.verbs.spi.SoftCompletionQueue;
import io.micrometer.core.instrument.Meter;

/**
 * A completion queue of {@code sim_ib0}: the SPI ring (notification, solicited-only, overrun to
 * CQ_ERR), reported by the memory gauge. With {@code verbs.threading=invoker} a poll first runs
 * the engine on the polling thread, so a program that only polls still makes progress; with
 * {@code dedicated} (the default) a poll lets the fabric deliver and runs the engine when no other
 * thread is running it; with {@code shared} a poll only reads the ring ({@link
 * io.github.verbs4j.ib.engine.IbDevice#onPoll}).
 */
final class IbCompletionQueue extends SoftCompletionQueue {
  /** Bytes of one preallocated completion slot. */
  static final int SLOT_BYTES = 96;

  private final IbContext ctx;
  private final boolean drives;
  private final Meter gauge;

  IbCompletionQueue(IbContext ctx, int cqe, SoftCompletionChannel channel) {
    super(ctx, cqe, channel);
    this.ctx = ctx;
    this.drives = ctx.engine().callsDrive();
    this.gauge = ctx.metrics().memoryGauge("cq", ctx.metrics().uniqueId("cq"), this,
        q -> 64.0 + (double) q.cqe() * SLOT_BYTES);
  }

  @Override
  public int poll(WorkCompletion[] wcs, int max) {
    if (drives) {
      ctx.engine().onPoll();
    }
    return super.poll(wcs, max);
  }

  @Override
  public void close() {
    super.close();
    ctx.metrics().remove(gauge);
  }
}
