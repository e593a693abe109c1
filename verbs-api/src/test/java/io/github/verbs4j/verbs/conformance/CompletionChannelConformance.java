package io.github.verbs4j.verbs.conformance;

import static io.github.verbs4j.verbs.conformance.KitAssertions.assertErrWc;
import static io.github.verbs4j.verbs.conformance.KitAssertions.assertErrno;
import static io.github.verbs4j.verbs.conformance.KitAssertions.assertWc;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.CompletionChannel;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import java.util.EnumSet;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Conformance of completion channels and CQ notification ({@code ibv_create_comp_channel}, {@code
 * ibv_req_notify_cq}, {@code ibv_get_cq_event}, {@code ibv_ack_cq_events}): §6 scenarios 28 and
 * 57, and §4.2. Subclass it and return your {@link KitEnvironment}; see {@link
 * AbstractConformance}.
 */
public abstract class CompletionChannelConformance extends AbstractConformance {
  private static final int ITERS = 100;

  /** Scenario 28 (RC): 100 ping-pongs, every completion taken through the armed channel. */
  @Test
  public void rcCompletionsAreDeliveredThroughTheArmedChannel() {
    twoSided("rcCompletionsAreDeliveredThroughTheArmedChannelBody");
  }

  /**
   * Body of {@link #rcCompletionsAreDeliveredThroughTheArmedChannel()}.
   *
   * @param p the rank
   */
  public void rcCompletionsAreDeliveredThroughTheArmedChannelBody(Peer p) {
    try (CompletionChannel ch = p.ctx().createCompletionChannel()) {
      int[] events = {0};
      try (RcResources r = new RcResources(p, RcResources.options().channel(ch)).connect()) {
        assertSame(ch, r.cq().channel());
        r.cq().requestNotify(false);
        Traffic.rcPingPong(p, r, ITERS, Traffic.channelPoller(p, ch, events));
        p.barrier("traffic-done");
        Traffic.drainChannel(ch, Peer.QUIET);
      }
      assertTrue(events[0] >= 1, "no completion event was delivered in " + ITERS + " round trips");
    }
  }

  /** Scenario 28 (UD): 100 ping-pongs, every completion taken through the armed channel. */
  @Test
  public void udCompletionsAreDeliveredThroughTheArmedChannel() {
    twoSided("udCompletionsAreDeliveredThroughTheArmedChannelBody");
  }

  /**
   * Body of {@link #udCompletionsAreDeliveredThroughTheArmedChannel()}.
   *
   * @param p the rank
   */
  public void udCompletionsAreDeliveredThroughTheArmedChannelBody(Peer p) {
    int msg = Math.min(RcResources.DEFAULT_MSG_SIZE, p.ctx().queryPort(1).activeMtu().bytes());
    try (CompletionChannel ch = p.ctx().createCompletionChannel()) {
      int[] events = {0};
      try (UdResources u = new UdResources(p, UdResources.options().msgSize(msg).channel(ch)).exchangeInfo()) {
        u.cq().requestNotify(false);
        Traffic.udPingPong(p, u, msg, ITERS, Traffic.channelPoller(p, ch, events));
        p.barrier("traffic-done");
        Traffic.drainChannel(ch, Peer.QUIET);
      }
      assertTrue(events[0] >= 1, "no completion event was delivered in " + ITERS + " round trips");
    }
  }

  /**
   * Scenario 57: with {@code req_notify_cq(solicited_only=1)} an unsolicited SEND raises no event,
   * a SEND with IBV_SEND_SOLICITED raises one, and a completion with an error status raises one.
   */
  @Test
  public void solicitedOnlyNotificationFiresForSolicitedAndErrorCompletionsOnly() {
    twoSided("solicitedOnlyNotificationFiresForSolicitedAndErrorCompletionsOnlyBody");
  }

