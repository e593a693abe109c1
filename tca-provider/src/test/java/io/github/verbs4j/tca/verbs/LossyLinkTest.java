package io.github.verbs4j.tca.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.fabric.fault.LinkFaults;
import io.github.verbs4j.tca.peach2.DataLinkLayer;
import io.github.verbs4j.tca.peach2.Peach2Counters;
import io.github.verbs4j.tca.peach2.Peach2Counters.Link;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * TCA Verbs over PEACH2 links that lose, duplicate and corrupt frames: the boards' data link layer
 * replays what was lost, so every message arrives exactly once and byte-exact and TCA Verbs above
 * never times out; the link counters show the work. A link cut for longer than the link-down
 * timeout ends the QPs in error (RETRY_EXC_ERR, then flushed), never in a hang.
 */
class LossyLinkTest {
  private static final Map<String, String> LOSSY = Map.of("verbs.fault.drop", "0.05", "verbs.fault.duplicate", "0.01",
      "verbs.fault.corrupt", "0.01", "verbs.fault.seed", "22");
  private final Random random = new Random(22);

  private static WorkCompletion pollAny(io.github.verbs4j.verbs.CompletionQueue cq) {
    WorkCompletion[] wc = WorkCompletion.array(1);
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (cq.poll(wc) == 0) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no completion within 30 s");
      }
      Thread.onSpinWait();
    }
    return wc[0];
  }

  @ParameterizedTest(name = "verbs.time={0}")
  @ValueSource(strings = {"wall", "modelled"})
  void mixedTrafficOverLossyLinksIsExactlyOnceAndTcaVerbsNeverTimesOut(String time) {
    Map<String, String> s = new java.util.HashMap<>(LOSSY);
    s.put("verbs.time", time);
    // timeout 20 (4.3 s): link-level replays take well under a millisecond, so a verbs-level
    // timeout would mean the link layer let a loss through. With modelled time the requester's
    // timer runs on the modelled clock, which the fabric's safety net moves to a timer's deadline
    // after that much wall time: on a loaded machine a shorter timeout could fire while a 70 KB
    // rendezvous is still on its way in wall time.
    try (TwoTcaNodes n = new TwoTcaNodes(20, s)) {
      assertFalse(n.a.ctx.queryDevice().requiresLosslessFabric(), "the link layer hides the faults");
      ByteBuffer ap = n.a.pool.buffer();
      ByteBuffer bp = n.b.pool.buffer().order(ByteOrder.LITTLE_ENDIAN);
      int counter = 3 << 20;
      bp.putLong(counter, 0);
      Set<Long> olds = new HashSet<>();
      int[] sizes = {8, 60, 500, 4000, 9000, 70_000};
      int adds = 0;
      for (int i = 0; i < 320; i++) {
        int len = sizes[i % sizes.length];
        byte[] data = new byte[len];
        random.nextBytes(data);
        switch (i % 4) {
          case 0 -> {
            ap.put(0, data);
            n.b.rc.postRecv(new RecvWr().wrId(i).sge(n.b.pool, 1 << 20, len));
            n.a.rc.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).signaled(true).sge(n.a.pool, 0, len));
            TwoTcaNodes.poll(n.a.cq);
            assertEquals(len, TwoTcaNodes.poll(n.b.cq).byteLen());
            assertArrayEquals(data, read(n.b.pool.buffer(), 1 << 20, len), "SEND " + i);
          }
          case 1 -> {
            ap.put(0, data);
            n.a.rc.postSend(new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).signaled(true).sge(n.a.pool, 0, len)
                .rdma(n.b.pool.address() + (2 << 20), n.b.pool.rkey()));
            TwoTcaNodes.poll(n.a.cq);
            assertArrayEquals(data, read(n.b.pool.buffer(), 2 << 20, len), "WRITE " + i);
          }
          case 2 -> {
            n.b.pool.buffer().put(2 << 20, data);
            n.a.rc.postSend(new SendWr().wrId(i).opcode(WrOpcode.RDMA_READ).signaled(true)
                .sge(n.a.pool, 1 << 20, len).rdma(n.b.pool.address() + (2 << 20), n.b.pool.rkey()));
            assertEquals(len, TwoTcaNodes.poll(n.a.cq).byteLen());
            assertArrayEquals(data, read(ap, 1 << 20, len), "READ " + i);
          }
          default -> {
            n.a.rc.postSend(new SendWr().wrId(i).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                .sge(n.a.pool, 64, 8).atomic(n.b.pool.address() + counter, n.b.pool.rkey(), 1, 0));
            TwoTcaNodes.poll(n.a.cq);
            assertTrue(olds.add(ap.order(ByteOrder.LITTLE_ENDIAN).getLong(64)), "a FETCH_ADD result repeated");
            adds++;
          }
        }
      }
      assertEquals(adds, bp.getLong(counter), "each FETCH_ADD added exactly once");
      Peach2Counters.Snapshot ca = n.a.board();
      Peach2Counters.Snapshot cb = n.b.board();
      assertTrue(ca.link(Link.REPLAYS) + cb.link(Link.REPLAYS) > 0, "replays: " + ca.link() + " / " + cb.link());
      assertTrue(ca.link(Link.LCRC_ERRORS) + cb.link(Link.LCRC_ERRORS) > 0, "LCRC errors");
      assertTrue(ca.link(Link.DUPLICATES) + cb.link(Link.DUPLICATES) > 0, "duplicates discarded");
      assertTrue(ca.link(Link.NAKS_SENT) + cb.link(Link.NAKS_SENT) > 0, "Naks");
      assertEquals(0, ca.link(Link.DOWNS) + cb.link(Link.DOWNS));
      assertEquals(0.0, counter(n, "verbs4j.tca.verbs.timeouts", n.a.lid()), "TCA Verbs never saw a loss");
    }
  }

  @Test
  void aLinkDownForLongerThanTheLinkTimeoutEndsTheQpsInErrorNeverAHang() throws Exception {
    // timeout 10 (4.2 ms) × retry_cnt 7: the requester gives up after ~34 ms of silence
    try (TwoTcaNodes n = new TwoTcaNodes(10)) {
      n.a.rc.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).signaled(true).sge(n.a.pool, 0, 64)
          .rdma(n.b.pool.address(), n.b.pool.rkey()));
      assertEquals(WcStatus.SUCCESS, pollAny(n.a.cq).status());
      LinkFaults ab = n.fabric().faults().link(n.a.lid(), n.b.lid()).down();
      LinkFaults ba = n.fabric().faults().link(n.b.lid(), n.a.lid()).down();
      for (int i = 2; i <= 4; i++) {
        n.a.rc.postSend(new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).signaled(true).sge(n.a.pool, 0, 64)
            .rdma(n.b.pool.address(), n.b.pool.rkey()));
      }
      WorkCompletion first = pollAny(n.a.cq);
      assertEquals(2, first.wrId());
      assertEquals(WcStatus.RETRY_EXC_ERR, first.status());
      for (int i = 3; i <= 4; i++) {
        WorkCompletion wc = pollAny(n.a.cq);
        assertEquals(i, wc.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, wc.status());
      }
      assertEquals(QpState.ERR, n.a.rc.query().qpState());
      // the link layer gives up on the path after its link-down timeout (5 s on the wall clock),
      // discards what it held and probes for the partner
      DataLinkLayer dl = n.a.tca().board().dataLink();
      long deadline = System.nanoTime() + 20_000_000_000L;
      while (n.a.board().link(Link.DOWNS) == 0 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertEquals(1, n.a.board().link(Link.DOWNS));
      assertEquals(DataLinkLayer.State.INIT, dl.state(n.b.lid()));
      assertTrue(n.a.board().link(Link.REPLAY_TIMEOUTS) > 0);
      assertEquals(0, dl.unacknowledgedTlps(n.b.lid()), "the replay buffer was released");
      // when the path is back, the handshake restarts both ends of the link
      ab.up();
      ba.up();
      deadline = System.nanoTime() + 20_000_000_000L;
      while (dl.state(n.b.lid()) != DataLinkLayer.State.ACTIVE && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertEquals(DataLinkLayer.State.ACTIVE, dl.state(n.b.lid()));
      assertEquals(1, n.a.board().link(Link.INITS));
      assertEquals(QpState.ERR, n.a.rc.query().qpState(), "the QP stays in error");
    }
  }

  private static double counter(TwoTcaNodes n, String name, int node) {
    return n.registry.get(name).tag("node", Integer.toString(node)).functionCounter().count();
  }

  private static byte[] read(ByteBuffer mem, int off, int len) {
    byte[] out = new byte[len];
    mem.get(off, out);
    return out;
  }
}
