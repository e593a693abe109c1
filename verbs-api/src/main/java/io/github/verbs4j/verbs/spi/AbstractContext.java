package io.github.verbs4j.verbs.spi;

import io.github.verbs4j.verbs.AsyncEvent;
import io.github.verbs4j.verbs.CompletionChannel;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Device;
import io.github.verbs4j.verbs.DeviceAttr;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.Job;
import io.github.verbs4j.verbs.PortAttr;
import io.github.verbs4j.verbs.PortCounter;
import io.github.verbs4j.verbs.PortCounters;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.VerbsException;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * The shared base of every provider's context: argument checks of the context-level calls, child
 * tracking (EBUSY on close), the async event queue, and the device-wide memory key table. A
 * provider supplies the device behaviour: port attributes and counters, its PD subclass, its clock
 * and its teardown.
 */
public abstract class AbstractContext implements Context {
  /** Modelled time: the application's time of the WRs posted now ({@link #postAt}). */
  private volatile long postTime = Long.MIN_VALUE;

  private final Device device;
  private final VerbsConfig config;
  private final DeviceAttr attr;
  /** Open PDs, channels and CQs. */
  final OpenSet children = new OpenSet();
  private final LinkedBlockingQueue<AsyncEvent> asyncEvents = new LinkedBlockingQueue<>();
  private final KeyTable<SoftMemoryRegion> memoryKeys = new KeyTable<>();
  private final RegionDirectory regions = new RegionDirectory();
  private final AtomicInteger nextPd = new AtomicInteger(1);
  private final AtomicInteger nextSrq = new AtomicInteger(1);
  /** Device-wide object counts against {@code max_pd}, {@code max_cq}, {@code max_qp}, {@code max_srq}. */
  private final ObjectLimit pds;
  private final ObjectLimit cqs;
  final ObjectLimit qps;
  final ObjectLimit srqs;
  private final MemoryAccount memory = new MemoryAccount();
  private volatile boolean closed;

  /**
   * @param device the device
   * @param config the validated configuration
   * @param attr the device's attributes and limits
   */
  protected AbstractContext(Device device, VerbsConfig config, DeviceAttr attr) {
    this.device = device;
    this.config = config;
    this.attr = attr;
    this.pds = new ObjectLimit("max_pd", "protection domains", attr.maxPd());
    this.cqs = new ObjectLimit("max_cq", "CQs", attr.maxCq());
    this.qps = new ObjectLimit("max_qp", "QPs", attr.maxQp());
    this.srqs = new ObjectLimit("max_srq", "SRQs", attr.maxSrq());
    memory.add(this, MemoryComponent.CONTEXT, HcaFootprint.context());
  }

  /**
   * The modelled HCA + driver footprint of this context and its live objects, which providers
   * publish as the {@code verbs4j.memory.bytes} meter family.
   *
   * @return the account
   */
  public MemoryAccount memoryAccount() {
    return memory;
  }

  /** @return the configuration this context was opened with */
  public VerbsConfig config() {
    return config;
  }

  /**
   * Fails if the context is closed.
   *
   * @throws VerbsException EBADF
   */
  protected void ensureOpen() {
    if (closed) {
      throw new VerbsException(Errno.EBADF, "context " + device.name() + " is closed");
    }
  }

  /** @return whether {@link #close()} completed */
  public boolean isClosed() {
    return closed;
  }

  @Override
  public Device device() {
    return device;
  }

  @Override
  public DeviceAttr queryDevice() {
    return attr;
  }

  @Override
  public PortAttr queryPort(int port) {
    ensureOpen();
    if (port < 1 || port > attr.physPortCnt()) {
      throw VerbsException.invalid("port=" + port + " is outside [1, phys_port_cnt=" + attr.physPortCnt() + "]");
    }
    return portAttr(port);
  }

  /**
   * The attributes of a valid port.
   *
   * @param port 1..phys_port_cnt
   * @return the attributes
   */
  protected abstract PortAttr portAttr(int port);

