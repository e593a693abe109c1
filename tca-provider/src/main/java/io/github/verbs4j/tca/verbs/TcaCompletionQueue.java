package io.github.verbs4j.tca.verbs;

import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.spi.SoftCompletionChannel;
import io.github.verbs4j.verbs.spi.SoftCompletionQueue;

/**
 * A completion queue of {@code tca_peach2}: the SPI ring. A poll first gives the context's proxy
 * to the polling thread as its threading mode says ({@link ProxyRunners#onPoll}): with {@code
 * invoker} it runs the proxy (and the fabric's I/O) until idle, so a program that only polls makes
 * progress; with {@code dedicated} it does the fabric's I/O and runs the proxy if no other thread
 * does; with {@code shared} it only reads the ring.
 */
final class TcaCompletionQueue extends SoftCompletionQueue {
  private final TcaContext ctx;
  private final Proxy proxy;

  TcaCompletionQueue(TcaContext ctx, int cqe, SoftCompletionChannel channel, Proxy proxy) {
    super(ctx, cqe, channel);
    this.ctx = ctx;
    this.proxy = proxy;
  }

  @Override
  public int poll(WorkCompletion[] wcs, int max) {
    proxy.polled();
    int n = super.poll(wcs, max);
    if (n > 0) {
      ctx.chargePoll(); // the application finds completions (an empty poll waits for the next event instead)
    }
    return n;
  }
}
