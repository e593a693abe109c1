package io.github.verbs4j.verbs.spi.runtime;

import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * An application thread's wait for a completion inside the fabric's I/O, as both providers' runners
 * do it on a crowded host: it blocks in the I/O (the fabric's {@code CallerProgress.awaitIo}, through
 * the provider's port or link) and runs the agent after each wake-up, so what ends the wait is read
 * and handled on the one thread it wakes. One per device's runners; any thread may wait.
 */
public final class IoWait {
  /** One block in the fabric's I/O: {@code CallerProgress.awaitIo} through a provider's port. */
  @FunctionalInterface
  public interface Block {
    /**
     * @param work the agent's run, after each wake-up
     * @param ready true when the wait is over
     * @param timeoutNanos longest block
     * @return false if the I/O is another thread's (nothing blocked)
     */
    boolean await(IntSupplier work, BooleanSupplier ready, long timeoutNanos);
  }

  private final Block io;
  private final IntSupplier work;
  private final Runnable beforeBlock;

  /**
   * @param io how to block in the fabric's I/O
   * @param work the agent's run after each wake-up, as an application's call
   * @param beforeBlock what must leave before each block since no other thread would send it soon
   *     (the ib responder's held ACKs)
   */
  public IoWait(Block io, IntSupplier work, Runnable beforeBlock) {
    this.io = io;
    this.work = work;
    this.beforeBlock = beforeBlock;
  }

  /**
   * @param io how to block in the fabric's I/O
   * @param work the agent's run after each wake-up, as an application's call
   */
  public IoWait(Block io, IntSupplier work) {
    this(io, work, () -> {});
  }

  /**
   * Blocks in the fabric's I/O until {@code ready} or the timeout.
   *
   * @param ready true when the wait is over
   * @param timeoutNanos longest wait
   * @return true if it waited (ready, or the time is up); false if it could not block there (the
   *     I/O is another thread's): the caller blocks its own way
   */
  public boolean await(BooleanSupplier ready, long timeoutNanos) {
    long deadline = System.nanoTime() + timeoutNanos;
    while (!ready.getAsBoolean()) {
      beforeBlock.run();
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return true;
      }
      if (!io.await(work, ready, left)) {
        return false;
      }
    }
    return true;
  }
}
