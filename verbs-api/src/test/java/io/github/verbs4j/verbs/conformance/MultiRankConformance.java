package io.github.verbs4j.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.CompletionQueue;
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
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Jobs of more than two ranks ({@link #spmd(int, String)}): every rank holds an RC QP to every
 * other rank, as an MPI library's eager connections do, and traffic between all pairs at once is
 * byte-exact. Across processes each rank is a JVM of its own. Subclass it and return your {@link
 * KitEnvironment}; see {@link AbstractConformance}.
 */
public abstract class MultiRankConformance extends AbstractConformance {
  /** Not a multiple of any MTU: the last packet of each message is short. */
  private static final int LEN = 4096 + 7;

  /** Three ranks: each RDMA WRITEs into and then SENDs to both others; all six flows arrive byte-exact. */
  @Test
  public void threeRanksExchangeWritesAndSendsAllToAll() {
    spmd(3, "allToAllBody");
  }

  /** Four ranks: the same all-to-all, twelve flows. */
  @Test
  public void fourRanksExchangeWritesAndSendsAllToAll() {
    spmd(4, "allToAllBody");
  }

  /**
   * Body of the all-to-all scenarios. Region layout per rank: slot {@code r} receives rank r's
   * WRITE, slot {@code n + r} its SEND, slot {@code 2n} is the source this rank sends from.
   *
   * @param p the rank
   */
  public void allToAllBody(Peer p) {
    int n = p.size();
    int me = p.rank();
    try (Closer closer = new Closer()) {
      ProtectionDomain pd = closer.add(p.ctx().allocPd());
      CompletionQueue cq = closer.add(p.ctx().createCq(4 * n, null, 0));
      MemoryRegion mr = closer.add(pd.allocateMemory((2L * n + 1) * LEN,
          EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE)));
      ByteBuffer buf = mr.buffer();
      Patterns.fill(buf, 2 * n * LEN, LEN, seed(me));
      QueuePair[] qps = new QueuePair[n];
      long[] mine = new long[3 + n];
      mine[0] = p.ctx().queryPort(1).lid();
      mine[1] = mr.rkey();
      mine[2] = mr.address();
      for (int r = 0; r < n; r++) {
        if (r != me) {
          qps[r] = closer.add(createQp(pd, cq, QpType.RC, new QpCap(4, 4, 1, 1, 0)));
          mine[3 + r] = qps[r].qpNum();
        }
      }
      long[][] all = p.allGather("connections", mine);
      for (int r = 0; r < n; r++) {
        if (r != me) {
          connect(qps[r], (int) all[r][0], (int) all[r][3 + me]);
          qps[r].postRecv(new RecvWr().wrId(r).sge(mr, (n + r) * LEN, LEN));
        }
      }
      p.barrier("receives-posted");
      for (int r = 0; r < n; r++) {
        if (r != me) {
          qps[r].postSend(new SendWr().wrId(100 + r).opcode(WrOpcode.RDMA_WRITE).signaled(true)
              .rdma(all[r][2] + (long) me * LEN, (int) all[r][1]).sge(mr, 2 * n * LEN, LEN));
          qps[r].postSend(new SendWr().wrId(200 + r).opcode(WrOpcode.SEND).signaled(true)
              .sge(mr, 2 * n * LEN, LEN));
        }
      }
      List<WorkCompletion> wcs = p.pollUntil(cq, 3 * (n - 1));
      int writes = 0;
      int sends = 0;
      int recvs = 0;
      for (WorkCompletion wc : wcs) {
        assertEquals(WcStatus.SUCCESS, wc.status(), () -> "rank " + me + ": " + wc);
        if (wc.opcode() == WcOpcode.RDMA_WRITE) {
          writes++;
        } else if (wc.opcode() == WcOpcode.SEND) {
          sends++;
        } else {
          assertEquals(WcOpcode.RECV, wc.opcode(), () -> "rank " + me + ": " + wc);
          assertEquals(LEN, wc.byteLen());
          assertEquals(qps[(int) wc.wrId()].qpNum(), wc.qpNum(), "the RECV completes on the QP of its sender");
          recvs++;
        }
      }
      assertEquals(List.of(n - 1, n - 1, n - 1), List.of(writes, sends, recvs), "WRITE, SEND, RECV completions");
      for (int r = 0; r < n; r++) {
        if (r != me) {
          // a SEND after a WRITE completes after the WRITE's data is visible, so both are here
          Patterns.verify("WRITE from rank " + r, buf, r * LEN, LEN, seed(r));
          Patterns.verify("SEND from rank " + r, buf, (n + r) * LEN, LEN, seed(r));
        }
      }
      p.barrier("verified");
    }
  }

  private static long seed(int rank) {
    return 0x5EED00L + rank;
  }

  private static void connect(QueuePair qp, int lid, int qpn) {
    qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1)
        .qpAccessFlags(EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE)));
    qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(qpn).rqPsn(0).maxDestRdAtomic(1)
        .minRnrTimer(12).ahAttr(AhAttr.lid(lid)));
    qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1));
  }
}
