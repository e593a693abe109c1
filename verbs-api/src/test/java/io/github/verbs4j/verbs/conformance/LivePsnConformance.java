package io.github.verbs4j.verbs.conformance;

import static io.github.verbs4j.verbs.conformance.KitAssertions.assertWc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpAttrMask;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code ibv_query_qp} reports the PSNs a connection has reached, not the ones modify set (rxe's
 * {@code rxe_qp_to_attr}, mlx5): {@code sq_psn} is the PSN of the next new request packet, {@code
 * rq_psn} the PSN the responder expects next, both 24-bit and wrapping. The ends start near the
 * wrap (0xFFFFF0 and 0xFFFFFA) so it shows. A message of at most one path MTU is one packet on
 * every transport; a longer one is at least one PSN and at most one per MTU-sized piece. Subclass
 * it and return your {@link KitEnvironment}; see {@link AbstractConformance}.
 */
public abstract class LivePsnConformance extends AbstractConformance {
  private static final int MASK = 0xFFFFFF;
  private static final int[] PSN = {0xFFFFF0, 0xFFFFFA};

  private static int add(int psn, int n) {
    return (psn + n) & MASK;
  }

  private static int distance(int from, int to) {
    return (to - from) & MASK;
  }

  private static void assertPsns(QpAttr q, int sq, int rq, String when) {
    assertTrue(q.has(QpAttrMask.SQ_PSN) && q.has(QpAttrMask.RQ_PSN), () -> "query() sets sq_psn and rq_psn: " + q);
    assertEquals(Integer.toHexString(sq), Integer.toHexString(q.sqPsn()), "sq_psn " + when);
    assertEquals(Integer.toHexString(rq), Integer.toHexString(q.rqPsn()), "rq_psn " + when);
  }

  /**
   * 20 one-packet SENDs from rank 0, then 10 from rank 1: each end's sq_psn moves by the packets it
   * sent and its rq_psn by the packets it accepted, across the 24-bit wrap.
   */
  @Test
  public void queryReportsTheLiveSqPsnAndRqPsnAcrossThe24BitWrap() {
    twoSided("queryReportsTheLiveSqPsnAndRqPsnAcrossThe24BitWrapBody");
  }

  /**
   * Body of {@link #queryReportsTheLiveSqPsnAndRqPsnAcrossThe24BitWrap()}.
   *
   * @param p the rank
   */
  public void queryReportsTheLiveSqPsnAndRqPsnAcrossThe24BitWrapBody(Peer p) {
    int msg = 64;
    int[] count = {20, 10};
    int mine = PSN[p.rank()];
    int theirs = PSN[p.other()];
    try (RcResources r = new RcResources(p, RcResources.options().msgSize(msg).mrSize(2L * 20 * msg).psn(mine))
        .connect()) {
      int qpn = r.qp().qpNum();
      assertPsns(r.qp().query(), mine, theirs, "before any traffic");
      int sent = 0;
      int received = 0;
      for (int sender = 0; sender < 2; sender++) {
        int n = count[sender];
        if (p.rank() != sender) {
          for (int i = 0; i < n; i++) {
            r.qp().postRecv(new RecvWr().wrId(i).sge(r.mr(), (long) (20 + i) * msg, msg));
          }
        }
        p.barrier("recvs-posted-" + sender);
        if (p.rank() == sender) {
          for (int i = 0; i < n; i++) {
            r.qp().postSend(new SendWr().wrId(100 + i).opcode(WrOpcode.SEND).signaled(true)
                .sge(r.mr(), (long) i * msg, msg));
          }
          List<WorkCompletion> wcs = p.pollUntil(r.cq(), n);
          for (int i = 0; i < n; i++) {
            assertWc(wcs.get(i), 100 + i, WcStatus.SUCCESS, WcOpcode.SEND, qpn);
          }
          sent += n;
        } else {
          List<WorkCompletion> wcs = p.pollUntil(r.cq(), n);
          for (int i = 0; i < n; i++) {
            assertWc(wcs.get(i), i, WcStatus.SUCCESS, WcOpcode.RECV, qpn);
          }
          received += n;
        }
        assertPsns(r.qp().query(), add(mine, sent), add(theirs, received), "after rank " + sender + " sent " + n);
        p.barrier("checked-" + sender);
      }
      assertEquals(0, add(mine, sent) & 0xFFFF00, "both ends wrapped past 0xFFFFFF");
    }
  }

  /**
   * Six RDMA WRITEs of three MTUs and a byte from rank 0, with query() called from rank 0 while
   * they are in flight (the engine runs meanwhile): sq_psn never goes back, ends between 6 and
   * 6 × 4 PSNs further on, and equals the rq_psn rank 1 reports once everything is acknowledged.
   */
  @Test
  public void sqPsnCountsThePacketsOfMultiPacketMessagesAndMatchesThePeersRqPsn() {
    twoSided("sqPsnCountsThePacketsOfMultiPacketMessagesAndMatchesThePeersRqPsnBody");
  }

  /**
   * Body of {@link #sqPsnCountsThePacketsOfMultiPacketMessagesAndMatchesThePeersRqPsn()}.
   *
   * @param p the rank
   */
  public void sqPsnCountsThePacketsOfMultiPacketMessagesAndMatchesThePeersRqPsnBody(Peer p) {
    int n = 6;
    int msg = 3 * 1024 + 1; // path MTU 1024 (RcResources): four packets on InfiniBand
    int mine = PSN[p.rank()];
    try (RcResources r = new RcResources(p, RcResources.options().msgSize(msg).mrSize((long) n * msg).psn(mine))
        .connect()) {
      int qpn = r.qp().qpNum();
      p.barrier("connected");
      if (p.rank() == 0) {
        int last = 0;
        for (int i = 0; i < n; i++) {
          r.qp().postSend(new SendWr().wrId(200 + i).opcode(WrOpcode.RDMA_WRITE).signaled(true)
              .sge(r.mr(), (long) i * msg, msg).rdma(r.remote().addr() + (long) i * msg, r.remote().rkey()));
          int d = distance(mine, r.qp().query().sqPsn());
          assertTrue(d >= last && d <= n * 4, "sq_psn moved from +" + last + " to +" + d + " (of at most " + n * 4 + ")");
          last = d;
        }
        int done = 0;
        Backoff backoff = new Backoff();
        WorkCompletion[] wcs = WorkCompletion.array(n);
        long deadline = System.nanoTime() + p.timeout().toNanos();
        while (done < n) {
          int k = r.cq().poll(wcs, n - done);
          for (int i = 0; i < k; i++) {
            assertWc(wcs[i], 200 + done + i, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, qpn);
          }
          done += k;
          int d = distance(mine, r.qp().query().sqPsn());
          assertTrue(d >= last && d <= n * 4, "sq_psn moved from +" + last + " to +" + d + " (of at most " + n * 4 + ")");
          last = d;
          p.checkAborted();
          assertTrue(System.nanoTime() - deadline < 0, () -> "WRITE completions timed out: " + r.qp().query());
          backoff.idle();
        }
        assertTrue(last >= n, "at least one PSN per message: +" + last);
        p.exchange("sq", r.qp().query().sqPsn());
      } else {
        long[] sq = p.exchange("sq");
        assertEquals(Integer.toHexString((int) sq[0]), Integer.toHexString(r.qp().query().rqPsn()),
            "the responder expects the PSN the requester sends next");
        assertEquals(Integer.toHexString(mine), Integer.toHexString(r.qp().query().sqPsn()), "rank 1 sent nothing");
      }
      p.barrier("done");
    }
  }
}
