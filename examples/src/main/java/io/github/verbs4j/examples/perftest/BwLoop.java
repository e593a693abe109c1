package io.github.verbs4j.examples.perftest;

import io.github.verbs4j.verbs.SendWr;

/**
 * perftest's {@code run_iter_bw} on the client: keep up to {@code tx_depth} WRs outstanding, signal
 * every {@code cq_mod}-th and the last, and count {@code cq_mod} completed WRs per completion,
 * stamping the post of each WR and the arrival of each completion.
 */
final class BwLoop {
  private BwLoop() {}

  /**
   * @param run the size being measured
   * @param wr the WR to post repeatedly (opcode, SGE and destination set)
   */
  static void client(Run run, SendWr wr) {
    Endpoint ep = run.ep;
    Settings s = run.settings;
    int iters = s.iterations();
    int cqMod = s.cqMod();
    int scnt = 0;
    int ccnt = 0;
    while (scnt < iters || ccnt < iters) {
      while (scnt < iters && scnt - ccnt < s.txDepth()) {
        boolean signaled = scnt % cqMod == cqMod - 1 || scnt == iters - 1;
        wr.wrId(scnt).signaled(signaled);
        run.timings.posted(scnt);
        ep.qp.postSend(wr);
        scnt++;
      }
      if (ccnt < iters) {
        int n = ep.awaitBatch(ep.sendCq, run.side(), scnt, ccnt);
        for (int i = 0; i < n; i++) {
          ccnt = Math.min(ccnt + cqMod, iters);
          run.timings.completed(ccnt - 1);
        }
        run.progress(ccnt);
      }
    }
  }
}
