package io.github.verbs4j.fabric;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Each source node's share of a receiver's bounded inbound queue, so that one peer sending faster
 * than the receiver takes frames off cannot fill the queue and starve the others: the admission
 * half of a switch buffer with a reserved and a shared part.
 *
 * <p>The queue's capacity is split in two. Half is reserved, {@code capacity / (2 · sources)}
 * slots for each source; the rest is one pool any source may use. A frame from a source is
 * admitted while that source holds fewer than its reserved slots, or else while the pool has a
 * free slot; otherwise it is refused (the caller drops it as {@link DropReason#SOURCE_SHARE}).
 * The admitted frames never exceed the capacity, so a source that keeps within its reserved slots
 * never finds the queue full, whatever the others send; a lone busy source may still use up to
 * {@code capacity / 2 + reserved} slots. (A queue of fewer than {@code 2 · sources} slots still
 * reserves one per source; only then may the admitted frames exceed the capacity.)
 *
 * <p>The producer calls {@link #admit} before it queues a frame, the consumer {@link #taken} for
 * each frame it takes off the queue (or drops after admitting). Lock-free, allocation-free; any
 * thread. Invariant: pool slots in use = Σ over sources of max(0, held − reserved).
 */
public final class InboundShares {
  private final int capacity;
  private final int reserved;
  private final int pool;
  private final AtomicIntegerArray held;
  private final AtomicInteger poolUsed = new AtomicInteger();

  /**
   * @param capacity the queue's capacity (frames), at least 1
   * @param sources the highest source node id (sources are 1..sources; 0 and higher ids are
   *     refused), at least 1
   */
  public InboundShares(int capacity, int sources) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity=" + capacity + " must be at least 1");
    }
    if (sources < 1) {
      throw new IllegalArgumentException("sources=" + sources + " must be at least 1");
    }
    this.capacity = capacity;
    this.reserved = Math.max(1, capacity / (2 * sources));
    this.pool = Math.max(0, capacity - (int) Math.min(capacity, (long) reserved * sources));
    this.held = new AtomicIntegerArray(sources + 1);
  }

  /**
   * Takes a slot for a frame from {@code src}.
   *
   * @param src the source node id
   * @return false if {@code src} has used its reserved slots and the pool is full (or {@code src}
   *     is out of range): drop the frame
   */
  public boolean admit(int src) {
    if (src < 1 || src >= held.length()) {
      return false;
    }
    while (true) {
      int h = held.get(src);
      if (h < reserved) {
        if (held.compareAndSet(src, h, h + 1)) {
          return true;
        }
        continue;
      }
      int p = poolUsed.get();
      if (p >= pool) {
        return false;
      }
      if (!poolUsed.compareAndSet(p, p + 1)) {
        continue;
      }
      if (held.compareAndSet(src, h, h + 1)) {
        return true;
      }
      poolUsed.decrementAndGet(); // src's count moved meanwhile: decide again
    }
  }

  /**
   * Gives back the slot of a frame from {@code src} that {@link #admit} let in.
   *
   * @param src the source node id
   */
  public void taken(int src) {
    if (src < 1 || src >= held.length()) {
      return;
    }
    while (true) {
      int h = held.get(src);
      if (h <= 0) {
        return; // not admitted here (a frame queued by another path): nothing to give back
      }
      if (held.compareAndSet(src, h, h - 1)) {
        if (h > reserved) {
          poolUsed.decrementAndGet();
        }
        return;
      }
    }
  }

  /** @return the queue capacity the shares divide */
  public int capacity() {
    return capacity;
  }

  /** @return slots reserved for each source */
  public int reserved() {
    return reserved;
  }

  /** @return slots of the pool every source shares */
  public int pool() {
    return pool;
  }

  /**
   * @param src a source node id
   * @return frames from {@code src} admitted and not yet taken
   */
  public int held(int src) {
    return src < 1 || src >= held.length() ? 0 : held.get(src);
  }
}
