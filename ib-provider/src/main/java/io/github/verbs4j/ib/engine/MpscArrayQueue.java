package io.github.verbs4j.ib.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A bounded many-producer, single-consumer queue of references over a preallocated array
 * (Agrona's {@code ManyToOneConcurrentArrayQueue} idea): producers claim a slot by CAS on the tail
 * and publish the element with a release store; the single consumer reads slots in order. Neither
 * side allocates.
 *
 * @param <E> element type
 */
final class MpscArrayQueue<E> {
  private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(Object[].class);
  private static final VarHandle HEAD;
  private static final VarHandle TAIL;

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.lookup();
      HEAD = l.findVarHandle(MpscArrayQueue.class, "head", long.class);
      TAIL = l.findVarHandle(MpscArrayQueue.class, "tail", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final Object[] slots;
  private final int mask;
  @SuppressWarnings("unused") // through HEAD
  private volatile long head;
  @SuppressWarnings("unused") // through TAIL
  private volatile long tail;

  /** @param capacity rounded up to a power of two */
  MpscArrayQueue(int capacity) {
    int c = Integer.highestOneBit(Math.max(2, capacity) - 1) << 1;
    slots = new Object[c];
    mask = c - 1;
  }

  /**
   * @param e the element, not null
   * @return false if full
   */
  boolean offer(E e) {
    long t;
    do {
      t = (long) TAIL.getVolatile(this);
      if (t - (long) HEAD.getVolatile(this) >= slots.length) {
        return false;
      }
    } while (!TAIL.compareAndSet(this, t, t + 1));
    SLOTS.setRelease(slots, (int) (t & mask), e);
    return true;
  }

  /** @return the oldest element, or null if none is published (consumer thread only) */
  @SuppressWarnings("unchecked")
  E poll() {
    long h = (long) HEAD.getOpaque(this);
    int i = (int) (h & mask);
    Object e = SLOTS.getAcquire(slots, i);
    if (e == null) {
      return null;
    }
    SLOTS.setRelease(slots, i, null);
    HEAD.setRelease(this, h + 1);
    return (E) e;
  }

  /** @return true if no element is claimed or published */
  boolean isEmpty() {
    return (long) HEAD.getVolatile(this) == (long) TAIL.getVolatile(this);
  }

  /** @return capacity */
  int capacity() {
    return slots.length;
  }
}
