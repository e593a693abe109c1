package io.github.verbs4j.examples.perftest;

import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WrOpcode;
import picocli.CommandLine.Command;

/**
 * {@code ib_send_bw}: the client streams SENDs with {@code tx_depth} outstanding; the server keeps
 * {@code rx_depth} receives posted and reposts as they complete. The report is the client's.
 */
@Command(name = "send_bw", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"SEND bandwidth, like perftest's ib_send_bw. Runs on 2 ranks: rank 0 sends to rank 1 and "
        + "prints the report."})
public final class SendBw extends PerftestProgram {
  @Override
  protected Verb verb() {
    return Verb.SEND;
  }

  @Override
  protected boolean bandwidth() {
    return true;
  }

  @Override
  protected void prepare(Run run) {
    if (!run.client) {
      SendRecv.postReceives(run, Math.min(run.settings.rxDepth(), run.settings.iterations()));
    }
  }

  @Override
  protected void measure(Run run) {
    Endpoint ep = run.ep;
    if (run.client) {
      BwLoop.client(run, new SendWr().opcode(WrOpcode.SEND).sge(ep.mr, 0, run.size)
          .inline(run.size <= run.settings.inlineSize()));
      return;
    }
    int iters = run.settings.iterations();
    int posted = Math.min(run.settings.rxDepth(), iters);
    RecvWr rwr = SendRecv.recvWr(run);
    int rcnt = 0;
    while (rcnt < iters) {
      int n = ep.await(ep.recvCq, run.side(), posted, rcnt);
      rcnt += n;
      for (int i = 0; i < n && posted < iters; i++) {
        ep.qp.postRecv(rwr);
        posted++;
      }
    }
  }
}
