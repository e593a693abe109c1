package io.github.verbs4j.verbs.spi;

import io.github.verbs4j.verbs.Device;
import io.github.verbs4j.verbs.DeviceAttr;
import io.github.verbs4j.verbs.Job;
import io.github.verbs4j.verbs.NodeType;
import io.github.verbs4j.verbs.PortAttr;
import io.github.verbs4j.verbs.PortCounter;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.TransportType;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.util.Map;
import java.util.Set;

/**
 * A provider-free context for unit tests of the SPI bases: no QPs, no fabric, a fixed clock. Only
 * what {@link SoftCompletionQueue}, {@link SoftSharedReceiveQueue} and {@link
 * AbstractProtectionDomain} need.
 */
final class TestContext extends AbstractContext {
  private long now = 1;

  TestContext(DeviceAttr attr) {
    super(new Device("test0", "test", NodeType.CA, TransportType.IB, 1), VerbsConfig.of(Map.of()), attr);
  }

  TestContext() {
    this(DeviceAttr.builder().build());
  }

  @Override
  protected PortAttr portAttr(int port) {
    return PortAttr.builder().lid(1).build();
  }

  @Override
  protected long portCounter(int port, PortCounter counter) {
    return 0; // nothing is ever sent or received
  }

  @Override
  protected AbstractProtectionDomain newPd(int handle) {
    return new TestPd(this, handle);
  }

  @Override
  public Job job() {
    throw new UnsupportedOperationException("no job in unit tests");
  }

  @Override
  public long nowNanos() {
    return now++;
  }

  @Override
  public boolean modelledTime() {
    return true;
  }

  @Override
  protected void chargeClock(long nanos) {
    now += nanos;
  }

  @Override
  protected void closeDevice() {}

  /** A PD that creates SRQs, MRs and AHs but no QPs. */
  static final class TestPd extends AbstractProtectionDomain {
    TestPd(AbstractContext context, int handle) {
      super(context, handle);
    }

    @Override
    protected Set<QpType> supportedQpTypes() {
      return Set.of();
    }

    @Override
    protected AbstractQueuePair newQp(QpInitAttr attr) {
      throw new AssertionError("unreachable: no QP types are supported");
    }
  }
}
