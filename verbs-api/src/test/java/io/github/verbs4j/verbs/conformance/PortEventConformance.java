package io.github.verbs4j.verbs.conformance;

import static io.github.verbs4j.verbs.conformance.KitAssertions.assertErrWc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.AsyncEvent;
import io.github.verbs4j.verbs.AsyncEventType;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.PortState;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Port events as libibverbs raises them (CONFORMANCE.md, async events): only when a port changes
 * state, never because a context opened. A program's first async event is a real one (rdma-core's
 * SRQ-limit test waits for SRQ_LIMIT_REACHED as its first event); a rank whose link is taken down
 * gets PORT_ERR and reads DOWN from {@code queryPort}, and when the link is back it gets
 * PORT_ACTIVE, reads ACTIVE and new QPs carry traffic again; an RC SEND posted while the link is
 * down ends in RETRY_EXC_ERR.
 *
 * <p>The link is taken down through {@link KitEnvironment#linkControl(Context)} (fault injection:
 * the API cannot pull a cable); environments without it skip that scenario. Only the rank whose
 * link went down is checked for port events: whether the peer sees one depends on the topology (a
 * peer behind an IB switch keeps its port; a PEACH2 neighbour shares the cut cable). Subclass it
 * and return your {@link KitEnvironment}; see {@link AbstractConformance}.
 */
public abstract class PortEventConformance extends AbstractConformance {
  /** Short local ACK timeout (4.096 µs × 2^12 ≈ 17 ms) and one retry: a cut link fails fast. */
  private static final int TIMEOUT = 12;
  private static final int RETRY_CNT = 1;

  /**
   * Nothing is queued at open; the first event of a context is the SRQ limit its peer's traffic
   * crosses (rdma-core {@code tests/test_srq.py}), and the sender gets no event at all.
   */
  @Test
  public void noAsyncEventAfterOpenAndTheFirstIsTheSrqLimitReached() {
    twoSided("noAsyncEventAfterOpenAndTheFirstIsTheSrqLimitReachedBody");
  }

  /**
   * Body of {@link #noAsyncEventAfterOpenAndTheFirstIsTheSrqLimitReached()}.
   *
   * @param p the rank
   */
  public void noAsyncEventAfterOpenAndTheFirstIsTheSrqLimitReachedBody(Peer p) {
    assertEquals(Optional.empty(), p.ctx().pollAsyncEvent(Peer.QUIET), "rank " + p.rank() + ": an event right after open");
    assertEquals(PortState.ACTIVE, p.ctx().queryPort(1).state());
    try (SrqResources s = new SrqResources(p, SrqResources.options().qpCount(1).srqMaxWr(16)).connect()) {
      RcResources q = s.qp(0);
      if (p.rank() == 1) {
        for (int k = 0; k < 10; k++) {
          s.postSrqRecv(k);
        }
        s.srq().arm(7);
      }
      p.barrier("armed");
      assertEquals(Optional.empty(), p.ctx().pollAsyncEvent(Duration.ZERO), "rank " + p.rank() + ": an event before traffic");
      p.barrier("checked"); // rank 0 sends only now, so the limit cannot be crossed before rank 1 looked
      if (p.rank() == 0) {
        for (int i = 0; i < 4; i++) {
          q.qp().postSend(q.send(i, 64));
        }
        p.pollUntil(s.cq(), 4).forEach(wc -> assertEquals(WcStatus.SUCCESS, wc.status(), wc::toString));
      } else {
        p.pollUntil(s.cq(), 4).forEach(wc -> assertEquals(WcStatus.SUCCESS, wc.status(), wc::toString));
        Optional<AsyncEvent> first = p.ctx().pollAsyncEvent(p.timeout());
        assertTrue(first.isPresent(), "no SRQ_LIMIT_REACHED with 6 receives left below the limit 7");
        assertEquals(AsyncEventType.SRQ_LIMIT_REACHED, first.get().type(), "the first event: " + first.get());
        assertSame(s.srq(), first.get().srq());
      }
      p.barrier("done");
      assertEquals(Optional.empty(), p.ctx().pollAsyncEvent(p.rank() == 0 ? Peer.QUIET : Duration.ZERO),
          "rank " + p.rank() + ": no further event");
    }
  }

  /**
   * Rank 0's link is taken down: PORT_ERR on port 1 and {@code queryPort} DOWN; brought up:
   * PORT_ACTIVE and ACTIVE, and new QPs carry SENDs both ways.
   */
  @Test
  public void linkDownRaisesPortErrAndLinkUpRaisesPortActive() {
    twoSided("linkDownRaisesPortErrAndLinkUpRaisesPortActiveBody");
  }

