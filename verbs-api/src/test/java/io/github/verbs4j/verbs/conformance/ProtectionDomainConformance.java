package io.github.verbs4j.verbs.conformance;

import static io.github.verbs4j.verbs.conformance.KitAssertions.assertErrno;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AddressHandle;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.VerbsException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Conformance of protection domains and address handles ({@code ibv_alloc_pd}, {@code
 * ibv_create_ah}): §6 scenarios 2 and 14 (with CONFORMANCE.md's adjustment: an InfiniBand link
 * layer, so an AH without GRH is valid), and the destruction order of §4.6. Subclass it and
 * return your {@link KitEnvironment}; see {@link AbstractConformance}.
 */
public abstract class ProtectionDomainConformance extends AbstractConformance {

  /** Scenario 2: allocate and free 200 PDs; closing twice is a no-op; a closed PD is unusable. */
  @Test
  public void allocatingAndFreeing200PdsSucceedsAndCloseIsIdempotent() {
    oneSided(p -> {
      int n = Math.min(200, p.ctx().queryDevice().maxPd());
      List<ProtectionDomain> pds = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        pds.add(p.ctx().allocPd());
      }
      for (ProtectionDomain pd : pds) {
        pd.close();
        pd.close();
      }
      VerbsException e = assertErrno(Errno.EBADF, () -> pds.get(0).allocateMemory(64, EnumSet.of(Access.LOCAL_WRITE)));
      assertTrue(e.getMessage().contains("closed"), e.getMessage());
    });
  }

  /** §4.6: dealloc_pd fails with EBUSY while an MR, a QP or an AH uses the PD, naming it. */
  @Test
  public void closingAPdWithLiveChildrenFailsWithEbusyNamingThem() {
    oneSided(p -> {
      try (ProtectionDomain pd = p.ctx().allocPd(); CompletionQueue cq = p.ctx().createCq(16, null, 0)) {
        MemoryRegion mr = pd.allocateMemory(64, EnumSet.of(Access.LOCAL_WRITE));
        VerbsException e = assertErrno(Errno.EBUSY, pd::close);
        assertTrue(e.getMessage().contains("MR"), "the message names the open MR: " + e.getMessage());
        mr.close();
        QueuePair qp = createQp(pd, cq, QpType.RC, QpCap.builder().maxSendWr(1).maxRecvWr(1).build());
        assertErrno(Errno.EBUSY, pd::close);
        assertErrno(Errno.EBUSY, cq::close);
        qp.close();
        AddressHandle ah = pd.createAh(AhAttr.lid(p.ctx().queryPort(1).lid()));
        assertErrno(Errno.EBUSY, pd::close);
        ah.close();
      }
    });
  }

  /** §4.6: close_device fails with EBUSY while a PD is open. */
  @Test
  public void closingTheContextWithAnOpenPdFailsWithEbusy() {
    oneSided(p -> {
      try (ProtectionDomain pd = p.ctx().allocPd()) {
        assertErrno(Errno.EBUSY, p.ctx()::close);
        assertSame(p.ctx(), pd.context());
      }
    });
  }

  /** Scenario 14 (adjusted): on the InfiniBand link layer an AH without GRH (LID routing) is valid. */
  @Test
  public void addressHandleWithoutGrhIsValidOnTheInfinibandLinkLayer() {
    oneSided(p -> {
      int lid = p.ctx().queryPort(1).lid();
      try (ProtectionDomain pd = p.ctx().allocPd()) {
        AddressHandle ah = pd.createAh(AhAttr.lid(lid));
        assertEquals(lid, ah.attr().dlid());
        assertEquals(false, ah.attr().isGlobal());
        assertSame(pd, ah.pd());
        ah.close();
        ah.close();
      }
    });
  }

  /** Scenario 14: an AH with a GRH is created and destroyed. */
  @Test
  public void addressHandleWithGrhIsCreatedAndDestroyed() {
    oneSided(p -> {
      int lid = p.ctx().queryPort(1).lid();
      byte[] gid = new byte[16];
      gid[0] = (byte) 0xfe;
      gid[1] = (byte) 0x80;
      gid[15] = (byte) lid;
      try (ProtectionDomain pd = p.ctx().allocPd()) {
        AddressHandle ah = pd.createAh(AhAttr.builder().dlid(lid).grh(gid, 0).build());
        assertTrue(ah.attr().isGlobal());
        ah.close();
      }
    });
  }

  /** §4.7: an AH on a port beyond phys_port_cnt fails with EINVAL. */
  @Test
  public void addressHandleOnANonexistentPortFailsWithEinval() {
    oneSided(p -> {
      int port = p.ctx().queryDevice().physPortCnt() + 1;
      try (ProtectionDomain pd = p.ctx().allocPd()) {
        KitAssertions.assertEinvalNaming("port", () -> pd.createAh(AhAttr.builder().dlid(1).portNum(port).build()));
      }
    });
  }

  /** §4.7: a global AH whose sgid_index is past the port's GID table fails with EINVAL naming it (rdma_create_ah). */
  @Test
  public void addressHandleWithAnSgidIndexPastTheGidTableFailsWithEinval() {
    oneSided(p -> {
      int gids = p.ctx().queryPort(1).gidTblLen();
      try (ProtectionDomain pd = p.ctx().allocPd()) {
        KitAssertions.assertEinvalNaming("sgid_index",
            () -> pd.createAh(AhAttr.builder().dlid(1).grh(new byte[16], gids).build()));
        KitAssertions.assertEinvalNaming("sgid_index",
            () -> pd.createAh(AhAttr.builder().dlid(1).grh(new byte[16], -1).build()));
      }
    });
  }
}
