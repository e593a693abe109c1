package io.github.verbs4j.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.verbs4j.fabric.DropReason;
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
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;

/**
 * {@code verbs.ib.icrc} against corruption on the deterministic in-JVM fabric: whatever the mode,
 * and also when corruption is switched on in the middle of a stream, RC delivers every message
 * byte-exact — a corrupted packet is either caught by its ICRC or, sent without one, lost by the
 * fabric (never delivered with flipped bits) and retransmitted.
 */
class IcrcModeTest {
  private static final int MESSAGES = 400;
  private static final int MAX_SIZE = 20_000;
  private static final int DEPTH = 8;

  private static byte pattern(int msg, int i) {
    int x = msg * 0x9E3779B9 + i * 0x85EBCA6B;
    return (byte) (x ^ x >>> 15);
  }

  /** Streams {@link #MESSAGES} SENDs a to b, calling {@code beforeMessage} before each post. */
  private static void stream(TwoNodes n, IntConsumer beforeMessage) throws Exception {
    LocalFabric fabric = ((LocalNode) ((IbContext) n.a).fabricNode()).fabric();
    CompletionQueue cqA = n.a.createCq(4 * DEPTH, null, 0);
    CompletionQueue cqB = n.b.createCq(4 * DEPTH, null, 0);
    QueuePair qa = n.qp(n.pdA, QpType.RC, cqA, QpCap.builder().maxSendWr(DEPTH).maxRecvWr(1).build());
    QueuePair qb = n.qp(n.pdB, QpType.RC, cqB, QpCap.builder().maxSendWr(1).maxRecvWr(DEPTH).build());
    MemoryRegion src = n.pdA.allocateMemory((long) DEPTH * MAX_SIZE, TwoNodes.ALL);
    MemoryRegion dst = n.pdB.allocateMemory((long) DEPTH * MAX_SIZE, TwoNodes.ALL);
    try {
      n.connect(qa, n.a, qb, n.b, 0x100, 0x200, Mtu.MTU_1024, 8, 7, 7, 1, 4);
      SplittableRandom r = new SplittableRandom(11);
      int[] sizeOf = new int[MESSAGES];
      for (int i = 0; i < MESSAGES; i++) {
        sizeOf[i] = r.nextInt(MAX_SIZE + 1);
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
      for (int rounds = 0; received < MESSAGES; rounds++) {
        if (rounds > 100 * MESSAGES) {
          fail("stuck at " + received + " of " + MESSAGES + " messages");
        }
        while (recvPosted < MESSAGES && recvPosted - received < DEPTH) {
          qb.postRecv(rwr.wrId(recvPosted).sge(dst, (long) (recvPosted % DEPTH) * MAX_SIZE, MAX_SIZE));
          recvPosted++;
        }
        while (posted < MESSAGES && posted - sent < DEPTH) {
          beforeMessage.accept(posted);
          int base = (posted % DEPTH) * MAX_SIZE;
          for (int i = 0; i < sizeOf[posted]; i++) {
            s.put(base + i, pattern(posted, i));
          }
          qa.postSend(swr.wrId(posted).opcode(WrOpcode.SEND).signaled(true).sge(src, base, sizeOf[posted]));
          posted++;
        }
        fabric.runUntilIdle();
        int k;
        while ((k = cqA.poll(wcs)) > 0) {
          for (int j = 0; j < k; j++) {
            assertEquals(WcStatus.SUCCESS, wcs[j].status(), "send " + wcs[j]);
            sent++;
          }
        }
        while ((k = cqB.poll(wcs)) > 0) {
          for (int j = 0; j < k; j++) {
            WorkCompletion wc = wcs[j];
            assertEquals(WcStatus.SUCCESS, wc.status(), "recv " + wc);
            int msg = (int) wc.wrId();
            assertEquals(received, msg, "in order");
            assertEquals(sizeOf[msg], wc.byteLen(), "length of message " + msg);
            int base = (msg % DEPTH) * MAX_SIZE;
            for (int i = 0; i < sizeOf[msg]; i++) {
              if (d.get(base + i) != pattern(msg, i)) {
                fail("message " + msg + " byte " + i + " differs");
              }
            }
            received++;
          }
        }
      }
      fabric.runUntilIdle();
      assertEquals(0, cqB.poll(wcs), "no message arrives twice");
    } finally {
      TwoNodes.closeAll(qa, qb, src, dst, cqA, cqB, n.pdA, n.pdB);
    }
  }

  private static TwoNodes nodes(String icrc, String corrupt) {
    Map<String, String> m = new HashMap<>();
    m.put("verbs.ib.icrc", icrc);
    m.put("verbs.fault.seed", "20261125");
    if (corrupt != null) {
      m.put("verbs.fault.corrupt", corrupt);
    }
    return TwoNodes.deterministic(m);
  }

  private static long counter(io.github.verbs4j.verbs.Context c, Counter k) {
    return ((IbContext) c).counters().get(k);
  }

  private static LocalFabric fabric(TwoNodes n) {
    return ((LocalNode) ((IbContext) n.a).fabricNode()).fabric();
  }

  @Test
  void autoTurnsTheIcrcOnWhenCorruptionIsSwitchedOnMidStream() throws Exception {
    try (TwoNodes n = nodes("auto", null)) {
      LocalFabric f = fabric(n);
      int a = n.lid(n.a);
      int b = n.lid(n.b);
      stream(n, msg -> {
        if (msg == MESSAGES / 2) {
          f.faults().link(a, b).corruptRate(0.05);
          f.faults().link(b, a).corruptRate(0.05);
        }
      });
      assertTrue(counter(n.b, Counter.CRC_DROPS) > 0, "corrupted requests caught by their ICRC");
      assertTrue(counter(n.a, Counter.RETRANSMITS) > 0, "and sent again");
    }
  }

  @Test
  void withoutCorruptionEveryModeDeliversAndDropsNothing() throws Exception {
    for (String mode : new String[] {"auto", "on", "off"}) {
      try (TwoNodes n = nodes(mode, null)) {
        stream(n, msg -> {});
        assertEquals(0, counter(n.b, Counter.CRC_DROPS), mode);
        assertEquals(0, fabric(n).metrics().totalDrops(), mode);
      }
    }
  }

  @Test
  void onCatchesCorruptionWithItsIcrc() throws Exception {
    try (TwoNodes n = nodes("on", "0.05")) {
      stream(n, msg -> {});
      assertTrue(counter(n.b, Counter.CRC_DROPS) > 0, "requests");
      assertTrue(counter(n.a, Counter.CRC_DROPS) > 0, "acknowledgements");
      assertEquals(0, fabric(n).metrics().drops(DropReason.UNCHECKED_CORRUPT));
    }
  }

  @Test
  void offLosesTheFramesFaultInjectionWouldCorruptAndRcRecoversThem() throws Exception {
    try (TwoNodes n = nodes("off", "0.05")) {
      stream(n, msg -> {});
      assertEquals(0, counter(n.a, Counter.CRC_DROPS) + counter(n.b, Counter.CRC_DROPS), "nothing unchecked arrives");
      assertTrue(fabric(n).metrics().drops(DropReason.UNCHECKED_CORRUPT) > 0, "frames lost instead");
      assertTrue(counter(n.a, Counter.RETRANSMITS) > 0, "and sent again");
    }
  }
}
