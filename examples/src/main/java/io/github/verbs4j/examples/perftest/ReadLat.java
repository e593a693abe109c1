package io.github.verbs4j.examples.perftest;

import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WrOpcode;
import picocli.CommandLine.Command;

/**
 * {@code ib_read_lat}: one-sided RDMA READ. The client posts a READ of the server's buffer, busy-polls
 * (with back-off) the send CQ, and repeats; the server only waits. Reports the full operation time.
 */
@Command(name = "read_lat", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"RDMA READ latency, like perftest's ib_read_lat. Runs on 2 ranks: rank 0 reads from rank 1 and "
        + "prints the report.", "Reported latency is the full round trip (one READ)."})
public final class ReadLat extends PerftestProgram {
  @Override
  protected Verb verb() {
    return Verb.READ;
  }

  @Override
  protected boolean bandwidth() {
    return false;
  }

  @Override
  protected void measure(Run run) {
    if (!run.client) {
      return;
    }
    Endpoint ep = run.ep;
    int iters = run.settings.iterations();
    SendWr wr = new SendWr().opcode(WrOpcode.RDMA_READ).sge(ep.mr, 0, run.size)
        .rdma(ep.remote().vaddr(), ep.remote().rkey()).signaled(true);
    for (int scnt = 0; scnt < iters; scnt++) {
      run.timings.posted(scnt);
      ep.qp.postSend(wr.wrId(scnt));
      ep.await(ep.sendCq, run.side(), scnt + 1, scnt);
      run.progress(scnt + 1);
    }
  }
}
