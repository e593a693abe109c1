package io.github.verbs4j.ib.engine;

import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.spi.AbstractContext;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * A QP's send queue: a preallocated ring of {@link SendWqe}s. The posting thread is the only
 * producer (it advances {@code tail} with a release store after filling a slot); the engine is the
 * only consumer: the requester walks {@code [head, tail)} with its own index and the completer
 * frees slots by advancing {@code head}. Nothing is allocated after creation.
 */
final class SendQueue {
  private static final VarHandle HEAD;
  private static final VarHandle TAIL;

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.lookup();
      HEAD = l.findVarHandle(SendQueue.class, "head", long.class);
      TAIL = l.findVarHandle(SendQueue.class, "tail", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final SendWqe[] slots;
  private final int capacity;
  @SuppressWarnings("unused") // through HEAD
  private volatile long head;
  @SuppressWarnings("unused") // through TAIL
  private volatile long tail;

  SendQueue(int capacity, int maxSge, int maxInline) {
    this.capacity = capacity;
    int n = Math.max(1, capacity);
    slots = new SendWqe[n];
    ByteBuffer inline = maxInline > 0 ? ByteBuffer.allocateDirect(n * maxInline) : null;
    for (int i = 0; i < n; i++) {
      slots[i] = new SendWqe(maxSge, inline == null ? null : inline.slice(i * maxInline, maxInline));
    }
  }

  /** @return whether one more WR would exceed the capacity (posting thread) */
  boolean full() {
    return (long) TAIL.getOpaque(this) - (long) HEAD.getVolatile(this) >= capacity;
  }

  /**
   * Copies a WR into the next slot and publishes it (posting thread).
   *
   * @param wr the validated WR
   * @param sigAll whether every WR is signaled
   * @param ctx where inline address SGEs are read from
   */
  void enqueue(SendWr wr, boolean sigAll, AbstractContext ctx) {
    long t = (long) TAIL.getOpaque(this);
    slots[(int) (t % slots.length)].copyFrom(wr, sigAll, ctx);
    TAIL.setRelease(this, t + 1);
  }

  /** @return the producer index (engine: acquire) */
  long tail() {
    return (long) TAIL.getAcquire(this);
  }

  /** @return the consumer index */
  long head() {
    return (long) HEAD.getOpaque(this);
  }

  /** @param h the new consumer index (engine; frees slots for the producer) */
  void head(long h) {
    HEAD.setRelease(this, h);
  }

  /** @param i an index in {@code [head, tail)} @return the slot */
  SendWqe slot(long i) {
    return slots[(int) (i % slots.length)];
  }

  /** @return the capacity */
  int capacity() {
    return capacity;
  }

  /** @return bytes the ring holds */
  long footprint() {
    return 16L + slots.length * (8 + slots[0].footprint());
  }
}
