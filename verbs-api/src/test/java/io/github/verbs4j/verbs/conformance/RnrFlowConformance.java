package io.github.verbs4j.verbs.conformance;

import static io.github.verbs4j.verbs.conformance.KitAssertions.assertErrWc;
import static io.github.verbs4j.verbs.conformance.KitAssertions.assertWc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.PortCounter;
import io.github.verbs4j.verbs.PortCounters;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * RNR NAKs as flow control (IBA 9.7.5.2.8; CONFORMANCE.md: rnr_retry 7 = infinite): several RC
 * SENDs outstanding into an empty receive queue wait for receives posted late and then all
 * complete successfully, in order and byte-exact, without spending {@code retry_cnt}; and the
 * error ends still hold (rnr_retry 0 ends in RNR_RETRY_EXC_ERR, retry_cnt exhausted against a
 * silent peer in RETRY_EXC_ERR).
 *
 * <p>How {@code retry_cnt} is seen: the requester's port counters ({@link
 * io.github.verbs4j.verbs.Context#queryPortCounters}) before and after — {@code
 * completer_retry_err} counts each retry_cnt spent, {@code rcvd_rnr_err} each RNR NAK. The local
 * ACK timeout here is code 18 (about 1 s): the scenario is about RNR, and a scheduling stall on a
 * loaded machine must not look like a lost packet. Rank 0 sends, rank 1 receives. Subclass it and
 * return your {@link KitEnvironment}; see {@link AbstractConformance}.
 */
public abstract class RnrFlowConformance extends AbstractConformance {
  private static final int TIMEOUT = 18;
  private static final Duration LATE = Duration.ofMillis(200);

  /** Three SENDs into an empty RQ (min_rnr_timer 1 = 0.01 ms); receives 200 ms later: all succeed. */
  @Test
  public void threeSendsWaitForReceivesPostedLateWithMinRnrTimer1() {
    twoSided("threeSendsWaitForReceivesPostedLateWithMinRnrTimer1Body");
  }

  /**
   * Body of {@link #threeSendsWaitForReceivesPostedLateWithMinRnrTimer1()}.
   *
   * @param p the rank
   */
  public void threeSendsWaitForReceivesPostedLateWithMinRnrTimer1Body(Peer p) {
    stream(p, 1, 3, 64, 3);
  }

  /** Three SENDs into an empty RQ (min_rnr_timer 12 = 0.64 ms); receives 200 ms later: all succeed. */
  @Test
  public void threeSendsWaitForReceivesPostedLateWithMinRnrTimer12() {
    twoSided("threeSendsWaitForReceivesPostedLateWithMinRnrTimer12Body");
  }

  /**
   * Body of {@link #threeSendsWaitForReceivesPostedLateWithMinRnrTimer12()}.
   *
   * @param p the rank
   */
  public void threeSendsWaitForReceivesPostedLateWithMinRnrTimer12Body(Peer p) {
    stream(p, 12, 3, 64, 3);
  }

  /**
   * A stream of 32 multi-packet SENDs (12 KiB + 5 B) into an empty RQ with min_rnr_timer 1; the
   * receives come 200 ms late and then in batches of 8, each batch only after the stream was
   * RNR-NAKed again: every message arrives once, in order, byte-exact.
   */
  @Test
  public void aStreamOfMultiPacketSendsIsFlowControlledByRnrWithMinRnrTimer1() {
    twoSided("aStreamOfMultiPacketSendsIsFlowControlledByRnrWithMinRnrTimer1Body");
  }

  /**
   * Body of {@link #aStreamOfMultiPacketSendsIsFlowControlledByRnrWithMinRnrTimer1()}.
   *
   * @param p the rank
   */
  public void aStreamOfMultiPacketSendsIsFlowControlledByRnrWithMinRnrTimer1Body(Peer p) {
    stream(p, 1, 32, 3 * 4096 + 5, 8);
  }

  /** The same stream with min_rnr_timer 12. */
  @Test
  public void aStreamOfMultiPacketSendsIsFlowControlledByRnrWithMinRnrTimer12() {
    twoSided("aStreamOfMultiPacketSendsIsFlowControlledByRnrWithMinRnrTimer12Body");
  }

  /**
   * Body of {@link #aStreamOfMultiPacketSendsIsFlowControlledByRnrWithMinRnrTimer12()}.
   *
   * @param p the rank
   */
  public void aStreamOfMultiPacketSendsIsFlowControlledByRnrWithMinRnrTimer12Body(Peer p) {
    stream(p, 12, 32, 3 * 4096 + 5, 8);
  }

