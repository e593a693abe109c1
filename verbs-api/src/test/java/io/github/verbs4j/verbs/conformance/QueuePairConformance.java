package io.github.verbs4j.verbs.conformance;

import static io.github.verbs4j.verbs.conformance.KitAssertions.assertEinvalNaming;
import static io.github.verbs4j.verbs.conformance.KitAssertions.assertErrno;
import static io.github.verbs4j.verbs.conformance.KitAssertions.assertWc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AddressHandle;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.DeviceAttr;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.Mtu;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.Sge;
import io.github.verbs4j.verbs.VerbsException;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Conformance of queue pairs: creation, the state machine with its attribute masks (§2, §6
 * scenarios 5–12), "nothing is modified" on a failed modify (§2.4 rule 5), and post-time errors
 * (scenarios 31–37, §3.1, §2.6). Subclass it and return your {@link KitEnvironment}; see {@link
 * AbstractConformance}.
 */
public abstract class QueuePairConformance extends AbstractConformance {
  private static final QpCap SMALL = QpCap.builder().maxSendWr(16).maxRecvWr(16).build();

  /** One PD, one CQ and a 64 KiB region for one-sided QP scenarios. */
  private static final class Objects implements AutoCloseable {
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final MemoryRegion mr;

    Objects(Peer p) {
      pd = p.ctx().allocPd();
      cq = p.ctx().createCq(64, null, 0);
      mr = pd.allocateMemory(64 * 1024, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ));
    }

