package io.github.verbs4j.verbs.spi;

import io.github.verbs4j.verbs.CompletionChannel;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.VerbsException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A completion channel in software: a blocking queue of CQ events. Shared by every provider.
 */
public final class SoftCompletionChannel implements CompletionChannel {
  private final AbstractContext context;
  private final LinkedBlockingQueue<CompletionQueue> events = new LinkedBlockingQueue<>();
  private final BooleanSupplier hasEvent = () -> !events.isEmpty();
  final OpenSet cqs = new OpenSet();
  private volatile boolean closed;

  /**
   * @param context the owning context
   */
  public SoftCompletionChannel(AbstractContext context) {
    this.context = context;
  }

  void deliver(CompletionQueue cq) {
    events.offer(cq);
    context.channelEventQueued();
  }

  @Override
  public Optional<CompletionQueue> await(Duration timeout) {
    if (closed) {
      throw new VerbsException(Errno.EBADF, "completion channel is closed");
    }
    try {
      long nanos = timeout.toNanos();
      if (nanos <= 0) {
        return Optional.ofNullable(events.poll());
      }
      CompletionQueue ready = events.poll();
      if (ready != null) {
        return Optional.of(ready);
      }
      if (context.awaitProgress(hasEvent, nanos)) {
        return Optional.ofNullable(events.poll());
      }
      context.beforeBlocking();
      return Optional.ofNullable(events.poll(nanos, TimeUnit.NANOSECONDS));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  @Override
  public Context context() {
    return context;
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    cqs.checkEmpty("completion channel");
    closed = true;
    context.children.remove(this);
  }
}
