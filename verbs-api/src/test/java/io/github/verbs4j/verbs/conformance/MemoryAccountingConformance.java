package io.github.verbs4j.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AddressHandle;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.Capability;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.SharedReceiveQueue;
import io.github.verbs4j.verbs.SrqAttr;
import io.github.verbs4j.verbs.spi.AbstractContext;
import io.github.verbs4j.verbs.spi.HcaFootprint;
import io.github.verbs4j.verbs.spi.MemoryAccount;
import io.github.verbs4j.verbs.spi.MemoryComponent;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The context's {@link MemoryAccount}: every verbs object counts its modelled HCA + driver
 * footprint ({@link HcaFootprint}, from the capacities the provider granted) under its component
 * while it is open, and nothing once it is closed. Providers publish the account as the {@code
 * verbs4j.memory.bytes{component}} meters. Subclass it and return your {@link KitEnvironment}; see
 * {@link AbstractConformance}.
 */
public abstract class MemoryAccountingConformance extends AbstractConformance {

  private static MemoryAccount account(Context ctx) {
    assertTrue(ctx instanceof AbstractContext, "the context extends the SPI's AbstractContext");
    return ((AbstractContext) ctx).memoryAccount();
  }

  private static Map<MemoryComponent, Long> snapshot(MemoryAccount a) {
    Map<MemoryComponent, Long> m = new EnumMap<>(MemoryComponent.class);
    for (MemoryComponent c : MemoryComponent.values()) {
      m.put(c, a.bytes(c));
    }
    return m;
  }

  private static void assertGrew(Map<MemoryComponent, Long> before, MemoryAccount a, MemoryComponent c, long bytes) {
    assertEquals(before.get(c) + bytes, a.bytes(c), c + " bytes");
  }

  @Test
  public void theContextItselfIsCounted() {
    oneSided(p -> assertTrue(account(p.ctx()).bytes(MemoryComponent.CONTEXT) >= HcaFootprint.context(),
        "context bytes " + account(p.ctx()).bytes(MemoryComponent.CONTEXT)));
  }

  @Test
  public void everyObjectCountsItsFootprintWhileOpen() {
    oneSided(p -> {
      MemoryAccount a = account(p.ctx());
      Map<MemoryComponent, Long> before = snapshot(a);
      ProtectionDomain pd = p.ctx().allocPd();
      assertGrew(before, a, MemoryComponent.PD, HcaFootprint.pd());
      CompletionQueue cq = p.ctx().createCq(100, null, 0);
      assertGrew(before, a, MemoryComponent.CQ, HcaFootprint.cq(100));
      MemoryRegion mr = pd.allocateMemory(4096, EnumSet.of(Access.LOCAL_WRITE));
      assertGrew(before, a, MemoryComponent.MR, HcaFootprint.mr());
      QueuePair rc = createQp(pd, cq, QpType.RC,
          QpCap.builder().maxSendWr(256).maxRecvWr(272).maxSendSge(1).maxRecvSge(1).build());
      long rcBytes = HcaFootprint.qp(QpType.RC, rc.cap(), false);
      assertGrew(before, a, MemoryComponent.QP, rcBytes);
      SharedReceiveQueue srq = pd.createSrq(SrqAttr.of(64, 2));
      assertGrew(before, a, MemoryComponent.SRQ, HcaFootprint.srq(64, 2));
      QueuePair ud = pd.createQp(QpInitAttr.builder(QpType.UD).cq(cq).srq(srq)
          .cap(QpCap.builder().maxSendWr(16).maxSendSge(1).maxRecvWr(0).maxRecvSge(0).build()).build());
      assertGrew(before, a, MemoryComponent.QP, rcBytes + HcaFootprint.qp(QpType.UD, ud.cap(), true));
      AddressHandle ah = pd.createAh(AhAttr.lid(1));
      assertGrew(before, a, MemoryComponent.AH, HcaFootprint.ah());

      ah.close();
      ud.close();
      assertGrew(before, a, MemoryComponent.QP, rcBytes);
      srq.close();
      rc.close();
      mr.close();
      cq.close();
      pd.close();
      assertEquals(before, snapshot(a), "closing every object gives every byte back");
    });
  }

  @Test
  public void resizingACqRecountsIt() {
    oneSided(p -> {
      MemoryAccount a = account(p.ctx());
      long before = a.bytes(MemoryComponent.CQ);
      try (CompletionQueue cq = p.ctx().createCq(16, null, 0)) {
        cq.resize(4000);
        assertEquals(before + HcaFootprint.cq(4000), a.bytes(MemoryComponent.CQ));
      }
      assertEquals(before, a.bytes(MemoryComponent.CQ));
    });
  }

  @Test
  public void dcInitiatorsAndTargetsAreCountedApart() {
    oneSided(p -> {
      assumeCapability(p, Capability.DC);
      MemoryAccount a = account(p.ctx());
      Map<MemoryComponent, Long> before = snapshot(a);
      try (ProtectionDomain pd = p.ctx().allocPd(); CompletionQueue cq = p.ctx().createCq(64, null, 0);
          SharedReceiveQueue srq = pd.createSrq(SrqAttr.of(64, 1))) {
        QueuePair dci = pd.createQp(QpInitAttr.builder(QpType.DCI).sendCq(cq)
            .cap(QpCap.builder().maxSendWr(100).maxRecvWr(0).maxSendSge(1).maxRecvSge(0).build()).build());
        QueuePair dct = pd.createQp(QpInitAttr.builder(QpType.DCT).recvCq(cq).srq(srq)
            .cap(QpCap.builder().maxRecvWr(0).maxRecvSge(0).maxSendSge(0).build()).dcKey(0xbadc0deL).build());
        assertGrew(before, a, MemoryComponent.DCI, HcaFootprint.qp(QpType.DCI, dci.cap(), false));
        assertGrew(before, a, MemoryComponent.DCT, HcaFootprint.qp(QpType.DCT, dct.cap(), true));
        assertGrew(before, a, MemoryComponent.QP, 0);
        dct.close();
        dci.close();
      }
      assertEquals(before, snapshot(a));
    });
  }
}
