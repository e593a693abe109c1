package io.github.verbs4j.tca.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import io.github.verbs4j.verbs.spi.runtime.AgentLock;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * tca's local ACK timer against a peer whose proxy never runs again (issue 23: waiting for a busy
 * host is not a licence to hang): the QP still ends in RETRY_EXC_ERR, within the fabric's patience.
 * The stall is injected by holding the peer proxy's lock, on the wall clock (code 8: a 1.05 ms
 * timer, retry_cnt 7).
 */
class StalledPeerTimeoutTest {
  private static final int TIMEOUT_CODE = 8;
  private static final long TIMEOUT_NANOS = 4096L << TIMEOUT_CODE;

  private static AgentLock hold(TwoTcaNodes.Side side) {
    AgentLock proxy = side.tca().proxy().lock();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!proxy.tryAcquire()) {
      assertTrue(System.nanoTime() < until, "the proxy's lock was never free");
      Thread.onSpinWait();
    }
    return proxy;
  }

  private static WorkCompletion awaitOne(TwoTcaNodes.Side side, long nanos) {
    WorkCompletion[] wc = WorkCompletion.array(1);
    long until = System.nanoTime() + nanos;
    while (System.nanoTime() < until) {
      if (side.cq.poll(wc) == 1) {
        return new WorkCompletion().copyFrom(wc[0]);
      }
      Thread.onSpinWait();
    }
    return null;
  }

  @Test
  void aPeerThatNeverRunsAgainStillEndsTheQpWithinThePatience() throws Exception {
    try (TwoTcaNodes n = new TwoTcaNodes(TIMEOUT_CODE)) {
      n.b.rc.postRecv(new RecvWr().wrId(7).sge(n.b.pool, 0, 64));
      AgentLock proxy = hold(n.b);
      try {
        long t0 = System.nanoTime();
        n.a.rc.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(n.a.pool, 0, 64));
        WorkCompletion wc = awaitOne(n.a, TimeUnit.SECONDS.toNanos(60));
        assertTrue(wc != null, "the QP to a peer that never runs was never ended");
        assertEquals(WcStatus.RETRY_EXC_ERR, wc.status());
        long took = System.nanoTime() - t0;
        assertTrue(took > 8 * TIMEOUT_NANOS, "ended after " + took + " ns: sooner than its retries allow");
      } finally {
        proxy.releaseFully();
      }
    }
  }
}
