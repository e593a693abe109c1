package io.github.verbs4j.verbs.conformance;

import static io.github.verbs4j.verbs.conformance.KitAssertions.assertEinvalNaming;
import static io.github.verbs4j.verbs.conformance.KitAssertions.assertErrWc;
import static io.github.verbs4j.verbs.conformance.KitAssertions.assertErrno;
import static io.github.verbs4j.verbs.conformance.KitAssertions.assertWc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AtomicCap;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.Sge;
import io.github.verbs4j.verbs.VerbsException;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Details where libibverbs and the kernel accept what verbs4j once refused, found by porting
 * rdma-core's own tests ({@code tests/} of linux-rdma/rdma-core): ZERO_BASED and HUGETLB regions
 * ({@code ibv_reg_mr(3)}), FLUSH_GLOBAL and FLUSH_PERSISTENT in a QP's access flags (rdma-core's
 * {@code create_qp_ex}), the privileged Q_Key ({@code test_create_ud_qp_with_privileged_qkey}) and
 * the controlled Q_Key of a UD send WR (IBTA 10.2.5). Subclass it and return your {@link
 * KitEnvironment}; see {@link AbstractConformance}.
 */
public abstract class LibibverbsDetailsConformance extends AbstractConformance {
  /** A privileged Q_Key: the most significant bit set (the kernel's IB_QP_SET_QKEY). */
  static final int PRIVILEGED_QKEY = 0x80000000;
  /** The setting under which the process counts as privileged (CAP_NET_RAW). */
  static final Map<String, String> PRIVILEGED = Map.of(VerbsConfig.PRIVILEGED.name(), "true");
  /** The access rdma-core's {@code create_qp_ex} gives an RC QP (tests/utils.py). */
  static final Set<Access> QP_EX_ACCESS = EnumSet.of(Access.REMOTE_WRITE, Access.REMOTE_READ, Access.REMOTE_ATOMIC,
      Access.FLUSH_GLOBAL, Access.FLUSH_PERSISTENT);

