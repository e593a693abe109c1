package io.github.verbs4j.examples.perftest;

import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WrOpcode;
import picocli.CommandLine.Command;

/**
 * {@code ib_write_lat}: RDMA WRITE ping-pong. Each side writes the iteration counter into the last
 * byte of its message and RDMA-writes it into the peer's buffer, then busy-polls (with back-off)
 * the last byte of its own buffer for the peer's counter. Every write is signaled. Reports half a
 * round trip. Relies on the last byte of a WRITE becoming visible last. With {@code
 * --write_with_imm} each write carries an immediate and the peer takes it from its receive CQ (a
 * receive consumed per write, posted again), as seed 000 measured its Write latency.
 */
@Command(name = "write_lat", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"RDMA WRITE latency (ping-pong), like perftest's ib_write_lat. Runs on 2 ranks: rank 0 is the "
        + "client and prints the report.", "Reported latency is half the round trip (RTT/2)."})
public final class WriteLat extends PerftestProgram {
  @Override
  protected Verb verb() {
    return Verb.WRITE;
  }

  @Override
  protected boolean bandwidth() {
    return false;
  }

  @Override
  protected boolean takesWriteWithImm() {
    return true;
  }

  @Override
  protected void prepare(Run run) {
    if (run.settings.writeWithImm()) {
      SendRecv.postReceives(run, Math.min(run.settings.rxDepth(), run.settings.iterations()));
    }
    Endpoint ep = run.ep;
    for (int i = 0; i < run.size; i++) {
      ep.buf.put(ep.remoteOffset() + i, (byte) 0);
      ep.buf.put(i, (byte) 0);
    }
  }

  @Override
  protected void measure(Run run) {
    Endpoint ep = run.ep;
    int iters = run.settings.iterations();
    int pollIndex = ep.remoteOffset() + run.size - 1;
    int postIndex = run.size - 1;
    boolean imm = run.settings.writeWithImm();
    SendWr wr = new SendWr().opcode(imm ? WrOpcode.RDMA_WRITE_WITH_IMM : WrOpcode.RDMA_WRITE).sge(ep.mr, 0, run.size)
        .rdma(ep.remote().vaddr(), ep.remote().rkey()).signaled(true).inline(run.size <= run.settings.inlineSize());
    RecvWr rwr = SendRecv.recvWr(run);
    int posted = Math.min(run.settings.rxDepth(), iters);
    int scnt = 0;
    int rcnt = 0;
    int ccnt = 0;
    while (scnt < iters || ccnt < iters || rcnt < iters) {
      if (rcnt < iters && !(scnt < 1 && run.client)) {
        if (imm) {
          ep.await(ep.recvCq, run.side(), scnt, rcnt);
          if (posted < iters) {
            ep.qp.postRecv(rwr);
            posted++;
          }
        } else {
          ep.awaitByte(pollIndex, (byte) (rcnt + 1), rcnt + 1);
        }
        rcnt++;
      }
      if (scnt < iters) {
        run.timings.posted(scnt);
        ep.buf.put(postIndex, (byte) ++scnt);
        ep.qp.postSend(wr.wrId(scnt).immData(scnt));
      }
      if (ccnt < iters) {
        ep.await(ep.sendCq, run.side(), scnt, ccnt);
        ccnt++;
        run.progress(ccnt);
      }
    }
  }
}
