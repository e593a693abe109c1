package io.github.verbs4j.verbs.spi;

import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.VerbsException;

/**
 * A bounded FIFO of {@link RecvWqe}s: a QP's receive queue or the body of an SRQ. {@code post}
 * runs on application threads, {@code peek}/{@code pop} on the provider's engine; all under the
 * queue's monitor. Preallocated; nothing is allocated per post.
 */
public class ReceiveQueue {
  private RecvWqe[] slots;
  private int capacity;
  private final int maxSge;
  private long head;
  private long tail;

  /**
   * @param capacity max outstanding WRs
   * @param maxSge SGEs per WR
   */
  public ReceiveQueue(int capacity, int maxSge) {
    this.maxSge = maxSge;
    this.capacity = capacity;
    this.slots = new RecvWqe[Math.max(1, capacity)];
    for (int i = 0; i < slots.length; i++) {
      slots[i] = new RecvWqe(maxSge);
    }
  }

  /**
   * Validates and appends a chain. WRs before a failing one stay posted.
   *
   * @param first the first WR
   * @param what how to name the queue in errors, e.g. {@code RQ of RC QP 0x12}
   * @return the number of WRs posted
   * @throws VerbsException EINVAL (num_sge) or ENOMEM (full), naming the WR's index
   */
  public synchronized int post(RecvWr first, String what) {
    int index = 0;
    for (RecvWr wr = first; wr != null; wr = wr.next(), index++) {
      if (wr.numSge() > maxSge) {
        throw new VerbsException(Errno.EINVAL, "num_sge=" + wr.numSge() + " exceeds max_recv_sge=" + maxSge + " of "
            + what, index, null);
      }
      for (int i = 0; i < wr.numSge(); i++) {
        if (wr.sgList().sge(i).length() < 0) {
          throw new VerbsException(Errno.EINVAL, "sge[" + i + "].length=" + wr.sgList().sge(i).length()
              + " is negative", index, null);
        }
        if (wr.sgList().sge(i).buffer() != null) {
          throw new VerbsException(Errno.EINVAL, "sge[" + i + "] is a ByteBuffer SGE: a receive needs registered "
              + "memory (an address and lkey of a memory region)", index, null);
        }
      }
      if (tail - head >= capacity) {
        throw new VerbsException(Errno.ENOMEM, what + " is full: max_recv_wr=" + capacity + " outstanding", index,
            null);
      }
      slots[(int) (tail % slots.length)].copyFrom(wr);
      tail++;
      afterPost();
    }
    return index;
  }

  /** Hook run under the monitor after each WR is appended. */
  protected void afterPost() {}

  /** @return the oldest entry, or null if empty (it stays queued) */
  public synchronized RecvWqe peek() {
    return head == tail ? null : slots[(int) (head % slots.length)];
  }

  /**
   * Removes the oldest entry, copying it into {@code into}.
   *
   * @param into the provider's entry
   * @return false if the queue was empty
   */
  public synchronized boolean pop(RecvWqe into) {
    if (head == tail) {
      return false;
    }
    into.copyFrom(slots[(int) (head % slots.length)]);
    head++;
    afterPop();
    return true;
  }

  /** Hook run under the monitor after an entry is removed. */
  protected void afterPop() {}

  /** @return entries waiting */
  public synchronized int size() {
    return (int) (tail - head);
  }

  /** @return max outstanding WRs */
  public synchronized int capacity() {
    return capacity;
  }

  /** @return SGEs per WR */
  public int maxSge() {
    return maxSge;
  }

  /** Drops every entry without completions (QP to RESET). */
  public synchronized void clear() {
    head = tail;
  }

  /**
   * Grows the queue (SRQ resize).
   *
   * @param newCapacity at least the current size
   */
  protected synchronized void resize(int newCapacity) {
    RecvWqe[] next = new RecvWqe[Math.max(1, newCapacity)];
    int n = (int) (tail - head);
    for (int i = 0; i < next.length; i++) {
      next[i] = new RecvWqe(maxSge);
    }
    for (int i = 0; i < n; i++) {
      next[i].copyFrom(slots[(int) ((head + i) % slots.length)]);
    }
    slots = next;
    capacity = newCapacity;
    head = 0;
    tail = n;
  }
}
