package io.github.verbs4j.examples.mp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.spi.AbstractContext;
import io.github.verbs4j.verbs.spi.MemoryAccount;
import io.github.verbs4j.verbs.spi.MemoryComponent;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The hybrid strategy (seed 003 §3.3, §3.5): a heavy source moves from the DC channel to an RC link
 * and a light one stays on DC; messages crossing the switch arrive whole and in MPI order; no rank
 * holds more RC links than its cap. On tca (no DC) every case is skipped by capability.
 */
class HybridConnectionsTest {
  private static final int EAGER = 512;
  private static final MpConfig BASE = MpConfig.defaults().withEagerLimit(EAGER).withSlots(8)
      .withTimeout(Duration.ofSeconds(120));

  private static MpConfig hybrid(int threshold, int rcLinks) {
    return BASE.withHybrid(new MpConfig.Hybrid(threshold, Duration.ofSeconds(60), rcLinks));
  }

  private static byte pattern(int from, int to, int i, int k) {
    return (byte) (from * 31 + to * 7 + i * 13 + k);
  }

  /** A rank's links and one of its meters. */
  private record Seen(HybridStats stats, long meter) {}

  @ParameterizedTest
  @EnumSource(value = MpJob.class, names = {"IB_HYBRID", "TCA_HYBRID"})
  void aHeavySourceMovesToRcAndALightOneStaysOnDc(MpJob job) throws Exception {
    MpConfig cfg = hybrid(16, 4);
    List<Seen> got = job.run(3, ctx -> {
      MemoryAccount account = ((AbstractContext) ctx).memoryAccount();
      try (VerbsCommunicator comm = job.open(ctx, cfg)) {
        int me = comm.rank();
        int count = me == 1 ? 40 : 3; // rank 1 is heavy towards rank 0, rank 2 light
        ByteBuffer b = ByteBuffer.allocate(4);
        if (me == 0) {
          for (int from = 1; from <= 2; from++) {
            for (int i = 0; i < (from == 1 ? 40 : 3); i++) {
              comm.recv(b, from, 1);
              assertEquals(i, b.getInt(0), "message " + i + " from rank " + from);
            }
          }
        } else {
          for (int i = 0; i < count; i++) {
            comm.send(ByteBuffer.allocate(4).putInt(0, i), 0, 1);
          }
        }
        comm.barrier();
        return new Seen(comm.hybridStats(), account.bytes(MemoryComponent.QP));
      }
    });
    HybridStats r0 = got.get(0).stats();
    assertTrue(r0.onRc(1), "rank 0 moved the heavy rank 1 to RC: " + r0);
    assertFalse(r0.onRc(2), "rank 0 kept the light rank 2 on DC");
    assertEquals(1, r0.rcLinks());
    assertEquals(1, r0.dcPeers(), "rank 2 on DC");
    assertTrue(got.get(1).stats().onRc(0), "rank 1 was asked and moved too");
    assertEquals(0, got.get(2).stats().rcLinks());
    long oneRcQp = MpFootprint.predict(3, 2, job.config(cfg), 1).get(MemoryComponent.QP);
    assertTrue(oneRcQp > 0);
    assertEquals(oneRcQp, got.get(0).meter(), "the meters show one RC QP on rank 0");
    assertEquals(oneRcQp, got.get(1).meter(), "and on rank 1");
    assertEquals(0, got.get(2).meter(), "and none on rank 2");
  }

