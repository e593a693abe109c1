package io.github.verbs4j.examples.mp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.verbs4j.examples.common.RcAddress;
import io.github.verbs4j.examples.common.RcConnector;
import io.github.verbs4j.examples.testing.InJvmJob;
import io.github.verbs4j.examples.testing.Loopback;
import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.VerbsException;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import io.github.verbs4j.verbs.spi.AbstractContext;
import io.github.verbs4j.verbs.spi.MemoryAccount;
import io.github.verbs4j.verbs.spi.MemoryComponent;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link RingPool}: a closed link's ring is reused only once its QP is destroyed, at most the bound
 * is kept, spares stay counted, and a late RDMA WRITE with the ring's keys never lands in it.
 */
class RingPoolTest {
  private static final long RING = 8 * 1024;

  private static <T> T onIb(Loopback.RankBody<T> body) throws Exception {
    List<T> r = InJvmJob.on("ib", 1, Map.of(), body);
    return r.get(0);
  }

  @Test
  void aRingComesBackOnlyAfterItsQpIsDestroyedAndUpToTheBound() throws Exception {
    long[] got = onIb(ctx -> {
      MemoryAccount a = ((AbstractContext) ctx).memoryAccount();
      try (ProtectionDomain pd = ctx.allocPd()) {
        RingPool pool = new RingPool(pd, new MpMemory(ctx), RING, 1);
        RingPool.Ring first = pool.take();
        RingPool.Ring second = pool.take();
        RingPool.Ring third = pool.take();
        pool.give(first, false); // its QP may still receive into it: deregistered, not kept
        assertThrows(VerbsException.class, () -> first.mr().buffer());
        pool.give(second, true);
        pool.give(third, true); // beyond the bound of one
        assertThrows(VerbsException.class, () -> third.mr().buffer());
        long held = a.bytes(MemoryComponent.MP_BUFFERS);
        RingPool.Ring again = pool.take();
        assertSame(second, again, "the spare, registration and all");
        long allocated = pool.allocated();
        pool.give(again, true);
        pool.close();
        assertThrows(VerbsException.class, () -> second.mr().buffer());
        return new long[] {held, allocated, pool.spares(), a.bytes(MemoryComponent.MP_BUFFERS)};
      }
    });
    assertEquals(RING, got[0], "the spare is counted");
    assertEquals(3, got[1], "no registration for the reuse");
    assertEquals(0, got[2]);
    assertEquals(0, got[3], "nothing counted once the pool is closed");
  }

  @Test
  void aRingWithRemoteAccessIsNeverKept() throws Exception {
    boolean kept = onIb(ctx -> {
      try (ProtectionDomain pd = ctx.allocPd()) {
        RingPool pool = new RingPool(pd, new MpMemory(ctx), RING, 4);
        MemoryRegion mr = pd.allocateMemory(RING, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        pool.give(new RingPool.Ring(mr, mr.buffer()), true);
        return pool.spares() > 0;
      }
    });
    assertEquals(false, kept, "its rkey may be in a peer's hands");
  }

  /**
   * A peer's RDMA WRITE with the ring's rkey, before the ring goes back to the pool and after it is
   * reused (the old epoch's keys, which reuse keeps): both fail with a remote access error and the
   * ring is untouched.
   */
  @Test
  void aLateRdmaWriteWithTheRingsKeysNeverLandsInIt() throws Exception {
    WcStatus[] got = onIb(ctx -> {
      try (ProtectionDomain pd = ctx.allocPd();
          CompletionQueue cq = ctx.createCq(16, null, 0)) {
        RingPool pool = new RingPool(pd, new MpMemory(ctx), RING, 1);
        RingPool.Ring ring = pool.take();
        int rkey = ring.mr().rkey();
        long addr = ring.mr().iova();
        MemoryRegion src = pd.allocateMemory(64, EnumSet.of(Access.LOCAL_WRITE));
        src.buffer().put(0, (byte) 0x5a);
        WcStatus[] status = new WcStatus[2];
        for (int epoch = 0; epoch < 2; epoch++) {
          QueuePair owner = newQp(pd, cq); // the link's QP on the ring's side
          QueuePair writer = newQp(pd, cq);
          connect(ctx, owner, writer);
          SendWr w = new SendWr().wrId(epoch).opcode(WrOpcode.RDMA_WRITE).sge(src, 0, 64).rdma(addr, rkey)
              .signaled(true);
          writer.postSend(w);
          status[epoch] = waitFor(cq);
          writer.close();
          owner.close();
          assertEquals(0, ring.view().get(0), "epoch " + epoch + ": the ring is untouched");
          pool.give(ring, true);
          RingPool.Ring next = pool.take();
          assertSame(ring, next, "the same memory and keys for the next link");
        }
        pool.give(ring, true);
        pool.close();
        src.close();
        return status;
      }
    });
    assertEquals(WcStatus.REM_ACCESS_ERR, got[0]);
    assertEquals(WcStatus.REM_ACCESS_ERR, got[1]);
  }

  private static QueuePair newQp(ProtectionDomain pd, CompletionQueue cq) {
    QueuePair qp = pd.createQp(QpInitAttr.builder(QpType.RC).cq(cq)
        .cap(QpCap.builder().maxSendWr(4).maxRecvWr(4).maxRecvSge(1).build()).build());
    RcConnector.toInit(qp); // remote write allowed on the QP: only the ring's registration refuses it
    return qp;
  }

  private static void connect(Context ctx, QueuePair a, QueuePair b) {
    int lid = ctx.queryPort(1).lid();
    int mtu = ctx.queryPort(1).activeMtu().bytes();
    RcAddress aa = new RcAddress(lid, a.qpNum(), 100, 0, 0, 1, mtu);
    RcAddress bb = new RcAddress(lid, b.qpNum(), 200, 0, 0, 1, mtu);
    RcConnector.connect(a, aa, bb, 1, 1);
    RcConnector.connect(b, bb, aa, 1, 1);
  }

  private static WcStatus waitFor(CompletionQueue cq) {
    WorkCompletion[] wc = {new WorkCompletion()};
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (cq.poll(wc) == 0) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no completion in 5 s");
      }
      Thread.onSpinWait();
    }
    return wc[0].status();
  }
}