  @Override
  public PortCounters queryPortCounters(int port) {
    ensureOpen();
    if (port < 1 || port > attr.physPortCnt()) {
      throw VerbsException.invalid("port=" + port + " is outside [1, phys_port_cnt=" + attr.physPortCnt() + "]");
    }
    return PortCounters.read(c -> portCounter(port, c));
  }

  /**
   * The current value of one transport counter of a valid port (any thread).
   *
   * @param port 1..phys_port_cnt
   * @param counter the counter
   * @return its count since the context opened
   */
  protected abstract long portCounter(int port, PortCounter counter);

  @Override
  public ProtectionDomain allocPd() {
    ensureOpen();
    pds.acquire();
    AbstractProtectionDomain pd;
    try {
      pd = newPd(nextPd.getAndIncrement());
    } catch (RuntimeException e) {
      pds.release();
      throw e;
    }
    children.add(pd, "PD " + pd.handle());
    memory.add(pd, MemoryComponent.PD, HcaFootprint.pd());
    return pd;
  }

  /**
   * Creates the provider's PD.
   *
   * @param handle the PD's number
   * @return the PD
   */
  protected abstract AbstractProtectionDomain newPd(int handle);

  /**
   * Called by a thread that is about to block in a verbs call (a completion channel's {@code
   * await}) and will not poll meanwhile. A provider whose progress depends on callers (the {@code
   * ib} provider with caller threading) hands it to its own thread here. Does nothing by default.
   */
  protected void beforeBlocking() {}

  /**
   * Called by a thread about to block in a completion channel's {@code await}: a provider whose
   * progress depends on callers may let the thread wait inside its own I/O instead, handling what
   * arrives itself (one wake-up per message on a crowded host), until {@code ready} is true or the
   * timeout passes. The default does not wait.
   *
   * @param ready true once the channel has an event
   * @param timeoutNanos longest wait
   * @return true if it waited (the caller looks at the channel again without blocking); false if
   *     the caller must block on the channel ({@link #beforeBlocking} first)
   */
  protected boolean awaitProgress(BooleanSupplier ready, long timeoutNanos) {
    return false;
  }

  /** A completion event was queued on one of this context's channels (any thread): ends an {@link #awaitProgress}. */
  protected void channelEventQueued() {}

  @Override
  public CompletionChannel createCompletionChannel() {
    ensureOpen();
    SoftCompletionChannel ch = new SoftCompletionChannel(this);
    children.add(ch, "completion channel");
    return ch;
  }

