package io.github.verbs4j.examples.perftest;

import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WrOpcode;
import picocli.CommandLine.Command;

/**
 * {@code ib_send_lat}: SEND ping-pong. The client sends first; each side waits for the peer's
 * message, then sends its own. Sends are unsignaled except every {@code cq_mod}-th and the last,
 * inline up to the inline size. Reports half a round trip.
 */
@Command(name = "send_lat", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"SEND latency (ping-pong), like perftest's ib_send_lat. Runs on 2 ranks: rank 0 is the client "
        + "and prints the report.", "Reported latency is half the round trip (RTT/2)."})
public final class SendLat extends PerftestProgram {
  @Override
  protected Verb verb() {
    return Verb.SEND;
  }

  @Override
  protected boolean bandwidth() {
    return false;
  }

  @Override
  protected void prepare(Run run) {
    SendRecv.postReceives(run, Math.min(run.settings.rxDepth(), run.settings.iterations()));
  }

  @Override
  protected void measure(Run run) {
    Endpoint ep = run.ep;
    Settings s = run.settings;
    int iters = s.iterations();
    int posted = Math.min(s.rxDepth(), iters);
    RecvWr rwr = SendRecv.recvWr(run);
    SendWr wr = new SendWr().opcode(WrOpcode.SEND).sge(ep.mr, 0, run.size).inline(run.size <= s.inlineSize());
    int scnt = 0;
    int rcnt = 0;
    int ccnt = 0;
    while (scnt < iters || rcnt < iters) {
      if (rcnt < iters && !(scnt < 1 && run.client)) {
        ep.await(ep.recvCq, run.side(), scnt, rcnt);
        rcnt++;
        if (posted < iters) {
          ep.qp.postRecv(rwr);
          posted++;
        }
      }
      if (scnt < iters) {
        boolean signaled = scnt % s.cqMod() == s.cqMod() - 1 || scnt == iters - 1;
        wr.wrId(scnt).signaled(signaled);
        run.timings.posted(scnt);
        ep.qp.postSend(wr);
        scnt++;
        if (signaled) {
          ep.await(ep.sendCq, run.side(), scnt, ccnt);
          ccnt = scnt;
        }
        run.progress(scnt);
      }
    }
  }
}
