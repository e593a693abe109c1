package io.github.verbs4j.tca.kit;

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
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.spi.AbstractContext;
import io.github.verbs4j.verbs.spi.MemoryAccount;
import io.github.verbs4j.verbs.spi.MemoryComponent;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The tca provider publishes its context's {@link MemoryAccount} as {@code verbs4j.memory.bytes{component}}. */
class TcaMemoryMetersTest {
  @Test
  void theMeterFamilyFollowsTheAccountAndIsRemovedWithTheContext() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Context ctx = Verbs.open(TcaKit.LOCAL.config(0, 1, "mem-" + UUID.randomUUID()),
        DeviceOptions.none().with(MeterRegistry.class, registry));
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
}
