package io.github.verbs4j.ib;

import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.LinkStateListener;
import io.github.verbs4j.ib.engine.IbCounters;
import io.github.verbs4j.ib.engine.IbDevice;
import io.github.verbs4j.ib.engine.IbParams;
import io.github.verbs4j.ib.engine.MemoryDirectory;
import io.github.verbs4j.ib.engine.PacketPort;
import io.github.verbs4j.verbs.Device;
import io.github.verbs4j.verbs.DeviceAttr;
import io.github.verbs4j.verbs.Job;
import io.github.verbs4j.verbs.LinkLayer;
import io.github.verbs4j.verbs.Mtu;
import io.github.verbs4j.verbs.PortAttr;
import io.github.verbs4j.verbs.PortCounter;
import io.github.verbs4j.verbs.config.VerbsConfig;
import io.github.verbs4j.verbs.spi.AbstractContext;
import io.github.verbs4j.verbs.spi.AbstractProtectionDomain;
import io.github.verbs4j.verbs.spi.SoftCompletionChannel;
import io.github.verbs4j.verbs.spi.SoftCompletionQueue;
import io.github.verbs4j.verbs.spi.SoftMemoryRegion;
import io.github.verbs4j.verbs.spi.SoftPort;
import java.util.function.BooleanSupplier;

/**
 * An open {@code sim_ib0}: the {@link IbDevice} engine on a {@link PacketPort}, its meters, its
 * job, and the device-wide memory directory (keys and addresses of every region).
 *
 * <p>Thread-safe as {@link AbstractContext}. Closing it (after every child) stops the engine and
 * leaves the fabric.
 */
public final class IbContext extends AbstractContext implements MemoryDirectory {
  private final IbParams params;
  private final PacketPort port;
  private final FabricNode node;
  private final IbDevice engine;
  private final IbMetrics metrics;
  private final Job job;
  private final SoftPort portState;
  private final LinkStateListener linkListener;

  IbContext(Device device, VerbsConfig config, DeviceAttr attr, IbParams params, PacketPort port, FabricNode node,
      IbMetrics metricsOrNull, io.micrometer.core.instrument.MeterRegistry registry, Job job) {
    super(device, config, attr);
    this.params = params;
    this.port = port;
    this.node = node;
    this.engine = new IbDevice(port, params);
    this.metrics = metricsOrNull != null ? metricsOrNull
        : new IbMetrics(registry, engine.counters(), device.name(), port.localLid());
    metrics.memory(memoryAccount());
    this.job = job;
    engine.start();
    // No event at open: libibverbs raises port events only when a port changes state. The port
    // follows the node's own links (fault injection cuts them); a report racing the listener's
    // registration is caught by the second read.
    this.portState = new SoftPort(this, 1, node == null || node.links().isUp());
    this.linkListener = portState::linkChanged;
    if (node != null) {
      node.links().addListener(linkListener);
      portState.linkChanged(node.links().isUp());
    }
  }

  /** @return the HCA engine */
  public IbDevice engine() {
    return engine;
  }

  /** @return the engine's counters */
  public IbCounters counters() {
    return engine.counters();
  }

  /** @return the fabric node, or null when the context runs on another port */
  public FabricNode fabricNode() {
    return node;
  }

  /** @return the parameters */
  public IbParams params() {
    return params;
  }

  IbMetrics metrics() {
    return metrics;
  }

  /** On a crowded host a thread waits for its completion event in the fabric's I/O, running the engine. */
  @Override
  protected boolean awaitProgress(BooleanSupplier ready, long timeoutNanos) {
    return engine().awaitProgress(ready, timeoutNanos);
  }

  @Override
  protected void channelEventQueued() {
    engine().wakeAwaiting();
  }

  /** Caller threading: a thread about to block hands the fabric's I/O to the fabric's own thread. */
  @Override
  protected void beforeBlocking() {
    engine().flushHeldAcks(); // no answer comes from a thread that sleeps
    if (engine().callsDrive()) {
      engine().port().yieldProgress();
    }
  }

  @Override
  protected PortAttr portAttr(int portNum) {
    Mtu mtu = Mtu.ofBytes(params.portMtu);
    return PortAttr.builder()
        .state(portState.state())
        .maxMtu(mtu)
        .activeMtu(mtu)
        .lid(port.localLid())
        .smLid(1)
        .lmc(0)
        .gidTblLen(1)
        .pkeyTblLen(1)
        .qkeyViolCntr(engine.counters().get(IbCounters.Counter.DROP_QKEY_VIOLATION))
        .linkLayer(LinkLayer.INFINIBAND)
        .activeSpeed(32)
        .activeWidth(2)
        .build();
  }