  @ParameterizedTest
  @EnumSource(value = MpJob.class, names = {"IB_HYBRID", "TCA_HYBRID"})
  void messagesCrossingTheSwitchArriveWholeAndInOrderPerSourceAndTag(MpJob job) throws Exception {
    int count = 90;
    int[] sizes = {0, 7, EAGER, EAGER + 1, 20_000};
    int[] tagOrder = {2, 1, 3}; // receives are posted tag by tag, not in sending order
    for (MpConfig.Rendezvous mode : MpConfig.Rendezvous.values()) {
      MpConfig cfg = hybrid(10, 1).withRendezvous(mode);
      List<Seen> got = job.run(2, ctx -> {
        try (VerbsCommunicator comm = job.open(ctx, cfg)) {
          int me = comm.rank();
          int peer = 1 - me;
          List<Request> recvs = new ArrayList<>();
          List<ByteBuffer> bufs = new ArrayList<>();
          List<Integer> index = new ArrayList<>();
          for (int tag : tagOrder) {
            for (int i = 0; i < count; i++) {
              if (1 + i % 3 == tag) {
                ByteBuffer in = ByteBuffer.allocate(sizes[i % sizes.length] + 4);
                bufs.add(in);
                index.add(i);
                recvs.add(comm.irecv(in, peer, tag));
              }
            }
          }
          List<Request> sends = new ArrayList<>();
          for (int i = 0; i < count; i++) {
            int size = sizes[i % sizes.length];
            ByteBuffer out = ByteBuffer.allocate(size + 4).putInt(0, i);
            for (int k = 0; k < size; k++) {
              out.put(4 + k, pattern(me, peer, i, k));
            }
            sends.add(comm.isend(out, peer, 1 + i % 3));
            if (i % 7 == 0) {
              comm.waitAll(sends.toArray(Request[]::new)); // paces the flood so that the switch falls inside it
            }
          }
          comm.waitAll(recvs.toArray(Request[]::new));
          comm.waitAll(sends.toArray(Request[]::new));
          for (int j = 0; j < recvs.size(); j++) {
            int i = index.get(j);
            int size = sizes[i % sizes.length];
            assertEquals(new Status(peer, 1 + i % 3, size + 4), recvs.get(j).status());
            ByteBuffer in = bufs.get(j);
            assertEquals(i, in.getInt(0), "message " + j + " of its tag from rank " + peer + " is out of order");
            for (int k = 0; k < size; k++) {
              assertEquals(pattern(peer, me, i, k), in.get(4 + k), "byte " + k + " of message " + i);
            }
          }
          return new Seen(comm.hybridStats(), 0);
        }
      });
      for (int r = 0; r < 2; r++) {
        HybridStats st = got.get(r).stats();
        assertTrue(st.onRc(1 - r), mode + ": rank " + r + " moved to RC: " + st);
        assertEquals(0, st.refusals(), mode + ": both asked at once, one answered");
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = MpJob.class, names = {"IB_HYBRID", "TCA_HYBRID"})
  void aHeavySourceBeyondTheCapWritesIntoARingWithRdmaOverDcWholeAndInOrder(MpJob job) throws Exception {
    int[] sizes = {0, 7, EAGER, EAGER + 1, 20_000};
    int first = 60;
    int second = 30; // sent after the source has seen the ring's offer: all of them go into the ring
    for (MpConfig.Rendezvous mode : MpConfig.Rendezvous.values()) {
      MpConfig cfg = hybrid(8, 1).withRendezvous(mode);
      List<Seen> got = job.run(3, ctx -> {
        MemoryAccount account = ((AbstractContext) ctx).memoryAccount();
        try (VerbsCommunicator comm = job.open(ctx, cfg)) {
          int me = comm.rank();
          if (me == 0) {
            receiveAll(comm, 0, first, sizes);
            for (int src = 1; src <= 2; src++) {
              comm.send(ByteBuffer.allocate(1), src, 99); // behind the offer on the same DCI
            }
            receiveAll(comm, first, second, sizes);
          } else {
            sendAll(comm, 0, first, sizes);
            comm.recv(ByteBuffer.allocate(1), 0, 99);
            sendAll(comm, first, second, sizes);
          }
          comm.barrier();
          return new Seen(comm.hybridStats(), account.bytes(MemoryComponent.MP_BUFFERS));
        }
      });
      HybridStats r0 = got.get(0).stats();
      assertEquals(1, r0.rcLinks(), mode + ": one source on RC, the cap: " + r0);
      assertEquals(1, r0.ringsGiven(), mode + ": the other writes into a ring: " + r0);
      int ringSource = r0.onRc(1) ? 2 : 1;
      assertEquals(1, got.get(ringSource).stats().ringsUsed(), mode + ": rank " + ringSource + " writes into it");
      assertEquals(0, got.get(3 - ringSource).stats().ringsUsed());
      long predicted = MpFootprint.predictHybrid(3, 2, job.config(cfg), 1, 1).get(MemoryComponent.MP_BUFFERS);
      assertEquals(predicted, got.get(0).meter(), mode + ": rank 0's buffers: pools, an RC ring and a DC RDMA ring");
    }
  }

  private static void sendAll(VerbsCommunicator comm, int from, int count, int[] sizes) {
    int me = comm.rank();
    List<Request> sends = new ArrayList<>();
    for (int i = from; i < from + count; i++) {
      int size = sizes[i % sizes.length];
      ByteBuffer out = ByteBuffer.allocate(size + 4).putInt(0, i);
      for (int k = 0; k < size; k++) {
        out.put(4 + k, pattern(me, 0, i, k));
      }
      sends.add(comm.isend(out, 0, 1 + i % 3));
    }
    comm.waitAll(sends.toArray(Request[]::new));
  }

  /** Receives messages {@code from} .. from + count - 1 of ranks 1 and 2, tag by tag, and checks order and bytes. */
  private static void receiveAll(VerbsCommunicator comm, int from, int count, int[] sizes) {
    List<Request> recvs = new ArrayList<>();
    List<ByteBuffer> bufs = new ArrayList<>();
    List<int[]> what = new ArrayList<>();
    for (int tag = 3; tag >= 1; tag--) {
      for (int src = 1; src <= 2; src++) {
        for (int i = from; i < from + count; i++) {
          if (1 + i % 3 == tag) {
            ByteBuffer in = ByteBuffer.allocate(sizes[i % sizes.length] + 4);
            bufs.add(in);
            what.add(new int[] {src, i});
            recvs.add(comm.irecv(in, src, tag));
          }
        }
      }
    }
    comm.waitAll(recvs.toArray(Request[]::new));
    for (int j = 0; j < recvs.size(); j++) {
      int src = what.get(j)[0];
      int i = what.get(j)[1];
      int size = sizes[i % sizes.length];
      assertEquals(new Status(src, 1 + i % 3, size + 4), recvs.get(j).status());
      assertEquals(i, bufs.get(j).getInt(0), "message from rank " + src + " out of order");
      for (int k = 0; k < size; k++) {
        assertEquals(pattern(src, 0, i, k), bufs.get(j).get(4 + k), "byte " + k + " of message " + i + " from " + src);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = MpJob.class, names = {"IB_HYBRID", "TCA_HYBRID"})
  void noRankHoldsMoreRcLinksThanItsCap(MpJob job) throws Exception {
    int n = 5;
    int cap = 2;
    int rounds = 12;
    MpConfig cfg = hybrid(4, cap);
    List<Seen> got = job.run(n, ctx -> {
      MemoryAccount account = ((AbstractContext) ctx).memoryAccount();
      try (VerbsCommunicator comm = job.open(ctx, cfg)) {
        int me = comm.rank();
        ByteBuffer in = ByteBuffer.allocate(64);
        for (int round = 0; round < rounds; round++) {
          for (int k = 1; k < n; k++) {
            int to = (me + k) % n;
            int from = (me - k + n) % n;
            ByteBuffer out = ByteBuffer.allocate(64);
            for (int i = 0; i < 64; i++) {
              out.put(i, pattern(me, to, round, i));
            }
            comm.waitAll(comm.irecv(in, from, k), comm.isend(out, to, k));
            for (int i = 0; i < 64; i++) {
              assertEquals(pattern(from, me, round, i), in.get(i), "byte " + i + " from " + from + " round " + round);
            }
          }
        }
        comm.barrier();
        return new Seen(comm.hybridStats(), account.bytes(MemoryComponent.QP));
      }
    });
    long oneRcQp = MpFootprint.predict(n, n - 1, job.config(cfg), 1).get(MemoryComponent.QP);
    long total = 0; // switches completed
    long given = 0;
    long used = 0;
    for (int r = 0; r < n; r++) {
      HybridStats st = got.get(r).stats();
      assertTrue(st.rcLinks() <= cap, "rank " + r + " holds " + st.rcLinks() + " RC links, cap " + cap);
      assertEquals(n - 1 - st.rcLinks(), st.dcPeers(), "rank " + r + ": the other peers stay on DC");
      assertEquals(st.rcLinks() * oneRcQp, got.get(r).meter(), "rank " + r + ": RC QPs in the meters");
      assertTrue(st.rcLinks() + st.ringsGiven() <= n - 1, "rank " + r + ": RC or a ring, not both: " + st);
      total += st.switches();
      given += st.ringsGiven();
      used += st.ringsUsed();
    }
    assertTrue(total > 0, "some pairs moved to RC");
    assertTrue(used > 0 && used <= given, "heavy sources beyond the cap write into rings: " + used + " of " + given);
  }

  @ParameterizedTest
  @EnumSource(value = MpJob.class, names = {"IB_HYBRID", "TCA_HYBRID"})
  void floodsFromEveryRankToAnySourceReceivesKeepEachSourcesOrderThroughSwitchesAndRefusals(MpJob job)
      throws Exception {
    // every rank asks every other after 2 messages, each may hold 1 RC link: most are refused
    int n = 6;
    int count = 40;
    List<int[]> got = job.run(n, ctx -> {
      try (VerbsCommunicator comm = job.open(ctx, hybrid(2, 1))) {
        int me = comm.rank();
        List<Request> sends = new ArrayList<>();
        for (int i = 0; i < count; i++) {
          for (int to = 0; to < n; to++) {
            if (to != me) {
              sends.add(comm.isend(ByteBuffer.allocate(8).putInt(0, me).putInt(4, i), to, 5));
            }
          }
        }
        int[] next = new int[n + 2];
        ByteBuffer b = ByteBuffer.allocate(8);
        for (int m = 0; m < count * (n - 1); m++) {
          Status s = comm.recv(b, Communicator.ANY_SOURCE, 5);
          assertEquals(s.source(), b.getInt(0));
          assertEquals(next[s.source()]++, b.getInt(4), "order from rank " + s.source());
        }
        comm.waitAll(sends.toArray(Request[]::new));
        comm.barrier();
        HybridStats st = comm.hybridStats();
        next[n] = st.rcLinks();
        next[n + 1] = (int) st.refusals();
        return next;
      }
    });
    long refusals = 0;
    for (int r = 0; r < n; r++) {
      for (int from = 0; from < n; from++) {
        assertEquals(from == r ? 0 : count, got.get(r)[from], "rank " + r + " from " + from);
      }
      assertTrue(got.get(r)[n] <= 1, "rank " + r + " holds " + got.get(r)[n] + " RC links, cap 1");
      refusals += got.get(r)[n + 1];
    }
    assertTrue(refusals > 0, "with room for one RC link per rank, some switches were refused");
  }

  @ParameterizedTest
  @EnumSource(value = MpJob.class, names = {"IB_HYBRID", "TCA_HYBRID"})
  void aSwitchAskedForJustBeforeCloseIsSettledAndBothRanksClose(MpJob job) throws Exception {
    // the third message earns rank 1 an RC link: rank 0 asks while both are about to close
    for (int last = 0; last < 3; last++) {
      int extra = last;
      List<Integer> got = job.run(2, ctx -> {
        VerbsCommunicator comm = job.open(ctx, hybrid(3, 1));
        int sum = 0;
        ByteBuffer b = ByteBuffer.allocate(4);
        for (int i = 0; i < 3 + extra; i++) {
          if (comm.rank() == 1) {
            comm.send(ByteBuffer.allocate(4).putInt(0, i), 0, 1);
          } else {
            comm.recv(b, 1, 1);
            sum += b.getInt(0);
          }
        }
        comm.close(); // must neither hang nor fail with the switch under way or refused
        return sum;
      });
      assertEquals((2 + extra) * (3 + extra) / 2, got.get(0), "messages before close, " + (3 + extra) + " sent");
    }
  }

  @ParameterizedTest
  @EnumSource(value = MpJob.class, names = {"IB_HYBRID", "TCA_HYBRID"})
  void aSourceThatWentQuietMovesBackToDcForAHeavierOne(MpJob job) throws Exception {
    // windows of 1 ms: the history spans ~1 s, so a source quiet for 1.5 s counts nothing
    MpConfig cfg = BASE.withHybrid(new MpConfig.Hybrid(16, Duration.ofMillis(1), 1));
    List<HybridStats> got = job.run(3, ctx -> {
      try (VerbsCommunicator comm = job.open(ctx, cfg)) {
        int me = comm.rank();
        ByteBuffer b = ByteBuffer.allocate(64);
        exchange(comm, 1, 0, 1, 30); // rank 1 heavy towards rank 0: the pair moves to RC
        HybridStats before = comm.hybridStats();
        if (me < 2) {
          assertTrue(before.onRc(1 - me), "rank " + me + " on RC with its heavy peer: " + before);
        }
        comm.barrier();
        Thread.sleep(1500);
        if (me == 2) {
          for (int i = 0; i < 60; i++) { // rank 2 heavy: rank 0, at its cap, moves rank 1 back to DC
            comm.send(ByteBuffer.allocate(64).putInt(0, i), 0, 2);
          }
        } else if (me == 1) {
          for (int i = 0; i < 4; i++) { // across the move, both ways
            comm.send(ByteBuffer.allocate(64).putInt(0, 100 + i), 0, 3);
          }
          for (int i = 0; i < 4; i++) {
            comm.recv(b, 0, 4);
            assertEquals(200 + i, b.getInt(0), "message " + i + " of rank 0 across the move");
          }
        } else {
          for (int i = 0; i < 60; i++) {
            comm.recv(b, 2, 2);
            assertEquals(i, b.getInt(0), "message " + i + " of rank 2");
            if (i < 4) {
              comm.send(ByteBuffer.allocate(64).putInt(0, 200 + i), 1, 4);
            }
          }
          for (int i = 0; i < 4; i++) {
            comm.recv(b, 1, 3);
            assertEquals(100 + i, b.getInt(0), "message " + i + " of rank 1 across the move");
          }
        }
        comm.barrier();
        exchange(comm, 1, 0, 5, 10); // rank 1 again, now on the DC channel
        comm.barrier();
        return comm.hybridStats();
      }
    });
    HybridStats r0 = got.get(0);
    assertTrue(r0.onRc(2), "rank 0 moved the heavy rank 2 to RC: " + r0);
    assertFalse(r0.onRc(1), "and rank 1 back to DC: " + r0);
    assertEquals(1, r0.movesBack(), r0.toString());
    assertEquals(1, got.get(1).movesBack(), "rank 1 went back too: " + got.get(1));
    assertEquals(0, got.get(1).rcLinks(), got.get(1).toString());
    assertTrue(got.get(2).onRc(0), got.get(2).toString());
  }

  /** {@code count} messages from {@code from} to {@code to} with tag {@code tag}, checked in order. */
  private static void exchange(VerbsCommunicator comm, int from, int to, int tag, int count) {
    ByteBuffer b = ByteBuffer.allocate(64);
    for (int i = 0; i < count; i++) {
      if (comm.rank() == from) {
        comm.send(ByteBuffer.allocate(64).putInt(0, i), to, tag);
      } else if (comm.rank() == to) {
        comm.recv(b, from, tag);
        assertEquals(i, b.getInt(0), "message " + i + " with tag " + tag);
      }
    }
  }

  @Test
  void badHybridSettingsAreRefusedByName() {
    assertEquals("hybrid threshold=0 must be at least 1", assertThrows(IllegalArgumentException.class,
        () -> new MpConfig.Hybrid(0, Duration.ofSeconds(1), 1)).getMessage());
    assertEquals("hybrid interval=PT0S must be positive", assertThrows(IllegalArgumentException.class,
        () -> new MpConfig.Hybrid(1, Duration.ZERO, 1)).getMessage());
    assertEquals("hybrid rcLinks=-1 must be between 0 and 65535", assertThrows(IllegalArgumentException.class,
        () -> new MpConfig.Hybrid(1, Duration.ofSeconds(1), -1)).getMessage());
    assertEquals("hybrid ppn=0 must be between 1 and 1024", assertThrows(IllegalArgumentException.class,
        () -> new MpConfig.Hybrid(1, Duration.ofSeconds(1), 1, 0)).getMessage());
    assertEquals(Map.of("threshold", 64, "interval", Duration.ofSeconds(1), "rcLinks", 128),
        Map.of("threshold", MpConfig.Hybrid.defaults().threshold(), "interval",
            MpConfig.Hybrid.defaults().interval(), "rcLinks", MpConfig.Hybrid.defaults().rcLinks()));
  }
}