    @Override
    public void close() {
      mr.close();
      cq.close();
      pd.close();
    }
  }

  private static void assertCapAtLeast(QpCap requested, QpCap actual, String what) {
    assertTrue(actual.maxSendWr() >= requested.maxSendWr(), what + " max_send_wr " + actual);
    assertTrue(actual.maxRecvWr() >= requested.maxRecvWr(), what + " max_recv_wr " + actual);
    assertTrue(actual.maxSendSge() >= requested.maxSendSge(), what + " max_send_sge " + actual);
    assertTrue(actual.maxRecvSge() >= requested.maxRecvSge(), what + " max_recv_sge " + actual);
    assertTrue(actual.maxInlineData() >= requested.maxInlineData(), what + " max_inline_data " + actual);
  }

  /** Scenario 5: new RC, UC and UD QPs are in RESET; query reports RESET and caps ≥ requested. */
  @Test
  public void newQpsStartInResetWithCapsAtLeastRequested() {
    oneSided(p -> {
      DeviceAttr d = p.ctx().queryDevice();
      QpCap cap = QpCap.builder().maxSendWr(10).maxRecvWr(10).maxSendSge(1).maxRecvSge(1)
          .maxInlineData(Math.min(16, d.maxInlineData())).build();
      try (Objects o = new Objects(p)) {
        for (QpType t : List.of(QpType.RC, QpType.UC, QpType.UD)) {
          try (QueuePair qp = createQp(o.pd, o.cq, t, cap)) {
            assertEquals(t, qp.type());
            assertEquals(QpState.RESET, qp.state(), t + " after create");
            QpAttr q = qp.query();
            assertEquals(QpState.RESET, q.qpState(), t + " query");
            assertCapAtLeast(cap, q.cap(), t + " query");
            assertCapAtLeast(cap, qp.cap(), t + " cap()");
            assertTrue(qp.qpNum() > 0 && qp.qpNum() <= 0xFFFFFF, "24-bit QPN " + qp.qpNum());
          }
        }
      }
    });
  }

  /** Scenario 6: exactly the required masks of §2.3 bring RC and UC to INIT and UD to RTS. */
  @Test
  public void requiredMasksBringRcAndUcToInitAndUdToRts() {
    oneSided(p -> {
      try (Objects o = new Objects(p)) {
        for (QpType t : List.of(QpType.RC, QpType.UC)) {
          try (QueuePair qp = createQp(o.pd, o.cq, t, SMALL)) {
            toInit(qp);
            assertEquals(QpState.INIT, qp.query().qpState(), t.name());
          }
        }
        try (QueuePair ud = createQp(o.pd, o.cq, QpType.UD, SMALL)) {
          toInit(ud);
          ud.modify(new QpAttr().qpState(QpState.RTR));
          toRts(ud);
          assertEquals(QpState.RTS, ud.query().qpState());
          assertEquals(QpState.RTS, ud.state());
        }
      }
    });
  }

  /** Scenario 7: capacities beyond the device limits (or 0xffffffff) fail with EINVAL naming the field. */
  @Test
  public void creatingQpsBeyondTheDeviceLimitsFailsWithEinval() {
    oneSided(p -> {
      DeviceAttr d = p.ctx().queryDevice();
      try (Objects o = new Objects(p)) {
        QpCap[] bad = {
            QpCap.builder().maxSendWr(0xffffffff).maxRecvWr(1).build(),
            QpCap.builder().maxSendWr(d.maxQpWr() + 1).maxRecvWr(1).build(),
            QpCap.builder().maxSendWr(1).maxRecvWr(0xffffffff).build(),
            QpCap.builder().maxSendWr(1).maxRecvWr(1).maxSendSge(Math.max(0xffff, d.maxSge() + 1)).build(),
            QpCap.builder().maxSendWr(1).maxRecvWr(1).maxRecvSge(Math.max(0xffff, d.maxSge() + 1)).build()};
        String[] field = {"max_send_wr", "max_send_wr", "max_recv_wr", "max_send_sge", "max_recv_sge"};
        for (int i = 0; i < bad.length; i++) {
          QpCap cap = bad[i];
          assertEinvalNaming(field[i], () -> createQp(o.pd, o.cq, QpType.UD, cap));
        }
      }
    });
  }

  /** Scenario 8: UD INIT with qkey 0x123 and RTS with sq_psn 0x45 are queried back; RESET works. */
  @Test
  public void udQkeyAndSqPsnAreQueriedBackAndResetWorks() {
    oneSided(p -> {
      try (Objects o = new Objects(p); QueuePair qp = createQp(o.pd, o.cq, QpType.UD, SMALL)) {
        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(0x123));
        assertEquals(0x123, qp.query().qkey());
        qp.modify(new QpAttr().qpState(QpState.RTR));
        qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0x45));
        assertEquals(0x45, qp.query().sqPsn());
        assertEquals(QpState.RTS, qp.query().qpState());
        qp.modify(new QpAttr().qpState(QpState.RESET));
        assertEquals(QpState.RESET, qp.query().qpState());
      }
    });
  }

  /**
   * Scenario 9: a privileged Q_Key (MSB set) fails with EPERM (processes are unprivileged unless
   * verbs.privileged is set); nothing changes.
   */
  @Test
  public void privilegedQkeyIsRejectedWithEperm() {
    oneSided(p -> {
      try (Objects o = new Objects(p); QueuePair qp = createQp(o.pd, o.cq, QpType.UD, SMALL)) {
        VerbsException e = assertErrno(Errno.EPERM,
            () -> qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(0x80000000)));
        assertTrue(e.getMessage().contains("qkey"), e.getMessage());
        assertEquals(QpState.RESET, qp.state());
      }
    });
  }

  /** Scenario 10: max_rd_atomic = max_dest_rd_atomic = 12 are queried back ≥ 12, or rejected with EINVAL by a smaller device. */
  @Test
  public void rcRdAtomicOf12IsQueriedBackOrRejectedWithEinval() {
    oneSided(p -> {
      DeviceAttr d = p.ctx().queryDevice();
      try (Objects o = new Objects(p); QueuePair qp = createQp(o.pd, o.cq, QpType.RC, SMALL)) {
        toInit(qp);
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(qp.qpNum()).rqPsn(0)
            .ahAttr(AhAttr.lid(p.ctx().queryPort(1).lid())).minRnrTimer(12).maxDestRdAtomic(12);
        if (d.maxQpRdAtom() >= 12) {
          qp.modify(rtr);
        } else {
          assertEinvalNaming("max_dest_rd_atomic", () -> qp.modify(rtr));
          qp.modify(rtr.maxDestRdAtomic(d.maxQpRdAtom()));
        }
        QpAttr rts = new QpAttr().qpState(QpState.RTS).sqPsn(0).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(12);
        if (d.maxQpInitRdAtom() >= 12) {
          qp.modify(rts);
        } else {
          assertEinvalNaming("max_rd_atomic", () -> qp.modify(rts));
          qp.modify(rts.maxRdAtomic(d.maxQpInitRdAtom()));
        }
        QpAttr q = qp.query();
        assertTrue(q.maxDestRdAtomic() >= Math.min(12, d.maxQpRdAtom()), q::toString);
        assertTrue(q.maxRdAtomic() >= Math.min(12, d.maxQpInitRdAtom()), q::toString);
      }
    });
  }

  /** Scenario 11: RC RESET→INIT without ACCESS_FLAGS fails with EINVAL naming it; the QP stays in RESET. */
  @Test
  public void rcInitWithoutAccessFlagsFailsAndTheQpStaysInReset() {
    oneSided(p -> {
      try (Objects o = new Objects(p); QueuePair qp = createQp(o.pd, o.cq, QpType.RC, SMALL)) {
        assertEinvalNaming("ACCESS_FLAGS",
            () -> qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1)));
        assertEquals(QpState.RESET, qp.state());
        assertEquals(QpState.RESET, qp.query().qpState());
      }
    });
  }

  /** Scenario 11: RC INIT→RTR without MIN_RNR_TIMER fails with EINVAL naming it. */
  @Test
  public void rcRtrWithoutMinRnrTimerFailsWithEinval() {
    oneSided(p -> {
      try (Objects o = new Objects(p); QueuePair qp = createQp(o.pd, o.cq, QpType.RC, SMALL)) {
        toInit(qp);
        assertEinvalNaming("MIN_RNR_TIMER", () -> qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024)
            .destQpNum(qp.qpNum()).rqPsn(0).maxDestRdAtomic(1).ahAttr(AhAttr.lid(p.ctx().queryPort(1).lid()))));
        assertEquals(QpState.INIT, qp.state());
      }
    });
  }

  /** Scenario 11: UC INIT→RTR with MAX_DEST_RD_ATOMIC (not allowed for UC) fails with EINVAL naming it. */
  @Test
  public void ucRtrWithMaxDestRdAtomicFailsWithEinval() {
    oneSided(p -> {
      try (Objects o = new Objects(p); QueuePair qp = createQp(o.pd, o.cq, QpType.UC, SMALL)) {
        toInit(qp);
        assertEinvalNaming("MAX_DEST_RD_ATOMIC", () -> qp.modify(new QpAttr().qpState(QpState.RTR)
            .pathMtu(Mtu.MTU_1024).destQpNum(qp.qpNum()).rqPsn(0).maxDestRdAtomic(1)
            .ahAttr(AhAttr.lid(p.ctx().queryPort(1).lid()))));
        assertEquals(QpState.INIT, qp.state());
      }
    });
  }

  /** Scenario 12: RESET→RTR, RESET→ERR, RTR→RTR and INIT→RTS fail with EINVAL; the state is kept. */
  @Test
  public void illegalTransitionsFailWithEinvalAndKeepTheState() {
    oneSided(p -> {
      int lid = p.ctx().queryPort(1).lid();
      try (Objects o = new Objects(p); QueuePair qp = createQp(o.pd, o.cq, QpType.RC, SMALL)) {
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(qp.qpNum()).rqPsn(0)
            .maxDestRdAtomic(1).minRnrTimer(12).ahAttr(AhAttr.lid(lid));
        assertEinvalNaming("RESET", () -> qp.modify(rtr));
        assertEquals(QpState.RESET, qp.state());
        assertEinvalNaming("ERR", () -> qp.modify(new QpAttr().qpState(QpState.ERR)));
        assertEquals(QpState.RESET, qp.state());
        toInit(qp);
        QpAttr rts = new QpAttr().qpState(QpState.RTS).sqPsn(0).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1);
        assertEinvalNaming("RTS", () -> qp.modify(rts));
        assertEquals(QpState.INIT, qp.state());
        qp.modify(rtr);
        assertEinvalNaming("RTR", () -> qp.modify(new QpAttr().qpState(QpState.RTR)));
        assertEquals(QpState.RTR, qp.state());
      }
    });
  }

  /** Scenario 12: INIT→INIT (changing PORT) and ERR→ERR succeed. */
  @Test
  public void initToInitAndErrToErrSucceed() {
    oneSided(p -> {
      try (Objects o = new Objects(p); QueuePair qp = createQp(o.pd, o.cq, QpType.RC, SMALL)) {
        toInit(qp);
        qp.modify(new QpAttr().qpState(QpState.INIT).portNum(1));
        assertEquals(QpState.INIT, qp.state());
        qp.modify(new QpAttr().qpState(QpState.ERR));
        qp.modify(new QpAttr().qpState(QpState.ERR));
        assertEquals(QpState.ERR, qp.query().qpState());
        qp.modify(new QpAttr().qpState(QpState.RESET));
        assertEquals(QpState.RESET, qp.state());
      }
    });
  }

  /** Scenario 12 and §2.4 rule 1: CUR_STATE in the mask while in INIT fails with EINVAL. */
  @Test
  public void curStateInTheMaskWhileInInitFailsWithEinval() {
    oneSided(p -> {
      try (Objects o = new Objects(p); QueuePair qp = createQp(o.pd, o.cq, QpType.RC, SMALL)) {
        toInit(qp);
        assertEinvalNaming("cur_qp_state",
            () -> qp.modify(new QpAttr().qpState(QpState.INIT).curQpState(QpState.INIT).portNum(1)));
        assertEquals(QpState.INIT, qp.state());
      }
    });
  }

  private static String snapshot(QpAttr a) {
    return "state=" + a.qpState() + " access=" + a.qpAccessFlags() + " port=" + a.portNum() + " pkey=" + a.pkeyIndex()
        + " qkey=" + a.qkey() + " mtu=" + a.pathMtu() + " destQpn=" + a.destQpNum() + " rqPsn=" + a.rqPsn() + " sqPsn="
        + a.sqPsn() + " minRnr=" + a.minRnrTimer() + " rd=" + a.maxRdAtomic() + "/" + a.maxDestRdAtomic() + " timeout="
        + a.timeout() + " retry=" + a.retryCnt() + "/" + a.rnrRetry() + " av=" + (a.ahAttr() == null ? null
        : a.ahAttr().dlid());
  }

  /** §2.4 rule 5: a failed modify (mask or value error) modifies nothing, state included. */
  @Test
  public void aFailedModifyChangesNothing() {
    oneSided(p -> {
      DeviceAttr d = p.ctx().queryDevice();
      int lid = p.ctx().queryPort(1).lid();
      try (Objects o = new Objects(p); QueuePair qp = createQp(o.pd, o.cq, QpType.RC, SMALL)) {
        toInit(qp);
        String before = snapshot(qp.query());
        // mask error: MIN_RNR_TIMER missing, every other field set to a new value
        assertErrno(Errno.EINVAL, () -> qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_512)
            .destQpNum(0x123).rqPsn(0x456).maxDestRdAtomic(1).ahAttr(AhAttr.lid(lid))
            .qpAccessFlags(EnumSet.of(Access.REMOTE_READ))));
        assertEquals(before, snapshot(qp.query()), "after a mask error");
        // value error: max_dest_rd_atomic beyond the device limit, everything else valid
        assertErrno(Errno.EINVAL, () -> qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_512)
            .destQpNum(0x123).rqPsn(0x456).minRnrTimer(3).maxDestRdAtomic(d.maxQpRdAtom() + 1)
            .ahAttr(AhAttr.lid(lid)).qpAccessFlags(EnumSet.of(Access.REMOTE_READ))));
        assertEquals(before, snapshot(qp.query()), "after a value error");
        // value error in an attribute-only change: port beyond phys_port_cnt with new access flags
        assertErrno(Errno.EINVAL, () -> qp.modify(new QpAttr().qpState(QpState.INIT).portNum(d.physPortCnt() + 1)
            .qpAccessFlags(EnumSet.of(Access.REMOTE_READ))));
        assertEquals(before, snapshot(qp.query()), "after a bad port");
        assertEquals(QpState.INIT, qp.state());
      }
    });
  }

  /** Scenario 31: a UD QP moved from RTS to RESET rejects post_recv and post_send with EINVAL. */
  @Test
  public void udQpInResetRejectsPostRecvAndPostSendWithEinval() {
    oneSided(p -> {
      try (Objects o = new Objects(p); QueuePair qp = createQp(o.pd, o.cq, QpType.UD, SMALL);
          AddressHandle ah = o.pd.createAh(AhAttr.lid(p.ctx().queryPort(1).lid()))) {
        toInit(qp);
        qp.modify(new QpAttr().qpState(QpState.RTR));
        toRts(qp);
        qp.modify(new QpAttr().qpState(QpState.RESET));
        VerbsException r = assertErrno(Errno.EINVAL, () -> qp.postRecv(new RecvWr().wrId(1).sge(o.mr, 0, 1064)));
        assertEquals(0, r.badWrIndex());
        VerbsException s = assertErrno(Errno.EINVAL, () -> qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND)
            .sge(o.mr, 0, 64).signaled(true).ud(ah, qp.qpNum(), UdResources.QKEY)));
        assertEquals(0, s.badWrIndex());
        p.expectNoCompletion(o.cq, Peer.QUIET);
      }
    });
  }

  /** Scenario 32: post_send on an RC QP in INIT or RTR fails with EINVAL; post_recv in INIT is accepted. */
  @Test
  public void rcPostSendInInitOrRtrFailsWithEinval() {
    oneSided(p -> {
      try (Objects o = new Objects(p); QueuePair qp = createQp(o.pd, o.cq, QpType.RC, SMALL)) {
        SendWr wr = new SendWr().wrId(1).opcode(WrOpcode.SEND).sge(o.mr, 0, 64).signaled(true);
        toInit(qp);
        VerbsException e = assertErrno(Errno.EINVAL, () -> qp.postSend(wr));
        assertEquals(0, e.badWrIndex());
        assertTrue(e.getMessage().contains("INIT"), "the message names the state: " + e.getMessage());
        qp.postRecv(new RecvWr().wrId(2).sge(o.mr, 1024, 1024));
        toRtrLoopback(p, qp);
        assertEinvalNaming("RTR", () -> qp.postSend(wr));
        p.expectNoCompletion(o.cq, Peer.QUIET);
      }
    });
  }

  /** Scenario 32: a receive posted in INIT is consumed by a message arriving after RTR. */
  @Test
  public void rcRecvPostedInInitIsConsumedAfterRtr() {
    twoSided("rcRecvPostedInInitIsConsumedAfterRtrBody");
  }

  /**
   * Body of {@link #rcRecvPostedInInitIsConsumedAfterRtr()}.
   *
   * @param p the rank
   */
  public void rcRecvPostedInInitIsConsumedAfterRtrBody(Peer p) {
    try (RcResources r = new RcResources(p, RcResources.options())) {
      r.exchangeInfo().toInit();
      if (p.rank() == 1) {
        r.postRecv(7);
      }
      r.toRtr().toRts();
      p.barrier("connected");
      if (p.rank() == 0) {
        Traffic.fill(r.buffer(), 0, r.msgSize(), Traffic.CLIENT_FILL);
        r.qp().postSend(r.send(1, r.msgSize()));
        assertWc(p.pollOne(r.cq()), 1, WcStatus.SUCCESS, WcOpcode.SEND, r.qp().qpNum());
      } else {
        assertWc(p.pollOne(r.cq()), 7, WcStatus.SUCCESS, WcOpcode.RECV, r.qp().qpNum());
        KitAssertions.assertFilled(r.buffer(), r.recvOffset(), r.msgSize(), Traffic.CLIENT_FILL);
      }
    }
  }

  /** Scenario 33: max_recv_wr + 1 receives without traffic: the last fails with ENOMEM (bad_wr = it). */
  @Test
  public void postingMaxRecvWrPlusOneFailsWithEnomem() {
    oneSided(p -> {
      try (Objects o = new Objects(p)) {
        try (QueuePair qp = createQp(o.pd, o.cq, QpType.RC, SMALL)) {
          toInit(qp);
          int n = qp.cap().maxRecvWr();
          assertTrue(n >= 16 && n <= 1024, "max_recv_wr=" + n);
          for (int i = 0; i < n; i++) {
            qp.postRecv(new RecvWr().wrId(i).sge(o.mr, 0, 64));
          }
          VerbsException e = assertErrno(Errno.ENOMEM, () -> qp.postRecv(new RecvWr().wrId(n).sge(o.mr, 0, 64)));
          assertEquals(0, e.badWrIndex());
        }
        try (QueuePair qp = createQp(o.pd, o.cq, QpType.RC, SMALL)) {
          toInit(qp);
          int n = qp.cap().maxRecvWr();
          RecvWr head = null;
          for (int i = n; i >= 0; i--) {
            head = new RecvWr().wrId(i).sge(o.mr, 0, 64).next(head);
          }
          RecvWr chain = head;
          VerbsException e = assertErrno(Errno.ENOMEM, () -> qp.postRecv(chain));
          assertEquals(n, e.badWrIndex(), "bad_wr is the first WR not posted");
        }
      }
    });
  }

  /** Scenario 34: a receive with num_sge = max_recv_sge + 1 fails with EINVAL naming num_sge. */
  @Test
  public void recvWrWithMoreSgesThanMaxRecvSgeFailsWithEinval() {
    oneSided(p -> {
      try (Objects o = new Objects(p); QueuePair qp = createQp(o.pd, o.cq, QpType.RC, SMALL)) {
        toInit(qp);
        int n = qp.cap().maxRecvSge() + 1;
        Sge[] sges = new Sge[n];
        for (int i = 0; i < n; i++) {
          sges[i] = new Sge().set(o.mr, 64L * i, 64);
        }
        VerbsException e = assertEinvalNaming("num_sge", () -> qp.postRecv(new RecvWr().wrId(1).sgList(sges)));
        assertEquals(0, e.badWrIndex());
      }
    });
  }

  /** Scenario 35: a send chain [ok, too many SGEs, ok] posts the first, names the second (bad_wr = 1), drops the third. */
  @Test
  public void sendChainStopsAtTheWrWithTooManySgesAndNamesIt() {
    twoSided("sendChainStopsAtTheWrWithTooManySgesAndNamesItBody");
  }

  /**
   * Body of {@link #sendChainStopsAtTheWrWithTooManySgesAndNamesIt()}.
   *
   * @param p the rank
   */
  public void sendChainStopsAtTheWrWithTooManySgesAndNamesItBody(Peer p) {
    try (RcResources r = new RcResources(p, RcResources.options().msgSize(256)).connect()) {
      if (p.rank() == 1) {
        r.postRecv(0);
        r.postRecv(1);
      }
      p.barrier("recvs-posted");
      if (p.rank() == 0) {
        int n = r.qp().cap().maxSendSge() + 1;
        Sge[] sges = new Sge[n];
        for (int i = 0; i < n; i++) {
          sges[i] = new Sge().set(r.mr(), i, 1);
        }
        SendWr third = r.send(3, 64);
        SendWr second = new SendWr().wrId(2).opcode(WrOpcode.SEND).signaled(true).sgList(sges).next(third);
        SendWr first = r.send(1, 64).next(second);
        VerbsException e = assertEinvalNaming("num_sge", () -> r.qp().postSend(first));
        assertEquals(1, e.badWrIndex(), e.getMessage());
        assertWc(p.pollOne(r.cq()), 1, WcStatus.SUCCESS, WcOpcode.SEND, r.qp().qpNum());
        p.expectNoCompletion(r.cq(), Peer.QUIET);
      } else {
        assertWc(p.pollOne(r.cq()), 0, WcStatus.SUCCESS, WcOpcode.RECV, r.qp().qpNum());
        p.expectNoCompletion(r.cq(), Peer.QUIET);
      }
      p.barrier("checked");
    }
  }

  /** Scenario 36: IBV_SEND_INLINE with max_inline_data + 1 bytes fails with EINVAL naming the limit. */
  @Test
  public void inlineDataBeyondMaxInlineDataFailsWithEinval() {
    oneSided(p -> {
      int devMax = p.ctx().queryDevice().maxInlineData();
      Assumptions.assumeTrue(devMax > 0, "the device supports no inline data");
      QpCap cap = QpCap.builder().maxSendWr(16).maxRecvWr(16).maxInlineData(Math.min(64, devMax)).build();
      try (Objects o = new Objects(p); QueuePair qp = createQp(o.pd, o.cq, QpType.RC, cap)) {
        toInit(qp);
        toRtrLoopback(p, qp);
        toRts(qp);
        int max = qp.cap().maxInlineData();
        VerbsException e = assertEinvalNaming("max_inline_data", () -> qp.postSend(new SendWr().wrId(1)
            .opcode(WrOpcode.SEND).sge(o.mr, 0, max + 1).inline(true).signaled(true)));
        assertEquals(0, e.badWrIndex());
        p.expectNoCompletion(o.cq, Peer.QUIET);
      }
    });
  }

  /** Scenario 36: an inline SEND of exactly max_inline_data bytes succeeds with an invalid lkey (inline ignores it). */
  @Test
  public void inlineSendOfMaxInlineDataIgnoresTheLkey() {
    twoSided("inlineSendOfMaxInlineDataIgnoresTheLkeyBody");
  }

  /**
   * Body of {@link #inlineSendOfMaxInlineDataIgnoresTheLkey()}.
   *
   * @param p the rank
   */
  public void inlineSendOfMaxInlineDataIgnoresTheLkeyBody(Peer p) {
    int devMax = p.ctx().queryDevice().maxInlineData();
    Assumptions.assumeTrue(devMax > 0, "the device supports no inline data");
    QpCap cap = QpCap.builder().maxSendWr(16).maxRecvWr(16).maxInlineData(Math.min(64, devMax)).build();
    try (RcResources r = new RcResources(p, RcResources.options().cap(cap).msgSize(1024)).connect()) {
      int max = (int) p.exchange("inline", r.qp().cap().maxInlineData())[0];
      if (p.rank() == 1) {
        r.postRecv(0);
      }
      p.barrier("recv-posted");
      if (p.rank() == 0) {
        Patterns.fill(r.buffer(), 0, max, 36);
        SendWr wr = new SendWr().wrId(1).opcode(WrOpcode.SEND).inline(true).signaled(true)
            .sgList(new Sge(r.mr().address(), max, r.mr().lkey() + 1));
        r.qp().postSend(wr);
        Patterns.fill(r.buffer(), 0, max, 99); // inline data was copied at post time: reusing the buffer is safe
        assertWc(p.pollOne(r.cq()), 1, WcStatus.SUCCESS, WcOpcode.SEND, r.qp().qpNum());
      } else {
        WorkCompletion wc = p.pollOne(r.cq());
        assertWc(wc, 0, WcStatus.SUCCESS, WcOpcode.RECV, r.qp().qpNum());
        assertEquals(max, wc.byteLen());
        Patterns.verify("inline payload", r.buffer(), r.recvOffset(), max, 36);
      }
    }
  }

  /** Scenario 37: max_send_wr + 1 unsignaled sends with no signaled WR completing: the last fails with ENOMEM. */
  @Test
  public void postingMaxSendWrPlusOneUnsignaledSendsFailsWithEnomem() {
    twoSided("postingMaxSendWrPlusOneUnsignaledSendsFailsWithEnomemBody");
  }

  /**
   * Body of {@link #postingMaxSendWrPlusOneUnsignaledSendsFailsWithEnomem()}.
   *
   * @param p the rank
   */
  public void postingMaxSendWrPlusOneUnsignaledSendsFailsWithEnomemBody(Peer p) {
    // Rank 1 posts no receive: rank 0's sends wait in RNR retries (rnr_retry 7 = forever), so no
    // signaled WR can complete and free send queue slots.
    try (RcResources r = new RcResources(p, RcResources.options().cap(SMALL)).connect()) {
      p.barrier("connected");
      if (p.rank() == 0) {
        int n = r.qp().cap().maxSendWr();
        assertTrue(n >= 16, "max_send_wr=" + n);
        for (int i = 0; i < n; i++) {
          r.qp().postSend(r.send(i, 0).signaled(false));
        }
        VerbsException e = assertErrno(Errno.ENOMEM, () -> r.qp().postSend(r.send(n, 0).signaled(false)));
        assertEquals(0, e.badWrIndex());
        assertTrue(e.getMessage().contains("max_send_wr"), e.getMessage());
      }
      p.barrier("checked");
    }
  }

  /** §3.1 [rec]: an opcode the QP type does not support fails with EINVAL at post (RDMA on UD, READ and atomics on UC). */
  @Test
  public void opcodeNotValidForTheQpTypeFailsWithEinval() {
    oneSided(p -> {
      int lid = p.ctx().queryPort(1).lid();
      try (Objects o = new Objects(p); QueuePair ud = createQp(o.pd, o.cq, QpType.UD, SMALL);
          QueuePair uc = createQp(o.pd, o.cq, QpType.UC, SMALL); AddressHandle ah = o.pd.createAh(AhAttr.lid(lid))) {
        toInit(ud);
        ud.modify(new QpAttr().qpState(QpState.RTR));
        toRts(ud);
        assertEinvalNaming("RDMA_WRITE", () -> ud.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE)
            .sge(o.mr, 0, 8).rdma(o.mr.address(), o.mr.rkey()).ud(ah, ud.qpNum(), UdResources.QKEY)));
        toInit(uc);
        toRtrLoopback(p, uc);
        toRts(uc);
        assertEinvalNaming("RDMA_READ", () -> uc.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ)
            .sge(o.mr, 0, 8).rdma(o.mr.address(), o.mr.rkey())));
        assertEinvalNaming("ATOMIC_FETCH_AND_ADD", () -> uc.postSend(new SendWr().wrId(3)
            .opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sge(o.mr, 0, 8).atomic(o.mr.address(), o.mr.rkey(), 1, 0)));
        p.expectNoCompletion(o.cq, Peer.QUIET);
      }
    });
  }

  /** §2.1, §2.6: RTS→SQD drains; a send posted in SQD is accepted but starts only after SQD→RTS. */
  @Test
  public void sendPostedInSqdStartsOnlyAfterReturningToRts() {
    twoSided("sendPostedInSqdStartsOnlyAfterReturningToRtsBody");
  }

  /**
   * Body of {@link #sendPostedInSqdStartsOnlyAfterReturningToRts()}.
   *
   * @param p the rank
   */
  public void sendPostedInSqdStartsOnlyAfterReturningToRtsBody(Peer p) {
    try (RcResources r = new RcResources(p, RcResources.options()).connect()) {
      if (p.rank() == 1) {
        r.postRecv(0);
      }
      p.barrier("recv-posted");
      if (p.rank() == 0) {
        r.qp().modify(new QpAttr().qpState(QpState.SQD));
        assertEquals(QpState.SQD, r.qp().state());
        r.qp().postSend(r.send(1, 64));
      }
      p.barrier("posted-in-sqd");
      p.expectNoCompletion(r.cq(), Peer.QUIET); // rank 0: the send did not complete; rank 1: nothing arrived
      p.barrier("nothing-moved");
      if (p.rank() == 0) {
        r.qp().modify(new QpAttr().qpState(QpState.RTS));
        assertWc(p.pollOne(r.cq()), 1, WcStatus.SUCCESS, WcOpcode.SEND, r.qp().qpNum());
      } else {
        assertWc(p.pollOne(r.cq()), 0, WcStatus.SUCCESS, WcOpcode.RECV, r.qp().qpNum());
      }
    }
  }
}
