package io.github.verbs4j.examples.perftest;

import io.github.verbs4j.verbs.RecvWr;

/** Receive-side helpers of the SEND tests. */
final class SendRecv {
  private SendRecv() {}

  /** @return a receive WR for one message of the run's size into the remote half */
  static RecvWr recvWr(Run run) {
    return new RecvWr().wrId(0).sge(run.ep.mr, run.ep.remoteOffset(), run.size);
  }

  /**
   * Posts {@code n} receives.
   *
   * @param run the size being measured
   * @param n how many
   */
  static void postReceives(Run run, int n) {
    RecvWr wr = recvWr(run);
    for (int i = 0; i < n; i++) {
      run.ep.qp.postRecv(wr);
    }
  }
}
