package io.github.verbs4j.fabric.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.IoHandlerContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A caller's request that the background thread step back ({@link SharedIoEventLoop#awaitIo}, {@link
 * SharedIoEventLoop#progress}) is kept until the driver it was made to steps back, even when it lands
 * just as the background thread takes the loop. The selector is a fake that blocks like epoll: a
 * wake-up that comes while no select is in progress is not kept (Netty's {@code EpollIoHandler} skips
 * the eventfd write then and relies on {@link IoHandlerContext#canBlock} being false).
 */
class SharedIoEventLoopStepBackTest {
  private final FakeSelector selector = new FakeSelector();
  private SharedIoEventLoop loop;

  @AfterEach
  void close() throws Exception {
    if (loop != null) {
      loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aWaitersRequestMadeAsTheBackgroundThreadTakesTheLoopMakesItStepBack() throws Exception {
    loop = new SharedIoEventLoop(ctx -> selector, "step-back-test", TimeUnit.MILLISECONDS.toNanos(1));
    CountDownLatch requested = new CountDownLatch(1);
    CompletableFuture<Boolean> waited = new CompletableFuture<>();
    loop.afterBackgroundTake = () -> {
      loop.afterBackgroundTake = null;
      selector.armed = true; // from here on a select that may block does
      Thread waiter = new Thread(() -> waited.complete(loop.awaitIo(null, () -> true, TimeUnit.SECONDS.toNanos(5))));
      waiter.start();
      // The waiter found the loop taken, asked for it and parked until the background thread steps back.
      while (LockSupport.getBlocker(waiter) != loop && !waited.isDone()) {
        Thread.onSpinWait();
      }
      requested.countDown();
    };
    assertTrue(requested.await(10, TimeUnit.SECONDS), "the background thread never took the loop");
    boolean gotLoop = waited.get(10, TimeUnit.SECONDS); // false after its 5 s if the request was lost
    Boolean blocked = selector.firstArmedBackgroundSelect;
    assertNotNull(blocked, "the background thread never selected");
    assertFalse(blocked, "with a caller waiting, the background thread's select must not block");
    assertTrue(gotLoop, "the waiter never got the loop");
    assertEquals(0, loop.callerMisses().sum(), "the waiter missed the loop");
  }

  @Test
  void aPollersRequestMadeAsTheBackgroundThreadTakesTheLoopMakesItStepBack() throws Exception {
    loop = new SharedIoEventLoop(ctx -> selector, "step-back-test", TimeUnit.MILLISECONDS.toNanos(1));
    CountDownLatch requested = new CountDownLatch(1);
    loop.afterBackgroundTake = () -> {
      loop.afterBackgroundTake = null;
      selector.armed = true;
      Thread poller = new Thread(() -> loop.progress(null));
      poller.start();
      try {
        poller.join(); // it found the loop taken and asked for it
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      requested.countDown();
    };
    assertTrue(requested.await(10, TimeUnit.SECONDS), "the background thread never took the loop");
    assertEquals(1, loop.callerMisses().sum(), "the poller found the loop taken");
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (selector.firstArmedBackgroundSelect == null && System.nanoTime() < until) {
      Thread.onSpinWait();
    }
    Boolean blocked = selector.firstArmedBackgroundSelect;
    assertNotNull(blocked, "the background thread never selected");
    assertFalse(blocked, "with a caller asking for the loop, the background thread's select must not block");
  }

  /** Blocks (once {@link #armed}) while the context allows it; records the background thread's first armed select. */
  private static final class FakeSelector extends BlockingFakeSelector {
    volatile boolean armed;
    volatile Boolean firstArmedBackgroundSelect; // whether the first armed select of the background thread could block

    @Override
    public synchronized int run(IoHandlerContext c) {
      if (!armed) {
        LockSupport.parkNanos(100_000); // a short quiet select
        return 0;
      }
      boolean background = Thread.currentThread().getName().equals("step-back-test");
      boolean mayBlock = c.canBlock();
      if (background && firstArmedBackgroundSelect == null) {
        firstArmedBackgroundSelect = mayBlock;
      }
      block(c);
      return 0;
    }
  }
}