  /**
   * Body of {@link #linkDownRaisesPortErrAndLinkUpRaisesPortActive()}.
   *
   * @param p the rank
   */
  public void linkDownRaisesPortErrAndLinkUpRaisesPortActiveBody(Peer p) {
    LinkControl link = linkControl(p);
    if (p.rank() == 0) {
      link.down();
      assertPortEvent(p, AsyncEventType.PORT_ERR, PortState.DOWN);
      link.up();
      assertPortEvent(p, AsyncEventType.PORT_ACTIVE, PortState.ACTIVE);
    }
    p.barrier("link-up");
    try (RcResources r = new RcResources(p, RcResources.options()).connect()) {
      r.postRecv(10);
      Patterns.fill(r.buffer(), 0, r.msgSize(), 300 + p.rank());
      p.barrier("recv-posted");
      r.qp().postSend(r.send(20, r.msgSize()));
      List<WorkCompletion> wcs = p.pollUntil(r.cq(), 2);
      wcs.forEach(wc -> assertEquals(WcStatus.SUCCESS, wc.status(), wc::toString));
      Patterns.verify("SEND after the link came back", r.buffer(), r.msgSize(), r.msgSize(), 300 + p.other());
      p.barrier("done");
    }
    assertEquals(PortState.ACTIVE, p.ctx().queryPort(1).state(), "rank " + p.rank());
    assertOnlyPortCycles(p);
  }

  /**
   * An RC SEND posted while this rank's link is down is never delivered: it ends in RETRY_EXC_ERR
   * after retry_cnt + 1 local ACK timeouts, and the peer sees no completion, also once the
   * link is back.
   */
  @Test
  public void rcSendWhileTheLinkIsDownEndsInRetryExcErr() {
    twoSided("rcSendWhileTheLinkIsDownEndsInRetryExcErrBody");
  }

  /**
   * Body of {@link #rcSendWhileTheLinkIsDownEndsInRetryExcErr()}.
   *
   * @param p the rank
   */
  public void rcSendWhileTheLinkIsDownEndsInRetryExcErrBody(Peer p) {
    LinkControl link = linkControl(p);
    // The short timeout only on a QP that sends while the link is down: a first packet may take
    // longer than two 17 ms timeouts on a loaded machine.
    try (RcResources r = new RcResources(p, RcResources.options().timeout(TIMEOUT).retryCnt(RETRY_CNT)).connect()) {
      if (p.rank() == 1) {
        r.postRecv(0);
      }
      p.barrier("connected");
      if (p.rank() == 0) {
        link.down();
        assertPortEvent(p, AsyncEventType.PORT_ERR, PortState.DOWN);
        r.qp().postSend(r.send(1, r.msgSize()));
        assertErrWc(p.pollOne(r.cq()), 1, WcStatus.RETRY_EXC_ERR, r.qp().qpNum());
        link.up();
        assertPortEvent(p, AsyncEventType.PORT_ACTIVE, PortState.ACTIVE);
      }
      p.barrier("link-up");
      if (p.rank() == 1) {
        p.expectNoCompletion(r.cq(), Peer.QUIET);
      }
      p.barrier("done");
    }
    assertOnlyPortCycles(p);
  }

  private static LinkControl linkControl(Peer p) {
    LinkControl link = p.environment().linkControl(p.ctx());
    Assumptions.assumeTrue(link != null, p.environment().name() + " cannot take a link down");
    return link;
  }

  /**
   * Rank 0 (whose link was cut) has no event left; rank 1's port changes only if it shares the cut
   * cable (a PEACH2 neighbour), then only by port events ending in PORT_ACTIVE.
   */
  private static void assertOnlyPortCycles(Peer p) {
    List<AsyncEventType> rest = new ArrayList<>();
    Optional<AsyncEvent> e;
    while ((e = p.ctx().pollAsyncEvent(Duration.ZERO)).isPresent()) {
      rest.add(e.get().type());
    }
    if (p.rank() == 0) {
      assertEquals(List.of(), rest, "rank 0: events after PORT_ACTIVE");
    } else {
      // A PEACH2 neighbour sharing the cut cable sees its port cycle too. Its events come from its
      // own fabric thread; how many it sees of a short cut is not pinned here (a lone PORT_ACTIVE
      // was seen once under load and is under investigation), only that they are port events and
      // the last says ACTIVE, as queryPort does.
      assertTrue(rest.stream().allMatch(t -> t == AsyncEventType.PORT_ERR || t == AsyncEventType.PORT_ACTIVE),
          "rank 1: port events " + rest);
      assertTrue(rest.isEmpty() || rest.get(rest.size() - 1) == AsyncEventType.PORT_ACTIVE,
          "rank 1: the last port event " + rest);
    }
  }

  /** The next async event is {@code type} on port 1, and {@code queryPort} already reads {@code state}. */
  private static void assertPortEvent(Peer p, AsyncEventType type, PortState state) {
    Optional<AsyncEvent> ev = p.ctx().pollAsyncEvent(p.timeout());
    assertTrue(ev.isPresent(), "rank " + p.rank() + ": no " + type + " within " + p.timeout());
    assertEquals(type, ev.get().type(), "rank " + p.rank() + ": the next event");
    assertEquals(1, ev.get().portNum(), "the event names port 1");
    assertEquals(state, p.ctx().queryPort(1).state(), "queryPort(1) after " + type);
  }
}
