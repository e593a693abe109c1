package io.github.verbs4j.examples.perftest;

import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WrOpcode;
import picocli.CommandLine.Command;

/**
 * {@code ib_read_bw}: the client streams RDMA READs of the server's buffer with {@code tx_depth}
 * posted (the QP keeps at most {@code --outs} in flight); the server only waits.
 */
@Command(name = "read_bw", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"RDMA READ bandwidth, like perftest's ib_read_bw. Runs on 2 ranks: rank 0 reads from rank 1 and "
        + "prints the report."})
public final class ReadBw extends PerftestProgram {
  @Override
  protected Verb verb() {
    return Verb.READ;
  }

  @Override
  protected boolean bandwidth() {
    return true;
  }

  @Override
  protected void measure(Run run) {
    if (run.client) {
      Endpoint ep = run.ep;
      BwLoop.client(run, new SendWr().opcode(WrOpcode.RDMA_READ).sge(ep.mr, 0, run.size)
          .rdma(ep.remote().vaddr(), ep.remote().rkey()));
    }
  }
}
