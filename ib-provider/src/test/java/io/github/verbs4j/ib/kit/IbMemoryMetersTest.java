package io.github.verbs4j.ib.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.DeviceOptions;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.SharedReceiveQueue;
import io.github.verbs4j.verbs.SrqAttr;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.spi.AbstractContext;
import io.github.verbs4j.verbs.spi.MemoryAccount;
import io.github.verbs4j.verbs.spi.MemoryComponent;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The ib provider publishes its context's {@link MemoryAccount} as {@code verbs4j.memory.bytes
 * {component}}, and what the simulated objects hold in the JVM, measured as the bytes the creating
 * thread allocates per object, against the modelled HCA + driver footprint and against the
 * provider's own Java-side estimate ({@code verbs4j.ib.memory.bytes}).
 */
class IbMemoryMetersTest {
  private static final int OBJECTS = 64;

  private static Context open(MeterRegistry registry) {
    return Verbs.open(IbKit.LOCAL.config(0, 1, "mem-" + UUID.randomUUID()),
        DeviceOptions.none().with(MeterRegistry.class, registry));
  }

  @Test
  void theMeterFamilyFollowsTheAccountAndIsRemovedWithTheContext() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Context ctx = open(registry);
    MemoryAccount account = ((AbstractContext) ctx).memoryAccount();
    try (ProtectionDomain pd = ctx.allocPd(); CompletionQueue cq = ctx.createCq(64, null, 0)) {
      QueuePair qp = pd.createQp(QpInitAttr.builder(QpType.RC).cq(cq)
          .cap(QpCap.builder().maxSendWr(32).maxRecvWr(32).build()).build());
      for (MemoryComponent c : MemoryComponent.values()) {
        Gauge g = registry.find(MemoryAccount.METER).tag("component", c.tag()).gauge();
        assertNotNull(g, "gauge for component " + c.tag());
        assertEquals(account.bytes(c), g.value(), c.tag());
      }
      assertTrue(registry.find(MemoryAccount.METER).tag("component", "qp").gauge().value() > 0);
      qp.close();
      assertEquals(0, registry.find(MemoryAccount.METER).tag("component", "qp").gauge().value());
    } finally {
      ctx.close();
    }
    assertNull(registry.find(MemoryAccount.METER).gauge(), "the meters go with the context");
  }

  private static long allocatedByThisThread() {
    return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
  }

  private static double ibEstimate(SimpleMeterRegistry registry, String object) {
    return registry.find("verbs4j.ib.memory.bytes").tag("object", object).gauges().stream()
        .mapToDouble(Gauge::value).sum();
  }

  /** Bytes per object: JVM allocation by the creating thread, modelled HCA + driver, ib's estimate. */
  private record PerObject(String what, double jvm, double modelled, double ibEstimate) {
    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%-34s JVM %,10.0f   modelled HCA+driver %,10.0f   ib estimate %,10.0f",
          what, jvm, modelled, ibEstimate);
    }
  }

  private static <T extends AutoCloseable> PerObject measure(String what, SimpleMeterRegistry registry,
      MemoryAccount account, MemoryComponent component, String ibObject, Supplier<T> create) throws Exception {
    List<T> made = new ArrayList<>();
    made.add(create.get()); // class loading and first-use allocations stay out of the count
    long modelledBefore = account.bytes(component);
    double ibBefore = ibEstimate(registry, ibObject);
    long before = allocatedByThisThread();
    for (int i = 0; i < OBJECTS; i++) {
      made.add(create.get());
    }
    long allocated = allocatedByThisThread() - before;
    PerObject p = new PerObject(what, (double) allocated / OBJECTS,
        (double) (account.bytes(component) - modelledBefore) / OBJECTS,
        (ibEstimate(registry, ibObject) - ibBefore) / OBJECTS);
    for (T t : made) {
      t.close();
    }
    return p;
  }

  /**
   * The JVM holds a simulated queue as an array of reusable WQE objects, the HCA as a ring of
   * fixed-size WQEs: the two are measured and modelled here side by side (docs/memory-at-scale.md).
   * The provider's estimate must be within a factor of two of what the JVM really allocates.
   */
  @Test
  void jvmBytesPerObjectAgainstModelAndEstimate() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Context ctx = open(registry);
    MemoryAccount account = ((AbstractContext) ctx).memoryAccount();
    List<PerObject> rows = new ArrayList<>();
    try (ProtectionDomain pd = ctx.allocPd(); CompletionQueue cq = ctx.createCq(4096, null, 0)) {
      QpCap seed003 = QpCap.builder().maxSendWr(256).maxRecvWr(272).maxSendSge(1).maxRecvSge(1).build();
      rows.add(measure("RC QP, SQ 256 / RQ 272 (seed 003)", registry, account, MemoryComponent.QP, "qp",
          () -> pd.createQp(QpInitAttr.builder(QpType.RC).cq(cq).cap(seed003).build())));
      rows.add(measure("CQ, 4,096 CQEs", registry, account, MemoryComponent.CQ, "cq",
          () -> ctx.createCq(4096, null, 0)));
      rows.add(measure("SRQ, 2,048 WRs x 1 SGE", registry, account, MemoryComponent.SRQ, "srq",
          () -> pd.createSrq(SrqAttr.of(2048, 1))));
    } finally {
      ctx.close();
    }
    rows.forEach(System.out::println);
    for (PerObject p : rows) {
      assertTrue(p.modelled() > 0 && p.jvm() > 0, p.toString());
      double ratio = p.ibEstimate() / p.jvm();
      assertTrue(ratio > 0.5 && ratio < 2, "ib's estimate is off by more than 2x: " + p);
    }
  }
}
