package io.github.verbs4j.fabric.netty;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoRegistration;

/**
 * A selector for {@link SharedIoEventLoop} tests, with no channels: {@link #block} waits while the
 * context allows it, until a wake-up that comes during the wait; a wake-up outside a wait is dropped,
 * as epoll's is between passes (Netty's {@code EpollIoHandler} skips the eventfd write then and relies
 * on {@link IoHandlerContext#canBlock} being false). Subclasses decide when {@link #run} blocks.
 */
abstract class BlockingFakeSelector implements IoHandler {
  private boolean selecting;
  private boolean woken;

  /**
   * Waits while {@code c} may block and no wake-up came; called holding this object's monitor
   * (from a synchronized {@link #run}).
   *
   * @param c the pass's context
   */
  protected final void block(IoHandlerContext c) {
    if (!c.canBlock()) {
      return;
    }
    selecting = true;
    woken = false;
    try {
      while (!woken && c.canBlock()) {
        wait(10);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      selecting = false;
    }
  }

  @Override
  public synchronized void wakeup() {
    if (selecting) {
      woken = true;
      notifyAll();
    }
  }

  @Override
  public IoRegistration register(IoHandle handle) {
    throw new UnsupportedOperationException("no channels in this test");
  }

  @Override
  public boolean isCompatible(Class<? extends IoHandle> handleType) {
    return false;
  }
}