  /**
   * Rank 0 posts {@code n} SENDs of {@code msg} bytes while rank 1 has no receive posted. Rank 1
   * waits until it has sent an RNR NAK, then 200 ms more, then posts its receives {@code batch}
   * at a time, each later batch once the previous one completed and the stream was RNR-NAKed
   * again.
   */
  private static void stream(Peer p, int minRnrTimer, int n, int msg, int batch) {
    RcResources.Options o = RcResources.options().msgSize(msg).mrSize(2L * n * msg).rnrRetry(7).retryCnt(7)
        .minRnrTimer(minRnrTimer).timeout(TIMEOUT);
    try (RcResources r = new RcResources(p, o).connect()) {
      int qpn = r.qp().qpNum();
      int recvBase = n * msg;
      if (p.rank() == 0) {
        for (int i = 0; i < n; i++) {
          Patterns.fill(r.buffer(), i * msg, msg, 7700 + i);
        }
      } else {
        Traffic.fill(r.buffer(), recvBase, n * msg, (byte) 0);
      }
      PortCounters before = p.ctx().queryPortCounters(1);
      p.barrier("ready");
      if (p.rank() == 0) {
        for (int i = 0; i < n; i++) {
          r.qp().postSend(new SendWr().wrId(100 + i).opcode(WrOpcode.SEND).signaled(true).sge(r.mr(), (long) i * msg,
              msg));
        }
        List<WorkCompletion> wcs = p.pollUntil(r.cq(), n);
        for (int i = 0; i < n; i++) {
          assertWc(wcs.get(i), 100 + i, WcStatus.SUCCESS, WcOpcode.SEND, qpn);
        }
        PortCounters d = p.ctx().queryPortCounters(1).minus(before);
        assertTrue(d.get(PortCounter.RCVD_RNR_ERR) >= 1, () -> "the SENDs were RNR NAKed: " + d);
        assertEquals(0, d.get(PortCounter.COMPLETER_RETRY_ERR), () -> "RNR NAKs must not spend retry_cnt: " + d);
        assertEquals(0, d.get(PortCounter.RETRY_EXCEEDED_ERR), () -> d.toString());
        assertEquals(0, d.get(PortCounter.RETRY_RNR_EXCEEDED_ERR), () -> d.toString());
      } else {
        PortCounters seen = before;
        int posted = 0;
        while (posted < n) {
          seen = awaitIncrease(p, seen, PortCounter.SEND_RNR_ERR);
          if (posted == 0) {
            p.pause(LATE);
          }
          int end = Math.min(n, posted + batch);
          for (int i = posted; i < end; i++) {
            r.qp().postRecv(new RecvWr().wrId(i).sge(r.mr(), recvBase + (long) i * msg, msg));
          }
          List<WorkCompletion> wcs = p.pollUntil(r.cq(), end - posted);
          for (int i = posted; i < end; i++) {
            WorkCompletion wc = wcs.get(i - posted);
            assertWc(wc, i, WcStatus.SUCCESS, WcOpcode.RECV, qpn);
            assertEquals(msg, wc.byteLen(), () -> "byte_len of " + wc);
            Patterns.verify("message " + i, r.buffer(), recvBase + i * msg, msg, 7700 + i);
          }
          posted = end;
          seen = p.ctx().queryPortCounters(1);
        }
        assertEquals(QpState.RTS, r.qp().state());
      }
      p.barrier("done");
      assertEquals(QpState.RTS, r.qp().state(), "flow control leaves the connection up");
      if (p.rank() == 1) {
        p.expectNoCompletion(r.cq(), Duration.ofMillis(50)); // each message exactly once
      }
    }
  }

