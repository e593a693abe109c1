package io.github.verbs4j.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.verbs4j.fabric.local.LocalFabric;
import io.github.verbs4j.fabric.local.LocalNode;
import io.github.verbs4j.ib.engine.IbCounters.Counter;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.Mtu;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.SplittableRandom;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * RC reliability under injected faults: 5 % of frames dropped, 1 % duplicated, 5 % reordered, in
 * both directions, on the deterministic in-JVM fabric (modelled time, engine on the test thread,
 * so the run is reproducible and timeouts cost no wall time). Every message must arrive byte-exact,
 * in order and exactly once; FETCH_ADDs under the same faults must sum exactly.
 *
 * <p>The message count is {@code -Dverbs4j.ib.reliability.messages} (default 100,000). Netty's leak
 * detector runs at SIMPLE (sampling) here instead of the build's PARANOID, which records every
 * buffer access and makes this packet-heavy test ten times slower; it is restored afterwards.
 */
@Timeout(900)
class RcReliabilityTest {
  private static ResourceLeakDetector.Level leakLevel;

  @BeforeAll
  static void sampleLeaks() {
    leakLevel = ResourceLeakDetector.getLevel();
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE);
  }

  @AfterAll
  static void restoreLeaks() {
    ResourceLeakDetector.setLevel(leakLevel);
  }

  private static final int MESSAGES = Integer.getInteger("verbs4j.ib.reliability.messages", 100_000);
  private static final int MAX_SIZE = 1 << 20;
  private static final int DEPTH = 16;
  private static final Map<String, String> FAULTS = Map.of("verbs.fault.drop", "0.05", "verbs.fault.duplicate",
      "0.01", "verbs.fault.reorder", "0.05", "verbs.fault.seed", "20261122");

  /** Sizes from 0 B to 1 MiB: mostly small, some medium, a few large, and both ends for sure. */
  private static int size(SplittableRandom r, int i) {
    if (i == 0) {
      return 0;
    }
    if (i == 1) {
      return MAX_SIZE;
    }
    int k = r.nextInt(1000);
    if (k < 900) {
      return r.nextInt(4097);
    }
    if (k < 995) {
      return 4097 + r.nextInt(60_000);
    }
    return 65_536 + r.nextInt(MAX_SIZE - 65_536 + 1);
  }

  private static byte pattern(int msg, int i) {
    int x = msg * 0x9E3779B9 + i * 0x85EBCA6B;
    x ^= x >>> 15;
    return (byte) x;
  }

  @Test
  void messagesArriveByteExactInOrderExactlyOnceUnderDropDuplicateAndReorder() throws Exception {
    try (TwoNodes n = TwoNodes.deterministic(FAULTS)) {
      LocalFabric fabric = ((LocalNode) ((IbContext) n.a).fabricNode()).fabric();
      CompletionQueue cqA = n.a.createCq(4 * DEPTH, null, 0);
      CompletionQueue cqB = n.b.createCq(4 * DEPTH, null, 0);
      QueuePair qa = n.qp(n.pdA, QpType.RC, cqA, QpCap.builder().maxSendWr(DEPTH).maxRecvWr(1).build());
      QueuePair qb = n.qp(n.pdB, QpType.RC, cqB, QpCap.builder().maxSendWr(1).maxRecvWr(DEPTH).build());
      MemoryRegion src = n.pdA.allocateMemory((long) DEPTH * MAX_SIZE, TwoNodes.ALL);
      MemoryRegion dst = n.pdB.allocateMemory((long) DEPTH * MAX_SIZE, TwoNodes.ALL);
      try {
        // PSNs start near the 24-bit wrap; timeout 8 = ~1 ms modelled.
        n.connect(qa, n.a, qb, n.b, 0xFFFFF0, 0xFFFF00, Mtu.MTU_4096, 8, 7, 7, 1, 4);
        SplittableRandom sizes = new SplittableRandom(7);
        int[] sizeOf = new int[MESSAGES];
        for (int i = 0; i < MESSAGES; i++) {
          sizeOf[i] = size(sizes, i);
        }
        ByteBuffer s = src.buffer();
        ByteBuffer d = dst.buffer();
        SendWr swr = new SendWr();
        RecvWr rwr = new RecvWr();
        WorkCompletion[] wcs = WorkCompletion.array(4 * DEPTH);
        int posted = 0;
        int sent = 0;
        int received = 0;
        int recvPosted = 0;
        long bytes = 0;
        while (received < MESSAGES) {
          while (recvPosted < MESSAGES && recvPosted - received < DEPTH) {
            int slot = recvPosted % DEPTH;
            qb.postRecv(rwr.wrId(recvPosted).sge(dst, (long) slot * MAX_SIZE, MAX_SIZE));
            recvPosted++;
          }
          while (posted < MESSAGES && posted - sent < DEPTH) {
            int slot = posted % DEPTH;
            int len = sizeOf[posted];
            int base = slot * MAX_SIZE;
            for (int i = 0; i < len; i++) {
              s.put(base + i, pattern(posted, i));
            }
            qa.postSend(swr.wrId(posted).opcode(WrOpcode.SEND).signaled(true).sge(src, base, len));
            posted++;
          }
          fabric.runUntilIdle();
          int k;
          while ((k = cqA.poll(wcs)) > 0) {
            for (int j = 0; j < k; j++) {
              assertEquals(WcStatus.SUCCESS, wcs[j].status(), () -> "send " + wcs[0]);
              assertEquals(sent, wcs[j].wrId(), "send completions in order");
              sent++;
            }
          }
          while ((k = cqB.poll(wcs)) > 0) {
            for (int j = 0; j < k; j++) {
              WorkCompletion wc = wcs[j];
              assertEquals(WcStatus.SUCCESS, wc.status(), () -> "recv " + wc);
              assertEquals(WcOpcode.RECV, wc.opcode());
              int msg = (int) wc.wrId();
              assertEquals(received, msg, "receive completions in order");
              assertEquals(sizeOf[msg], wc.byteLen(), "length of message " + msg);
              int base = (msg % DEPTH) * MAX_SIZE;
              for (int i = 0; i < sizeOf[msg]; i++) {
                if (d.get(base + i) != pattern(msg, i)) {
                  fail("message " + msg + " byte " + i + " differs");
                }
              }
              bytes += sizeOf[msg];
              received++;
            }
          }
          if (posted == sent && received < recvPosted && posted == MESSAGES && received < MESSAGES) {
            fabric.runUntilIdle();
          }
        }
        fabric.runUntilIdle();
        assertEquals(0, cqB.poll(wcs), "no message arrives twice");
        assertEquals(MESSAGES, sent);
        IbContext ia = (IbContext) n.a;
        IbContext ib = (IbContext) n.b;
        System.out.printf("reliability: %d messages, %d bytes; retransmits=%d timeouts=%d seqNaks=%d dups=%d "
            + "stale=%d crc=%d%n", MESSAGES, bytes, ia.counters().get(Counter.RETRANSMITS),
            ia.counters().get(Counter.TIMEOUTS), ib.counters().get(Counter.SEQ_NAKS_SENT),
            ib.counters().get(Counter.DUPLICATE_REQUESTS), ia.counters().get(Counter.DROP_STALE_RESPONSE),
            ib.counters().get(Counter.CRC_DROPS));
        assertTrue(ia.counters().get(Counter.RETRANSMITS) > 0, "faults caused retransmissions");
        assertTrue(ib.counters().get(Counter.DUPLICATE_REQUESTS) > 0, "faults caused duplicates");
      } finally {
        TwoNodes.closeAll(qa, qb, src, dst, cqA, cqB, n.pdA, n.pdB);
      }
    }
  }

  @Test
  void fetchAddsUnderFaultsSumExactly() throws Exception {
    int ops = Math.max(1000, MESSAGES / 10);
    try (TwoNodes n = TwoNodes.deterministic(FAULTS)) {
      LocalFabric fabric = ((LocalNode) ((IbContext) n.a).fabricNode()).fabric();
      CompletionQueue cqA = n.a.createCq(256, null, 0);
      CompletionQueue cqB = n.b.createCq(256, null, 0);
      QueuePair qa = n.qp(n.pdA, QpType.RC, cqA, QpCap.builder().maxSendWr(64).maxRecvWr(1).build());
      QueuePair qb = n.qp(n.pdB, QpType.RC, cqB, QpCap.builder().maxSendWr(1).maxRecvWr(1).build());
      MemoryRegion res = n.pdA.allocateMemory(64 * 8, TwoNodes.ALL);
      MemoryRegion target = n.pdB.allocateMemory(64, TwoNodes.ALL);
      try {
        n.connect(qa, n.a, qb, n.b, 0xFFFFFA, 0x123, Mtu.MTU_1024, 8, 7, 7, 1, 16);
        SendWr wr = new SendWr();
        WorkCompletion[] wcs = WorkCompletion.array(256);
        long expected = 0;
        int posted = 0;
        int done = 0;
        java.util.Set<Long> seen = new java.util.HashSet<>();
        ByteBuffer r = res.buffer().order(ByteOrder.LITTLE_ENDIAN);
        while (done < ops) {
          while (posted < ops && posted - done < 48) {
            long add = posted + 1;
            qa.postSend(wr.wrId(posted).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                .sge(res, (posted % 64) * 8L, 8).atomic(target.address() + 16, target.rkey(), add, 0));
            expected += add;
            posted++;
          }
          fabric.runUntilIdle();
          int k;
          while ((k = cqA.poll(wcs)) > 0) {
            for (int j = 0; j < k; j++) {
              assertEquals(WcStatus.SUCCESS, wcs[j].status(), () -> "atomic " + wcs[0]);
              assertEquals(WcOpcode.FETCH_ADD, wcs[j].opcode());
              long orig = r.getLong((int) (wcs[j].wrId() % 64) * 8);
              assertTrue(seen.add(orig), "each FETCH_ADD saw a distinct original value: " + orig);
              done++;
            }
          }
        }
        long sum = target.buffer().order(ByteOrder.LITTLE_ENDIAN).getLong(16);
        assertEquals(expected, sum, "every FETCH_ADD applied exactly once");
        IbContext ib = (IbContext) n.b;
        System.out.printf("atomics: %d ops, sum %d, replays=%d dups=%d%n", ops, sum,
            ib.counters().get(Counter.REPLAYS), ib.counters().get(Counter.DUPLICATE_REQUESTS));
      } finally {
        TwoNodes.closeAll(qa, qb, res, target, cqA, cqB, n.pdA, n.pdB);
      }
    }
  }
}