  private static final QpCap SMALL = QpCap.builder().maxSendWr(16).maxRecvWr(16).build();
  private static final Set<Access> ZERO_BASED_ACCESS = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE,
      Access.REMOTE_READ, Access.REMOTE_ATOMIC, Access.ZERO_BASED);
  /** The target's zero-based region. */
  private static final int TARGET = 32768;
  /** The initiator's region: sources of the WRITEs and destinations of the READs and atomics. */
  private static final int INITIATOR = 65536;
  private static final int SMALL_WRITE = 100;
  private static final int BIG_READ_AT = 8192;
  private static final int BIG_READ = 16384;
  private static final int BIG_READ_DST = 36864;
  private static final int SMALL_READ_AT = 30001;
  private static final int SMALL_READ = 77;
  private static final int SMALL_READ_DST = 54000;
  private static final int ADD_AT = 8;
  private static final int SWAP_AT = 48;
  private static final int RESULTS = 55000;

  private static ByteBuffer le(MemoryRegion mr) {
    return mr.buffer().order(ByteOrder.LITTLE_ENDIAN);
  }

  // ================================================================ ZERO_BASED and HUGETLB regions

  /**
   * ibv_reg_mr(3) ZERO_BASED: the region keeps its address (libibverbs sets {@code mr->addr} to the
   * registered address) while its keys take offsets: iova 0, and an SGE built from it holds the offset.
   */
  @Test
  public void zeroBasedRegionKeepsItsAddressAndItsKeysTakeOffsets() {
    oneSided(p -> {
      ByteBuffer buf = ByteBuffer.allocateDirect(4096);
      try (ProtectionDomain pd = p.ctx().allocPd();
          MemoryRegion plain = pd.registerMemory(buf, EnumSet.of(Access.LOCAL_WRITE));
          MemoryRegion zero = pd.registerMemory(buf, EnumSet.of(Access.LOCAL_WRITE, Access.ZERO_BASED));
          MemoryRegion allocated = pd.allocateMemory(4096, ZERO_BASED_ACCESS)) {
        assertEquals(plain.address(), zero.address(), "mr->addr is the registered address, ZERO_BASED or not");
        assertEquals(plain.address(), plain.iova(), "a region without ZERO_BASED is reached at its address");
        assertEquals(0, zero.iova(), "a ZERO_BASED region is reached at offsets from 0");
        assertEquals(4096, zero.length());
        assertTrue(zero.access().contains(Access.ZERO_BASED), zero::toString);
        assertEquals(16, new Sge().set(zero, 16, 8).addr(), "an SGE into a ZERO_BASED region holds the offset");
        assertEquals(0, allocated.iova());
        assertNotEquals(0, allocated.address(), "allocated memory has an address even when ZERO_BASED");
      }
    });
  }

  /** ibv_reg_mr(3) HUGETLB is a promise about the pages behind the region: accepted, and kept in its access. */
  @Test
  public void hugetlbIsAcceptedAsAHint() {
    oneSided(p -> {
      Set<Access> huge = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.HUGETLB);
      Set<Access> both = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.HUGETLB, Access.ZERO_BASED);
      try (ProtectionDomain pd = p.ctx().allocPd();
          MemoryRegion registered = pd.registerMemory(ByteBuffer.allocateDirect(8192), huge);
          MemoryRegion allocated = pd.allocateMemory(8192, both)) {
        assertEquals(huge, registered.access());
        assertEquals(registered.address(), registered.iova(), "HUGETLB alone does not make the region zero-based");
        assertEquals(both, allocated.access());
        assertEquals(0, allocated.iova());
      }
    });
  }

  /**
   * verbs4j: a ZERO_BASED region with REMOTE_ATOMIC must start 8-byte aligned in memory (atomics
   * target aligned offsets); any other ZERO_BASED region may start anywhere.
   */
  @Test
  public void zeroBasedAtomicRegionOnAnUnalignedBufferFailsWithEinval() {
    oneSided(p -> {
      ByteBuffer unaligned = ByteBuffer.allocateDirect(4097).position(1).slice();
      try (ProtectionDomain pd = p.ctx().allocPd()) {
        assertEinvalNaming("ZERO_BASED", () -> pd.registerMemory(unaligned, ZERO_BASED_ACCESS));
        Set<Access> noAtomics = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.ZERO_BASED);
        try (MemoryRegion mr = pd.registerMemory(unaligned, noAtomics)) {
          assertEquals(0, mr.iova());
        }
      }
    });
  }

  /**
   * ZERO_BASED regions on both ends, connected with rdma-core's QP-ex access flags (FLUSH_*
   * included): a WRITE of the target's whole length at remote offset 0 lands at its first byte; a
   * WRITE ending at its last byte, READs and FETCH_ADD / CMP_SWP at offsets work, local SGEs
   * being offsets too; a WRITE at offset = length completes with REM_ACCESS_ERR.
   */
  @Test
  public void zeroBasedRegionIsReachedByRemoteOffsetsFromZero() {
    twoSided("zeroBasedRegionIsReachedByRemoteOffsetsFromZeroBody");
  }

  /**
   * Body of {@link #zeroBasedRegionIsReachedByRemoteOffsetsFromZero()}.
   *
   * @param p the rank
   */
  public void zeroBasedRegionIsReachedByRemoteOffsetsFromZeroBody(Peer p) {
    Assumptions.assumeTrue(p.ctx().queryDevice().atomicCap() != AtomicCap.NONE, "the device reports atomic_cap NONE");
    boolean initiator = p.rank() == 0;
    Set<Access> qpAccess = EnumSet.of(Access.LOCAL_WRITE);
    qpAccess.addAll(QP_EX_ACCESS);
    RcResources.Options o = RcResources.options().msgSize(SMALL_WRITE).mrSize(initiator ? INITIATOR : TARGET)
        .mrAccess(ZERO_BASED_ACCESS).qpAccess(qpAccess);
    try (RcResources r = new RcResources(p, o).connect()) {
      assertEquals(0, r.remote().addr(), "the peer's ZERO_BASED region is reached from address 0");
      assertEquals(qpAccess, Access.fromMask(r.qp().query().qpAccessFlags()), "query() returns the QP's access");
      ByteBuffer mem = r.buffer();
      int rkey = r.remote().rkey();
      if (initiator) {
        Patterns.fill(mem, 0, TARGET, 11);
        Patterns.fill(mem, TARGET, SMALL_WRITE, 12);
      }
      p.barrier("filled");
      if (initiator) {
        r.qp().postSend(rdma(r, 1, WrOpcode.RDMA_WRITE, 0, TARGET, 0, rkey));
        assertWc(p.pollOne(r.cq()), 1, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, r.qp().qpNum());
        r.qp().postSend(rdma(r, 2, WrOpcode.RDMA_WRITE, TARGET, SMALL_WRITE, TARGET - SMALL_WRITE, rkey));
        assertWc(p.pollOne(r.cq()), 2, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, r.qp().qpNum());
      }
      p.barrier("written");
      if (!initiator) {
        Patterns.verify("WRITE at remote offset 0", mem, 0, TARGET - SMALL_WRITE, 11);
        Patterns.verify("WRITE ending at the last byte", mem, TARGET - SMALL_WRITE, SMALL_WRITE, 12);
        Patterns.fill(mem, BIG_READ_AT, BIG_READ, 21);
        Patterns.fill(mem, SMALL_READ_AT, SMALL_READ, 22);
        le(r.mr()).putLong(ADD_AT, 1000).putLong(SWAP_AT, 7);
      }
      p.barrier("target-set");
      if (initiator) {
        r.qp().postSend(rdma(r, 3, WrOpcode.RDMA_READ, BIG_READ_DST, BIG_READ, BIG_READ_AT, rkey));
        assertWc(p.pollOne(r.cq()), 3, WcStatus.SUCCESS, WcOpcode.RDMA_READ, r.qp().qpNum());
        Patterns.verify("READ at remote offset " + BIG_READ_AT, mem, BIG_READ_DST, BIG_READ, 21);
        r.qp().postSend(rdma(r, 4, WrOpcode.RDMA_READ, SMALL_READ_DST, SMALL_READ, SMALL_READ_AT, rkey));
        assertWc(p.pollOne(r.cq()), 4, WcStatus.SUCCESS, WcOpcode.RDMA_READ, r.qp().qpNum());
        Patterns.verify("READ at remote offset " + SMALL_READ_AT, mem, SMALL_READ_DST, SMALL_READ, 22);
        r.qp().postSend(new SendWr().wrId(5).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
            .sge(r.mr(), RESULTS, 8).atomic(ADD_AT, rkey, 5, 0));
        assertWc(p.pollOne(r.cq()), 5, WcStatus.SUCCESS, WcOpcode.FETCH_ADD, r.qp().qpNum());
        assertEquals(1000, le(r.mr()).getLong(RESULTS), "FETCH_ADD at remote offset 8 returns the old value");
        r.qp().postSend(new SendWr().wrId(6).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).signaled(true)
            .sge(r.mr(), RESULTS + 8, 8).atomic(SWAP_AT, rkey, 7, 9));
        assertWc(p.pollOne(r.cq()), 6, WcStatus.SUCCESS, WcOpcode.COMP_SWAP, r.qp().qpNum());
        assertEquals(7, le(r.mr()).getLong(RESULTS + 8), "CMP_SWP at remote offset 48 returns the old value");
      }
      p.barrier("atomics");
      if (!initiator) {
        assertEquals(1005, le(r.mr()).getLong(ADD_AT), "FETCH_ADD added at offset 8");
        assertEquals(9, le(r.mr()).getLong(SWAP_AT), "CMP_SWP swapped at offset 48");
      }
      p.barrier("checked");
      if (initiator) {
        r.qp().postSend(rdma(r, 7, WrOpcode.RDMA_WRITE, 0, 1, TARGET, rkey));
        assertErrWc(p.pollOne(r.cq()), 7, WcStatus.REM_ACCESS_ERR, r.qp().qpNum());
      }
      p.barrier("done");
    }
  }

  private static SendWr rdma(RcResources r, long wrId, WrOpcode op, int localOffset, int len, long remoteOffset,
      int rkey) {
    return new SendWr().wrId(wrId).opcode(op).signaled(true).sge(r.mr(), localOffset, len).rdma(remoteOffset, rkey);
  }

  // ================================================================ QP access flags

  /**
   * rdma-core's {@code create_qp_ex} moves RC QPs to INIT with FLUSH_GLOBAL and FLUSH_PERSISTENT
   * (rxe's RXE_ACCESS_SUPPORTED_QP has them): accepted at RESET→INIT and INIT→INIT on RC and UC,
   * returned by query(); bits no QP may carry (ZERO_BASED, HUGETLB) fail with EINVAL, nothing changed.
   */
  @Test
  public void flushAccessFlagsAreAcceptedAtResetToInitAndReturnedByQuery() {
    oneSided(p -> {
      try (ProtectionDomain pd = p.ctx().allocPd(); CompletionQueue cq = p.ctx().createCq(16, null, 0);
          QueuePair rc = createQp(pd, cq, QpType.RC, SMALL); QueuePair uc = createQp(pd, cq, QpType.UC, SMALL)) {
        int qpEx = Access.mask(QP_EX_ACCESS);
        rc.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(QP_EX_ACCESS));
        assertEquals(QpState.INIT, rc.state());
        assertEquals(qpEx, rc.query().qpAccessFlags(), "query() returns the access set at RESET→INIT");
        Set<Access> persistent = EnumSet.of(Access.REMOTE_WRITE, Access.FLUSH_PERSISTENT);
        rc.modify(new QpAttr().qpState(QpState.INIT).qpAccessFlags(persistent));
        assertEquals(Access.mask(persistent), rc.query().qpAccessFlags(), "INIT→INIT replaces the access");
        Set<Access> global = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.FLUSH_GLOBAL);
        uc.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(global));
        assertEquals(Access.mask(global), uc.query().qpAccessFlags());
        for (Access bad : EnumSet.of(Access.ZERO_BASED, Access.HUGETLB)) {
          VerbsException e = assertEinvalNaming("qp_access_flags",
              () -> rc.modify(new QpAttr().qpState(QpState.INIT).qpAccessFlags(qpEx | bad.value())));
          assertTrue(e.getMessage().contains(Integer.toHexString(bad.value())), e::getMessage);
        }
        assertEquals(Access.mask(persistent), rc.query().qpAccessFlags(), "a refused modify changes nothing");
      }
    });
  }

  // ================================================================ Q_Keys

  /**
   * Without {@code verbs.privileged} (the default) a privileged Q_Key fails with EPERM naming the
   * setting, at RESET→INIT and at RTS→RTS; nothing changes.
   */
  @Test
  public void privilegedQkeyFailsWithEpermWithoutPrivilege() {
    oneSided(p -> {
      try (ProtectionDomain pd = p.ctx().allocPd(); CompletionQueue cq = p.ctx().createCq(16, null, 0);
          QueuePair qp = createQp(pd, cq, QpType.UD, SMALL)) {
        VerbsException e = assertErrno(Errno.EPERM,
            () -> qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(PRIVILEGED_QKEY)));
        assertTrue(e.getMessage().contains("verbs.privileged"), e::getMessage);
        assertEquals(QpState.RESET, qp.state());
        toInit(qp);
        qp.modify(new QpAttr().qpState(QpState.RTR));
        toRts(qp);
        assertErrno(Errno.EPERM, () -> qp.modify(new QpAttr().qpState(QpState.RTS).qkey(PRIVILEGED_QKEY | 1)));
        assertEquals(UdResources.QKEY, qp.query().qkey(), "a refused modify keeps the Q_Key");
        assertEquals(QpState.RTS, qp.state());
      }
    });
  }

  /**
   * rdma-core's {@code test_create_ud_qp_with_privileged_qkey}, run privileged ({@code
   * verbs.privileged=true}, CAP_NET_RAW for libibverbs): a UD QP takes Q_Key 0x80000000 at
   * RESET→INIT and another privileged one at RTS→RTS; query() returns each.
   */
  @Test
  public void privilegedQkeyIsAcceptedAndQueriedBackWithPrivilege() {
    oneSided(PRIVILEGED, p -> {
      try (ProtectionDomain pd = p.ctx().allocPd(); CompletionQueue cq = p.ctx().createCq(16, null, 0);
          QueuePair qp = createQp(pd, cq, QpType.UD, SMALL)) {
        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(PRIVILEGED_QKEY));
        assertEquals(PRIVILEGED_QKEY, qp.query().qkey());
        qp.modify(new QpAttr().qpState(QpState.RTR));
        toRts(qp);
        qp.modify(new QpAttr().qpState(QpState.RTS).qkey(0x80010000));
        assertEquals(0x80010000, qp.query().qkey());
        assertEquals(QpState.RTS, qp.state());
      }
    });
  }

  /**
   * Privileged on both ranks, UD QPs with Q_Key 0x80000000 exchange traffic: a WR with remote_qkey
   * 0x80000000 is delivered, and so is one with 0x80001234, because the MSB makes the QP's own
   * Q_Key go out; a WR with the unprivileged 0x11111111 is dropped at the receiver.
   */
  @Test
  public void privilegedQkeyTrafficFlowsWithPrivilege() {
    twoSided("privilegedQkeyTrafficFlowsWithPrivilegeBody", PRIVILEGED);
  }

  /**
   * Body of {@link #privilegedQkeyTrafficFlowsWithPrivilege()}.
   *
   * @param p the rank
   */
  public void privilegedQkeyTrafficFlowsWithPrivilegeBody(Peer p) {
    controlledQkeyTraffic(p, PRIVILEGED_QKEY, new int[] {PRIVILEGED_QKEY, 0x80001234}, UdResources.QKEY);
  }

  /**
   * IBTA 10.2.5: a UD send WR whose remote_qkey has the most significant bit set sends the QP's own
   * Q_Key. Unprivileged: the receiver (Q_Key 0x11111111, as the sender's QP) gets the messages sent
   * with remote_qkey 0x80000000 and 0xFFFFFFFF, and not one sent with 0x22222222.
   */
  @Test
  public void udSendWithTheQkeyMsbSetSendsTheQpsOwnQkey() {
    twoSided("udSendWithTheQkeyMsbSetSendsTheQpsOwnQkeyBody");
  }

  /**
   * Body of {@link #udSendWithTheQkeyMsbSetSendsTheQpsOwnQkey()}.
   *
   * @param p the rank
   */
  public void udSendWithTheQkeyMsbSetSendsTheQpsOwnQkeyBody(Peer p) {
    controlledQkeyTraffic(p, UdResources.QKEY, new int[] {PRIVILEGED_QKEY, 0xFFFFFFFF}, 0x22222222);
  }

  /**
   * Rank 0 sends {@code wrong} (dropped at rank 1), then one message per {@code controlled}
   * remote_qkey (each delivered with the QPs' own Q_Key {@code qpQkey}).
   */
  static void controlledQkeyTraffic(Peer p, int qpQkey, int[] controlled, int wrong) {
    try (UdResources u = new UdResources(p, UdResources.options().msgSize(64).qkey(qpQkey)).exchangeInfo()) {
      assertEquals(qpQkey, u.qp().query().qkey());
      if (p.rank() == 1) {
        u.postRecv(0);
      } else {
        Patterns.fill(u.sendMr().buffer(), 0, 64, 31);
      }
      p.barrier("recv-posted");
      if (p.rank() == 0) {
        u.qp().postSend(u.send(1, 64).ud(u.ah(), u.remoteQpn(), wrong));
        assertWc(p.pollOne(u.cq()), 1, WcStatus.SUCCESS, WcOpcode.SEND, u.qp().qpNum());
      } else {
        p.expectNoCompletion(u.cq(), Peer.QUIET);
      }
      p.barrier("wrong-key-dropped");
      for (int i = 0; i < controlled.length; i++) {
        if (p.rank() == 1 && i > 0) {
          u.postRecv(i);
        }
        p.barrier("recv-" + i);
        if (p.rank() == 0) {
          u.qp().postSend(u.send(10 + i, 64).ud(u.ah(), u.remoteQpn(), controlled[i]));
          assertWc(p.pollOne(u.cq()), 10 + i, WcStatus.SUCCESS, WcOpcode.SEND, u.qp().qpNum());
        } else {
          WorkCompletion wc = p.pollOne(u.cq());
          assertWc(wc, i, WcStatus.SUCCESS, WcOpcode.RECV, u.qp().qpNum());
          String sent = "remote_qkey=0x" + Integer.toHexString(controlled[i]);
          assertEquals(64 + UdResources.GRH_SIZE, wc.byteLen(), sent);
          Patterns.verify("UD payload", u.recvMr().buffer(), UdResources.GRH_SIZE, 64, 31);
        }
        p.barrier("delivered-" + i);
      }
    }
  }
}