  @Override
  public CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector) {
    ensureOpen();
    if (cqe < 1 || cqe > attr.maxCqe()) {
      throw VerbsException.invalid("cqe=" + cqe + " is outside [1, max_cqe=" + attr.maxCqe() + "]");
    }
    if (compVector < 0 || compVector >= attr.numCompVectors()) {
      throw VerbsException.invalid("comp_vector=" + compVector + " is outside [0, num_comp_vectors="
          + attr.numCompVectors() + ")");
    }
    SoftCompletionChannel ch = null;
    if (channel != null) {
      if (!(channel instanceof SoftCompletionChannel) || channel.context() != this) {
        throw VerbsException.invalid("channel belongs to another context");
      }
      ch = (SoftCompletionChannel) channel;
    }
    cqs.acquire();
    SoftCompletionQueue cq;
    try {
      cq = newCq(cqe, ch);
    } catch (RuntimeException e) {
      cqs.release();
      throw e;
    }
    children.add(cq, "CQ");
    memory.add(cq, MemoryComponent.CQ, HcaFootprint.cq(cqe));
    if (ch != null) {
      ch.cqs.add(cq, "CQ");
    }
    return cq;
  }

  /**
   * Creates a CQ; providers may override to subclass {@link SoftCompletionQueue}.
   *
   * @param cqe validated capacity
   * @param channel validated channel or null
   * @return the CQ
   */
  protected SoftCompletionQueue newCq(int cqe, SoftCompletionChannel channel) {
    return new SoftCompletionQueue(this, cqe, channel);
  }

  void pdClosed(AbstractProtectionDomain pd) {
    pds.release();
    children.remove(pd);
    memory.release(pd);
  }

  void cqClosed(SoftCompletionQueue cq) {
    cqs.release();
    children.remove(cq);
  }

  /** @return the next SRQ number */
  protected int nextSrqNum() {
    return nextSrq.getAndIncrement();
  }

  /**
   * The device-wide memory key table (lkeys and rkeys of every MR of this context).
   *
   * @return the table
   */
  public KeyTable<SoftMemoryRegion> memoryKeys() {
    return memoryKeys;
  }

  /**
   * The context's live memory regions by address (providers add and remove them), where inline
   * data given by address is looked up ({@link InlineData}).
   *
   * @return the directory
   */
  public RegionDirectory regions() {
    return regions;
  }

  /**
   * Queues an async event for {@link #pollAsyncEvent}. Safe from any thread.
   *
   * @param event the event
   */
  public void raiseAsyncEvent(AsyncEvent event) {
    asyncEvents.offer(event);
  }

  @Override
  public Optional<AsyncEvent> pollAsyncEvent(Duration timeout) {
    ensureOpen();
    try {
      long nanos = timeout.toNanos();
      return Optional.ofNullable(nanos <= 0 ? asyncEvents.poll() : asyncEvents.poll(nanos, TimeUnit.NANOSECONDS));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  @Override
  public abstract Job job();

  @Override
  public abstract long nowNanos();

  @Override
  public final void chargeNanos(long nanos) {
    if (nanos < 0) {
      throw new VerbsException(Errno.EINVAL, "chargeNanos: nanos=" + nanos + " must not be negative");
    }
    ensureOpen();
    chargeClock(nanos);
  }

  /**
   * Moves a modelled clock forward by the application's work; does nothing on a wall clock.
   *
   * @param nanos not negative, already checked
   */
  protected abstract void chargeClock(long nanos);

  @Override
  public final void advanceClockTo(long nanos) {
    ensureOpen();
    advanceClock(nanos);
  }

  @Override
  public final void postAt(long nanos) {
    ensureOpen();
    if (modelledTime()) {
      stampPosts(nanos);
    }
  }

  /**
   * Modelled time: the application's time for the WRs posted from now on ({@link #postAt}). This
   * default moves the clock there at once; a provider whose device starts each WR at its own post
   * time records it ({@link #recordPostTime}) and reads it into its WQEs ({@link #postTimeNanos}).
   *
   * @param nanos a time on the context's clock
   */
  protected void stampPosts(long nanos) {
    advanceClock(nanos);
  }

  /** @param nanos the post time WRs posted from now on carry */
  protected final void recordPostTime(long nanos) {
    postTime = nanos;
  }

  /**
   * @return the post time a WR posted now carries ({@link Long#MIN_VALUE}: none, the device takes it
   *     at its own time)
   */
  public final long postTimeNanos() {
    return postTime;
  }

  /**
   * Moves a modelled clock forward to {@code nanos} if it is behind; does nothing on a wall clock.
   * This fallback charges the difference, which a concurrent advance of the clock can make too
   * much: providers whose clock can advance to a time in one step override it.
   *
   * @param nanos a time on the context's clock
   */
  protected void advanceClock(long nanos) {
    long now = nowNanos();
    if (modelledTime() && nanos > now) {
      chargeClock(nanos - now);
    }
  }

  @Override
  public final synchronized void close() {
    if (closed) {
      return;
    }
    children.checkEmpty("context " + device.name());
    RuntimeException stepFailure = null;
    try {
      beforeClose();
    } catch (RuntimeException e) {
      stepFailure = e;
    }
    closed = true;
    closeDevice();
    memory.release(this);
    if (stepFailure != null) {
      throw stepFailure;
    }
  }

  /**
   * Called once by {@link #close()} after its EBUSY check, before the device closes: a provider
   * whose job runs in modelled-time steps leaves them here ({@link
   * io.github.verbs4j.verbs.Job#leaveModelledSteps}), answering what peers still send until every
   * process is done. The device closes even if this throws; {@code close} then throws it.
   */
  protected void beforeClose() {}

  /** Releases the device's resources (engine threads, fabric node). Called once. */
  protected abstract void closeDevice();
}
