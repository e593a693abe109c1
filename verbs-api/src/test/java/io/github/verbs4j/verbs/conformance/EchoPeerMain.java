package io.github.verbs4j.verbs.conformance;

import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;

/**
 * A child rank of {@link PeerKilledScenario}: connects one RC QP to rank 0 and, with argument {@code
 * echo}, returns every message it receives until an empty one; with {@code idle} it only keeps
 * its receives posted and waits to be killed. Configuration comes from {@code verbs.*} system
 * properties.
 */
public final class EchoPeerMain {
  private EchoPeerMain() {}

  public static void main(String[] args) throws Exception {
    boolean echo = args.length > 0 && args[0].equals("echo");
    try (Context ctx = Verbs.open()) {
      ProtectionDomain pd = ctx.allocPd();
      RcEnd end = new RcEnd(ctx, pd, 0).connect();
      ctx.job().barrier("connected", RcEnd.WAIT);
      if (!echo) {
        Thread.sleep(Long.MAX_VALUE); // rank 0 kills this process with SIGKILL
      }
      for (long n = 0;;) {
        WorkCompletion c = end.poll(1)[0];
        if (c.status() != WcStatus.SUCCESS) {
          throw new IllegalStateException("echo peer: failed completion " + c);
        }
        if (c.opcode() == WcOpcode.SEND) {
          continue; // an echo went out; its receive slot was reposted already
        }
        int slot = (int) c.wrId();
        int len = c.byteLen();
        if (len == 0) {
          break;
        }
        end.mr.buffer().put((int) RcEnd.sendOffset(slot), end.mr.buffer(), slot * RcEnd.SLOT_BYTES, len);
        end.postRecv(slot);
        end.qp.postSend(new SendWr().wrId(n++).opcode(WrOpcode.SEND).signaled(true)
            .sge(end.mr, RcEnd.sendOffset(slot), len));
      }
      end.close();
      pd.close();
    }
    System.exit(0);
  }
}