  /**
   * Body of {@link #solicitedOnlyNotificationFiresForSolicitedAndErrorCompletionsOnly()}.
   *
   * @param p the rank
   */
  public void solicitedOnlyNotificationFiresForSolicitedAndErrorCompletionsOnlyBody(Peer p) {
    try (CompletionChannel ch = p.ctx().createCompletionChannel()) {
      RcResources.Options o = RcResources.options().msgSize(256).mrSize(1024);
      if (p.rank() == 1) {
        o.channel(ch);
      }
      try (RcResources r = new RcResources(p, o).connect()) {
        int qpn = r.qp().qpNum();
        if (p.rank() == 1) {
          for (int i = 0; i < 3; i++) {
            r.postRecv(i);
          }
          r.cq().requestNotify(true);
        }
        p.barrier("armed");
        if (p.rank() == 0) {
          r.qp().postSend(r.send(10, 64));
          assertWc(p.pollOne(r.cq()), 10, WcStatus.SUCCESS, WcOpcode.SEND, qpn);
        } else {
          assertWc(p.pollOne(r.cq()), 0, WcStatus.SUCCESS, WcOpcode.RECV, qpn);
          assertTrue(ch.await(Peer.QUIET).isEmpty(), "an unsolicited SEND must not raise an event");
        }
        p.barrier("unsolicited-checked");
        if (p.rank() == 0) {
          r.qp().postSend(r.send(11, 64).solicited(true));
          assertWc(p.pollOne(r.cq()), 11, WcStatus.SUCCESS, WcOpcode.SEND, qpn);
        } else {
          Optional<CompletionQueue> ev = ch.await(p.timeout());
          assertTrue(ev.isPresent(), "a solicited SEND must raise an event");
          assertSame(r.cq(), ev.get());
          ev.get().ackEvents(1);
          assertWc(p.pollOne(r.cq()), 1, WcStatus.SUCCESS, WcOpcode.RECV, qpn);
          r.cq().requestNotify(true);
        }
        p.barrier("rearmed");
        if (p.rank() == 0) {
          r.qp().postSend(r.send(12, 512)); // larger than the peer's 256-byte receive
          assertErrWc(p.pollOne(r.cq()), 12, WcStatus.REM_INV_REQ_ERR, qpn);
        } else {
          Optional<CompletionQueue> ev = ch.await(p.timeout());
          assertTrue(ev.isPresent(), "an error completion must raise an event under solicited-only");
          ev.get().ackEvents(1);
          assertErrWc(p.pollOne(r.cq()), 2, WcStatus.LOC_LEN_ERR, qpn);
          Traffic.drainChannel(ch, Peer.QUIET);
        }
        p.barrier("done");
      }
    }
  }

  /** §4.2: destroy_comp_channel fails with EBUSY while a CQ uses the channel. */
  @Test
  public void closingAChannelWithAnAttachedCqFailsWithEbusy() {
    oneSided(p -> {
      try (CompletionChannel ch = p.ctx().createCompletionChannel()) {
        CompletionQueue cq = p.ctx().createCq(4, ch, 0);
        assertErrno(Errno.EBUSY, ch::close);
        cq.close();
      }
    });
  }

  /** §4.2: req_notify_cq on a CQ without a channel fails with EINVAL. */
  @Test
  public void requestNotifyWithoutAChannelFailsWithEinval() {
    oneSided(p -> {
      try (CompletionQueue cq = p.ctx().createCq(4, null, 0)) {
        assertErrno(Errno.EINVAL, () -> cq.requestNotify(false));
      }
    });
  }

  /**
   * §4.2: destroy_cq waits for (here: fails with EBUSY until) every delivered event is acked. The
   * event comes from a receive flushed on a QP in ERR, so no peer is needed.
   */
  @Test
  public void closingACqWithUnacknowledgedEventsFailsWithEbusy() {
    oneSided(p -> {
      try (CompletionChannel ch = p.ctx().createCompletionChannel();
          ProtectionDomain pd = p.ctx().allocPd();
          MemoryRegion mr = pd.allocateMemory(64, EnumSet.of(Access.LOCAL_WRITE))) {
        CompletionQueue cq = p.ctx().createCq(4, ch, 0);
        QueuePair qp = createQp(pd, cq, QpType.RC, QpCap.builder().maxSendWr(1).maxRecvWr(1).build());
        toInit(qp);
        qp.modify(new QpAttr().qpState(QpState.ERR));
        cq.requestNotify(false);
        qp.postRecv(new RecvWr().wrId(5).sge(mr, 0, 64));
        assertErrWc(p.pollOne(cq), 5, WcStatus.WR_FLUSH_ERR, qp.qpNum());
        Optional<CompletionQueue> ev = ch.await(p.timeout());
        assertTrue(ev.isPresent(), "the flush completion must raise the armed event");
        qp.close();
        assertErrno(Errno.EBUSY, cq::close);
        cq.ackEvents(1);
        assertErrno(Errno.EINVAL, () -> cq.ackEvents(1));
        cq.close();
      }
    });
  }
}