  @Override
  protected long portCounter(int port, PortCounter counter) {
    IbCounters c = engine.counters();
    return switch (counter) {
      case RCVD_RNR_ERR -> c.get(IbCounters.Counter.RNR_NAKS_RECEIVED);
      case SEND_RNR_ERR -> c.get(IbCounters.Counter.RNR_NAKS_SENT);
      case RCVD_SEQ_ERR -> c.get(IbCounters.Counter.SEQ_NAKS_RECEIVED);
      case OUT_OF_SEQ_REQUEST -> c.get(IbCounters.Counter.SEQ_NAKS_SENT)
          + c.get(IbCounters.Counter.DROP_OUT_OF_SEQUENCE) + c.get(IbCounters.Counter.DROP_BEHIND_RNR)
          + c.get(IbCounters.Counter.DROP_BEHIND_STOP);
      case DUPLICATE_REQUEST -> c.get(IbCounters.Counter.DUPLICATE_REQUESTS);
      // a timer that fired late because this host was descheduled is retried without spending
      // retry_cnt (LateTimeout): not an ACK timeout of the modelled HCA, counted on its own meter
      case LOCAL_ACK_TIMEOUT_ERR -> c.get(IbCounters.Counter.TIMEOUTS) - c.get(IbCounters.Counter.LATE_TIMEOUTS);
      case COMPLETER_RETRY_ERR -> c.get(IbCounters.Counter.TRANSPORT_RETRIES);
      case RETRY_EXCEEDED_ERR -> c.get(IbCounters.Counter.RETRY_EXCEEDED);
      case RETRY_RNR_EXCEEDED_ERR -> c.get(IbCounters.Counter.RNR_RETRY_EXCEEDED);
    };
  }

  @Override
  protected AbstractProtectionDomain newPd(int handle) {
    return new IbProtectionDomain(this, handle);
  }

  @Override
  protected SoftCompletionQueue newCq(int cqe, SoftCompletionChannel channel) {
    return new IbCompletionQueue(this, cqe, channel);
  }

  @Override
  public Job job() {
    return job;
  }

  @Override
  protected void beforeClose() {
    if (job != null) { // a context without a fabric (tests) has no job
      job.leaveModelledSteps(); // no-op unless the job runs in modelled-time steps
    }
  }

  @Override
  public long nowNanos() {
    return port.nowNanos();
  }

  @Override
  public boolean modelledTime() {
    return port.modelledTime();
  }

  @Override
  protected void advanceClock(long nanos) {
    if (node != null) {
      node.clock().advanceTo(nanos);
    } else {
      super.advanceClock(nanos);
    }
  }

  /** The engine starts each send WQE at its own post time (SendWqe.postTime). */
  @Override
  protected void stampPosts(long nanos) {
    recordPostTime(nanos);
  }

  @Override
  protected void chargeClock(long nanos) {
    port.charge(nanos);
  }

  @Override
  protected void closeDevice() {
    if (node != null) {
      node.links().removeListener(linkListener);
    }
    RuntimeException failure = null;
    try {
      engine.close();
    } catch (RuntimeException e) {
      failure = e;
    }
    try {
      port.close();
    } catch (RuntimeException e) {
      failure = addSuppressed(failure, e);
    }
    if (node != null) {
      try {
        node.close();
      } catch (RuntimeException e) {
        failure = addSuppressed(failure, e);
      }
    }
    metrics.close();
    if (failure != null) {
      throw failure;
    }
  }

  private static RuntimeException addSuppressed(RuntimeException first, RuntimeException next) {
    if (first == null) {
      return next;
    }
    first.addSuppressed(next);
    return first;
  }

  void regionOpened(SoftMemoryRegion mr) {
    regions().add(mr);
  }

  void regionClosed(SoftMemoryRegion mr) {
    regions().remove(mr);
  }

  @Override
  public SoftMemoryRegion byLkey(int lkey) {
    return memoryKeys().byLkey(lkey);
  }

  @Override
  public SoftMemoryRegion byRkey(int rkey) {
    return memoryKeys().byRkey(rkey);
  }
}
