package io.github.verbs4j.tca.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.fabric.testing.Async;
import io.github.verbs4j.tca.peach2.Peach2Counters;
import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AddressHandle;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * An 8-node sub-cluster of two rings of four (seed 001 §3.3): every node sends a UD message to
 * every other node through TCA Verbs; all 56 arrive with the sender's LID and payload, and no
 * frame crossed more than 3 links.
 */
class EightNodeRingsTest {
  private static final int N = 8;
  private static final int QKEY = 0x2222;

  @Test
  void everyPairOfTheEightNodesCommunicatesWithinThreeHops() {
    String job = UUID.randomUUID().toString();
    List<CompletableFuture<Context>> opening = new ArrayList<>();
    for (int r = 0; r < N; r++) {
      VerbsConfig c = VerbsConfig.of(Map.of("verbs.provider", "tca", "verbs.fabric", "local", "verbs.fabric.name",
          "eight-" + job, "verbs.topology", "peach2:rings=2,nodesPerRing=4", "verbs.rank", Integer.toString(r),
          "verbs.size", Integer.toString(N), "verbs.tca.job", job, "verbs.tca.pool-mb", "64"));
      opening.add(Async.supply(() -> Verbs.open(c)));
    }
    List<Context> ctx = new ArrayList<>();
    opening.forEach(f -> ctx.add(f.join()));
    List<AutoCloseable> close = new ArrayList<>();
    try {
      int[] lid = new int[N];
      QueuePair[] qp = new QueuePair[N];
      CompletionQueue[] cq = new CompletionQueue[N];
      CompletionQueue[] scq = new CompletionQueue[N];
      MemoryRegion[] mr = new MemoryRegion[N];
      ProtectionDomain[] pd = new ProtectionDomain[N];
      for (int i = 0; i < N; i++) {
        lid[i] = ctx.get(i).queryPort(1).lid();
        pd[i] = ctx.get(i).allocPd();
        cq[i] = ctx.get(i).createCq(64, null, 0);
        scq[i] = ctx.get(i).createCq(64, null, 0);
        mr[i] = pd[i].allocateMemory(64 * 1024, EnumSet.of(Access.LOCAL_WRITE));
        qp[i] = pd[i].createQp(QpInitAttr.builder(QpType.UD).sendCq(scq[i]).recvCq(cq[i])
            .cap(QpCap.builder().maxSendWr(16).maxRecvWr(16).build()).build());
        close.add(0, pd[i]);
        close.add(0, cq[i]);
        close.add(0, scq[i]);
        close.add(0, mr[i]);
        close.add(0, qp[i]);
        qp[i].modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(QKEY));
        qp[i].modify(new QpAttr().qpState(QpState.RTR));
        qp[i].modify(new QpAttr().qpState(QpState.RTS).sqPsn(0));
        for (int k = 0; k < N - 1; k++) {
          qp[i].postRecv(new RecvWr().wrId(k).sge(mr[i], k * 1024L, 1024));
        }
      }
      assertEquals(N, new HashSet<>(java.util.Arrays.stream(lid).boxed().toList()).size(), "distinct LIDs");
      for (int i = 0; i < N; i++) {
        ByteBuffer m = mr[i].buffer();
        m.put(32 * 1024, (byte) i);
        for (int j = 0; j < N; j++) {
          if (j == i) {
            continue;
          }
          try (AddressHandle ah = pd[i].createAh(AhAttr.lid(lid[j]))) {
            qp[i].postSend(new SendWr().wrId(j).opcode(WrOpcode.SEND).signaled(true).sge(mr[i], 32 * 1024L, 1)
                .ud(ah, qp[j].qpNum(), QKEY));
            assertEquals(WcStatus.SUCCESS, poll(scq[i]).status());
          }
        }
      }
      for (int j = 0; j < N; j++) {
        Set<Integer> from = new HashSet<>();
        for (int k = 0; k < N - 1; k++) {
          WorkCompletion wc = poll(cq[j]);
          assertEquals(WcStatus.SUCCESS, wc.status(), wc::toString);
          int sender = mr[j].buffer().get((int) wc.wrId() * 1024 + 40);
          assertEquals(lid[sender], wc.slid(), "source LID of the message from rank " + sender);
          from.add(sender);
        }
        assertEquals(N - 1, from.size(), "node of rank " + j + " heard from every other node");
      }
      for (Context c : ctx) {
        Peach2Counters.Snapshot s = ((TcaContext) c).board().counters().snapshot();
        assertTrue(s.framesSent() > 0);
        assertTrue(s.maxHops() <= 3, "a frame crossed " + s.maxHops() + " links");
      }
    } finally {
      for (AutoCloseable c : close) {
        try {
          c.close();
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      }
      ctx.forEach(Context::close);
    }
  }

  private static WorkCompletion poll(CompletionQueue cq) {
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
}