  /** Waits until {@code c} has grown past its value in {@code since}; returns the new snapshot. */
  private static PortCounters awaitIncrease(Peer p, PortCounters since, PortCounter c) {
    Backoff backoff = new Backoff();
    long deadline = System.nanoTime() + p.timeout().toNanos();
    while (true) {
      PortCounters now = p.ctx().queryPortCounters(1);
      if (now.get(c) > since.get(c)) {
        return now;
      }
      p.checkAborted();
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("rank " + p.rank() + ": " + c.hwName() + " did not grow within " + p.timeout()
            + ": " + now);
      }
      backoff.idle();
    }
  }

  /**
   * rnr_retry 0 and no receive ever posted: the first SEND completes RNR_RETRY_EXC_ERR, the two
   * behind it WR_FLUSH_ERR, without a transport retry; the responder stays in RTS.
   */
  @Test
  public void rnrRetry0WithSeveralSendsOutstandingEndsInRnrRetryExcErr() {
    twoSided("rnrRetry0WithSeveralSendsOutstandingEndsInRnrRetryExcErrBody");
  }

  /**
   * Body of {@link #rnrRetry0WithSeveralSendsOutstandingEndsInRnrRetryExcErr()}.
   *
   * @param p the rank
   */
  public void rnrRetry0WithSeveralSendsOutstandingEndsInRnrRetryExcErrBody(Peer p) {
    try (RcResources r = new RcResources(p, RcResources.options().msgSize(64).mrSize(3 * 64).rnrRetry(0).retryCnt(7)
        .minRnrTimer(1).timeout(TIMEOUT)).connect()) {
      int qpn = r.qp().qpNum();
      PortCounters before = p.ctx().queryPortCounters(1);
      p.barrier("ready");
      if (p.rank() == 0) {
        for (int i = 0; i < 3; i++) {
          r.qp().postSend(new SendWr().wrId(100 + i).opcode(WrOpcode.SEND).signaled(true).sge(r.mr(), i * 64L, 64));
        }
        List<WorkCompletion> wcs = p.pollUntil(r.cq(), 3);
        assertErrWc(wcs.get(0), 100, WcStatus.RNR_RETRY_EXC_ERR, qpn);
        assertErrWc(wcs.get(1), 101, WcStatus.WR_FLUSH_ERR, qpn);
        assertErrWc(wcs.get(2), 102, WcStatus.WR_FLUSH_ERR, qpn);
        p.awaitState(r.qp(), QpState.ERR);
        PortCounters d = p.ctx().queryPortCounters(1).minus(before);
        assertEquals(1, d.get(PortCounter.RETRY_RNR_EXCEEDED_ERR), () -> d.toString());
        assertTrue(d.get(PortCounter.RCVD_RNR_ERR) >= 1, () -> d.toString());
        assertEquals(0, d.get(PortCounter.COMPLETER_RETRY_ERR), () -> d.toString());
        assertEquals(0, d.get(PortCounter.RETRY_EXCEEDED_ERR), () -> d.toString());
      }
      p.barrier("done");
      if (p.rank() == 1) {
        p.expectNoCompletion(r.cq(), Peer.QUIET);
        assertEquals(QpState.RTS, r.qp().state());
        PortCounters d = p.ctx().queryPortCounters(1).minus(before);
        assertTrue(d.get(PortCounter.SEND_RNR_ERR) >= 1, () -> d.toString());
      }
    }
  }

  /**
   * retry_cnt 2 against a peer whose QP went back to RESET (it answers nothing): the first of
   * three SENDs completes RETRY_EXC_ERR after exactly retry_cnt transport retries and retry_cnt + 1
   * local ACK timeouts, the rest flush; RNR never enters into it.
   */
  @Test
  public void retryCntExhaustedAgainstASilentPeerEndsInRetryExcErr() {
    twoSided("retryCntExhaustedAgainstASilentPeerEndsInRetryExcErrBody");
  }

  /**
   * Body of {@link #retryCntExhaustedAgainstASilentPeerEndsInRetryExcErr()}.
   *
   * @param p the rank
   */
  public void retryCntExhaustedAgainstASilentPeerEndsInRetryExcErrBody(Peer p) {
    int retryCnt = 2;
    try (RcResources r = new RcResources(p, RcResources.options().msgSize(64).mrSize(3 * 64).rnrRetry(7)
        .retryCnt(retryCnt).timeout(10)).connect()) {
      int qpn = r.qp().qpNum();
      p.barrier("connected");
      if (p.rank() == 1) {
        r.qp().modify(new QpAttr().qpState(QpState.RESET));
      }
      p.barrier("peer-silent");
      if (p.rank() == 0) {
        PortCounters before = p.ctx().queryPortCounters(1);
        for (int i = 0; i < 3; i++) {
          r.qp().postSend(new SendWr().wrId(100 + i).opcode(WrOpcode.SEND).signaled(true).sge(r.mr(), i * 64L, 64));
        }
        List<WorkCompletion> wcs = p.pollUntil(r.cq(), 3);
        assertErrWc(wcs.get(0), 100, WcStatus.RETRY_EXC_ERR, qpn);
        assertErrWc(wcs.get(1), 101, WcStatus.WR_FLUSH_ERR, qpn);
        assertErrWc(wcs.get(2), 102, WcStatus.WR_FLUSH_ERR, qpn);
        p.awaitState(r.qp(), QpState.ERR);
        PortCounters d = p.ctx().queryPortCounters(1).minus(before);
        assertEquals(retryCnt, d.get(PortCounter.COMPLETER_RETRY_ERR), () -> d.toString());
        assertEquals(retryCnt + 1, d.get(PortCounter.LOCAL_ACK_TIMEOUT_ERR), () -> d.toString());
        assertEquals(1, d.get(PortCounter.RETRY_EXCEEDED_ERR), () -> d.toString());
        assertEquals(0, d.get(PortCounter.RCVD_RNR_ERR), () -> d.toString());
      }
      p.barrier("done");
    }
  }
}
