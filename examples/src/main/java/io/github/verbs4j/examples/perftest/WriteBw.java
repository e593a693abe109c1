package io.github.verbs4j.examples.perftest;

import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WrOpcode;
import picocli.CommandLine.Command;

/**
 * {@code ib_write_bw}: the client streams RDMA WRITEs into the server's buffer with {@code tx_depth}
 * outstanding; the server only waits. Default 5000 iterations.
 */
@Command(name = "write_bw", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"RDMA WRITE bandwidth, like perftest's ib_write_bw. Runs on 2 ranks: rank 0 writes to rank 1 and "
        + "prints the report."})
public final class WriteBw extends PerftestProgram {
  @Override
  protected Verb verb() {
    return Verb.WRITE;
  }

  @Override
  protected boolean bandwidth() {
    return true;
  }

  @Override
  protected int defaultIterations() {
    return 5000;
  }

  @Override
  protected void measure(Run run) {
    if (run.client) {
      Endpoint ep = run.ep;
      BwLoop.client(run, new SendWr().opcode(WrOpcode.RDMA_WRITE).sge(ep.mr, 0, run.size)
          .rdma(ep.remote().vaddr(), ep.remote().rkey()).inline(run.size <= run.settings.inlineSize()));
    }
  }
}
