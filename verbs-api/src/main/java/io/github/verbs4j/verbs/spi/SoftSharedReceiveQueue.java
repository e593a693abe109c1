package io.github.verbs4j.verbs.spi;

import io.github.verbs4j.verbs.AsyncEvent;
import io.github.verbs4j.verbs.AsyncEventType;
import io.github.verbs4j.verbs.Capability;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SharedReceiveQueue;
import io.github.verbs4j.verbs.SrqAttr;
import io.github.verbs4j.verbs.SrqAttrMask;
import io.github.verbs4j.verbs.VerbsException;

/**
 * A shared receive queue in software, shared by every provider: FIFO consumption by attached QPs,
 * the one-shot limit event ({@code srq_limit}, rxe: {@code if (limit && count < limit) limit = 0, event}),
 * resize when the provider has {@link Capability#SRQ_RESIZE}.
 */
public class SoftSharedReceiveQueue extends ReceiveQueue implements SharedReceiveQueue {
  private final AbstractProtectionDomain pd;
  private final int srqNum;
  final OpenSet qps = new OpenSet();
  private int limit;
  private volatile boolean closed;
  private Object providerState;

  /**
   * @param pd the owning PD
   * @param attr validated creation attributes
   * @param srqNum the SRQ number
   */
  public SoftSharedReceiveQueue(AbstractProtectionDomain pd, SrqAttr attr, int srqNum) {
    super(attr.maxWr(), attr.maxSge());
    this.pd = pd;
    this.srqNum = srqNum;
  }

  @Override
  public void postRecv(RecvWr wr) {
    if (closed) {
      throw new VerbsException(Errno.EBADF, "SRQ " + srqNum + " is closed");
    }
    post(wr, "SRQ " + srqNum);
  }

  @Override
  protected void afterPop() {
    if (limit != 0 && size() < limit) {
      limit = 0;
      pd.context.raiseAsyncEvent(AsyncEvent.ofSrq(AsyncEventType.SRQ_LIMIT_REACHED, this));
    }
  }

  @Override
  public void arm(int newLimit) {
    modify(new SrqAttr(0, 0, newLimit), SrqAttrMask.LIMIT.value());
  }

  @Override
  public synchronized void modify(SrqAttr attr, int mask) {
    SrqAttrMask.fromMask(mask);
    boolean resize = SrqAttrMask.MAX_WR.isSet(mask);
    boolean arm = SrqAttrMask.LIMIT.isSet(mask);
    int newMax = resize ? attr.maxWr() : capacity();
    if (resize) {
      if (!pd.context.queryDevice().has(Capability.SRQ_RESIZE)) {
        throw new VerbsException(Errno.EOPNOTSUPP, "SRQ resize (max_wr=" + attr.maxWr()
            + ") is not supported by this device (no SRQ_RESIZE capability)");
      }
      int devMax = pd.context.queryDevice().maxSrqWr();
      if (attr.maxWr() < size() || attr.maxWr() > devMax) {
        throw VerbsException.invalid("max_wr=" + attr.maxWr() + " is outside [" + size() + " posted, max_srq_wr="
            + devMax + "]");
      }
      if (attr.maxWr() < (arm ? attr.srqLimit() : limit)) {
        throw VerbsException.invalid("max_wr=" + attr.maxWr() + " is below srq_limit=" + (arm ? attr.srqLimit() : limit));
      }
    }
    if (arm && (attr.srqLimit() < 0 || attr.srqLimit() > newMax)) {
      throw VerbsException.invalid("srq_limit=" + attr.srqLimit() + " exceeds max_wr=" + newMax);
    }
    if (resize && attr.maxWr() > capacity()) {
      resize(attr.maxWr());
    }
    if (arm) {
      limit = attr.srqLimit();
    }
  }

  @Override
  public synchronized SrqAttr query() {
    return new SrqAttr(capacity(), maxSge(), limit);
  }

  @Override
  public int srqNum() {
    return srqNum;
  }

  @Override
  public ProtectionDomain pd() {
    return pd;
  }

  /**
   * State a provider keeps with this SRQ beyond the queue itself (the ib provider's seed-002
   * retransmission management table), created on first use. The SRQ's behaviour does not depend
   * on it; providers that need none never call this.
   *
   * @param type the state's class
   * @param create makes the state the first time
   * @param <T> the state's type
   * @return the state, the same object on every call with the same type
   * @throws ClassCastException if a state of another type was created before
   */
  public synchronized <T> T providerState(Class<T> type, java.util.function.Supplier<T> create) {
    if (providerState == null) {
      providerState = create.get();
    }
    return type.cast(providerState);
  }

  /**
   * @param type the state's class
   * @param <T> the state's type
   * @return the state {@link #providerState(Class, java.util.function.Supplier)} created, or null
   */
  public synchronized <T> T providerStateOrNull(Class<T> type) {
    return type.isInstance(providerState) ? type.cast(providerState) : null;
  }

  /** @return whether the SRQ is closed */
  public boolean isClosed() {
    return closed;
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    qps.checkEmpty("SRQ " + srqNum);
    closed = true;
    pd.children.remove(this);
    pd.context.srqs.release();
    pd.softContext().memoryAccount().release(this);
  }
}
