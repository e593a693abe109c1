package io.github.verbs4j.verbs.spi;

import io.github.verbs4j.verbs.AsyncEvent;
import io.github.verbs4j.verbs.CompletionChannel;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.VerbsException;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;

/**
 * A completion queue in software, shared by every provider: a preallocated ring of {@link
 * WorkCompletion} slots with one-shot notification, solicited-only notification and overrun.
 *
 * <p>Producers (the provider's engines) call {@link #push} and the application calls {@link #poll};
 * both take the CQ's monitor briefly (an uncontended lock, no allocation). Nothing is allocated
 * after creation except by {@link #resize}.
 */
public class SoftCompletionQueue implements io.github.verbs4j.verbs.CompletionQueue {
  private enum Arm {
    NONE, ANY, SOLICITED
  }

  private final AbstractContext context;
  private final SoftCompletionChannel channel;
  private final int maxCqe;
  final OpenSet users = new OpenSet();
  private WorkCompletion[] ring;
  private int capacity;
  private volatile long head;
  private volatile long tail;
  private Arm arm = Arm.NONE;
  private long eventsDelivered;
  private long eventsAcked;
  private volatile boolean overrun;
  private volatile boolean closed;

  /**
   * @param context the owning context
   * @param cqe requested capacity (validated by the context)
   * @param channel completion channel, or null
   */
  public SoftCompletionQueue(AbstractContext context, int cqe, SoftCompletionChannel channel) {
    this.context = context;
    this.channel = channel;
    this.maxCqe = context.queryDevice().maxCqe();
    allocate(cqe);
  }

  private void allocate(int cqe) {
    capacity = cqe;
    ring = WorkCompletion.array(cqe);
  }

  /**
   * Adds a completion. The provider fills {@code wc} (a scratch object it owns); its fields are
   * copied into the ring.
   *
   * @param wc the completion
   * @param solicited whether it is a receive completion of a message with the solicited bit
   * @return true if added; false if the CQ overran (one CQ_ERR event was raised; the caller moves
   *     its QP to ERR) or is closed
   */
  public boolean push(WorkCompletion wc, boolean solicited) {
    boolean notify;
    synchronized (this) {
      if (closed) {
        return false;
      }
      if (overrun) {
        return false;
      }
      long t = tail;
      if (t - head >= capacity) {
        overrun = true;
        context.raiseAsyncEvent(AsyncEvent.ofCq(this));
        return false;
      }
      if (wc.timestampNanos() == 0) {
        wc.timestampNanos(context.nowNanos());
      }
      ring[(int) (t % capacity)].copyFrom(wc);
      tail = t + 1;
      notify = arm == Arm.ANY || (arm == Arm.SOLICITED && (solicited || wc.status() != WcStatus.SUCCESS));
      if (notify) {
        arm = Arm.NONE;
        eventsDelivered++;
      }
    }
    if (notify) {
      channel.deliver(this);
    }
    return true;
  }

  @Override
  public int poll(WorkCompletion[] wcs) {
    return poll(wcs, wcs.length);
  }

  @Override
  public synchronized int poll(WorkCompletion[] wcs, int max) {
    if (max < 0) {
      throw new VerbsException(Errno.EINVAL, "num_entries=" + max + " is negative (ibv_poll_cq)");
    }
    if (closed) {
      throw new VerbsException(Errno.EBADF, "CQ is closed");
    }
    if (overrun) {
      throw new VerbsException(Errno.EIO, "CQ overran its capacity cqe=" + capacity + " (CQ_ERR was raised)");
    }
    long h = head;
    long available = tail - h;
    int n = (int) Math.min(available, Math.min(max, wcs.length));
    WorkCompletion[] r = ring;
    int cap = capacity;
    for (int i = 0; i < n; i++) {
      wcs[i].copyFrom(r[(int) ((h + i) % cap)]);
    }
    if (n > 0) {
      head = h + n;
    }
    return n;
  }

  /**
   * Removes every unpolled completion of {@code qpNum} (what mlx5 does when a QP goes to RESET).
   *
   * @param qpNum the QP number
   */
  public synchronized void purge(int qpNum) {
    long h = head;
    long t = tail;
    long w = h;
    for (long i = h; i < t; i++) {
      WorkCompletion wc = ring[(int) (i % capacity)];
      if (wc.qpNum() != qpNum) {
        if (w != i) {
          ring[(int) (w % capacity)].copyFrom(wc);
        }
        w++;
      }
    }
    tail = w;
  }

  /** @return the number of completions waiting to be polled */
  public long pending() {
    return tail - head;
  }

  /** @return whether the CQ overran */
  public boolean isOverrun() {
    return overrun;
  }

  @Override
  public synchronized void requestNotify(boolean solicitedOnly) {
    if (channel == null) {
      throw VerbsException.invalid("requestNotify: the CQ was created without a completion channel");
    }
    arm = solicitedOnly ? (arm == Arm.ANY ? Arm.ANY : Arm.SOLICITED) : Arm.ANY;
  }

  @Override
  public synchronized void ackEvents(int n) {
    if (n < 0 || eventsAcked + n > eventsDelivered) {
      throw VerbsException.invalid("ackEvents(" + n + "): only " + (eventsDelivered - eventsAcked)
          + " events are unacknowledged");
    }
    eventsAcked += n;
  }

  @Override
  public int cqe() {
    return capacity;
  }

  @Override
  public synchronized void resize(int cqe) {
    if (cqe < 1 || cqe > maxCqe) {
      throw VerbsException.invalid("cqe=" + cqe + " is outside [1, max_cqe=" + maxCqe + "]");
    }
    long pending = tail - head;
    if (cqe < pending) {
      throw VerbsException.invalid("cqe=" + cqe + " is smaller than the " + pending + " completions not yet polled");
    }
    WorkCompletion[] next = WorkCompletion.array(cqe);
    for (long i = 0; i < pending; i++) {
      next[(int) i].copyFrom(ring[(int) ((head + i) % capacity)]);
    }
    ring = next;
    capacity = cqe;
    context.memoryAccount().add(this, MemoryComponent.CQ, HcaFootprint.cq(cqe));
    head = 0;
    tail = pending;
  }

  @Override
  public CompletionChannel channel() {
    return channel;
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
    users.checkEmpty("CQ");
    if (eventsAcked != eventsDelivered) {
      throw new VerbsException(Errno.EBUSY, "cannot close CQ: " + (eventsDelivered - eventsAcked)
          + " completion events are not acknowledged (ackEvents)");
    }
    closed = true;
    if (channel != null) {
      channel.cqs.remove(this);
    }
    context.cqClosed(this);
    context.memoryAccount().release(this);
  }
}
