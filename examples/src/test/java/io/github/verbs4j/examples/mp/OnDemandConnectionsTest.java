package io.github.verbs4j.examples.mp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * On-demand connections capped at γ: many ranks, few links, links closed and opened again while
 * messages of every protocol are in flight, and nothing lost, duplicated or changed; and receive
 * buffers shared by all links in one SRQ.
 */
class OnDemandConnectionsTest {
  private static final int EAGER = 512;
  private static final MpConfig CONFIG = MpConfig.defaults().withEagerLimit(EAGER).withSlots(8)
      .withStrategy(MpConfig.Strategy.ON_DEMAND).withGamma(2).withTimeout(Duration.ofSeconds(120));

  private static byte pattern(int from, int to, int round, int i) {
    return (byte) (from * 31 + to * 7 + round * 13 + i);
  }

  @ParameterizedTest
  @EnumSource(value = MpJob.class, names = {"IB_ON_DEMAND", "TCA_ON_DEMAND"})
  void everyPairExchangesIntactMessagesThroughTwoLinksPerRank(MpJob job) throws Exception {
    int n = 7;
    int rounds = 3;
    int[] sizes = {0, 100, EAGER, EAGER + 1, 20_000};
    List<long[]> got = job.run(n, ctx -> {
      try (VerbsCommunicator comm = VerbsCommunicator.open(ctx, CONFIG.withRendezvous(
          ctx.job().rank() % 2 == 0 ? MpConfig.Rendezvous.WRITE : MpConfig.Rendezvous.READ))) {
        int me = comm.rank();
        long checked = 0;
        for (int round = 0; round < rounds; round++) {
          for (int k = 1; k < n; k++) {
            int to = (me + k) % n;
            int from = (me - k + n) % n;
            int size = sizes[(round + k) % sizes.length];
            ByteBuffer out = ByteBuffer.allocate(size);
            for (int i = 0; i < size; i++) {
              out.put(i, pattern(me, to, round, i));
            }
            ByteBuffer in = ByteBuffer.allocate(size);
            Request r = comm.irecv(in, from, round * 100 + k);
            Request s = comm.isend(out, to, round * 100 + k);
            comm.waitAll(r, s);
            assertEquals(new Status(from, round * 100 + k, size), r.status());
            for (int i = 0; i < size; i++) {
              assertEquals(pattern(from, me, round, i), in.get(i), "byte " + i + " from " + from + " round " + round);
            }
            checked += size;
          }
        }
        LinkStats st = comm.linkStats();
        return new long[] {checked, st.peak(), st.opened(), st.evictions()};
      }
    });
    for (int r = 0; r < n; r++) {
      long[] g = got.get(r);
      assertTrue(g[1] <= 4, "rank " + r + " held " + g[1] + " links, more than 2 gamma");
      assertTrue(g[2] > 2 && g[3] > 0, "rank " + r + " opened " + g[2] + " links and closed " + g[3]);
    }
    long perRank = 0;
    for (int round = 0; round < rounds; round++) {
      for (int k = 1; k < n; k++) {
        perRank += sizes[(round + k) % sizes.length];
      }
    }
    for (long[] g : got) {
      assertEquals(perRank, g[0]);
    }
  }

  @Test
  void aTimedOutWaitReportsTheHandshakeStatesOfItsPeer() throws Exception {
    List<String> got = MpJob.IB_ON_DEMAND.run(2, ctx -> {
      int me = ctx.job().rank();
      try (VerbsCommunicator comm = VerbsCommunicator.open(ctx, CONFIG.withGamma(1)
          .withTimeout(Duration.ofSeconds(me == 0 ? 1 : 60)))) {
        ByteBuffer b = ByteBuffer.allocate(8);
        int other = 1 - me;
        comm.waitAll(comm.irecv(ByteBuffer.allocate(8), other, 1), comm.isend(b, other, 1));
        if (me == 1) {
          comm.wait(comm.irecv(ByteBuffer.allocate(8), 0, 3)); // once rank 0's wait has timed out
          return "";
        }
        MpException e = assertThrows(MpException.class, () -> comm.wait(comm.irecv(ByteBuffer.allocate(8), 1, 2)));
        comm.wait(comm.isend(b, 1, 3));
        return e.peer() + "|" + e.getMessage() + "|" + comm.connectionStates(1);
      }
    });
    String[] f = got.get(0).split("\\|");
    assertEquals("1", f[0]);
    assertTrue(f[1].contains("on-demand links 1 (gamma 1, accepting below 1, OPEN 1), retiring"), f[1]);
    assertTrue(f[1].contains("rank 1 OPEN epoch 0, queued 0"), f[1]);
    assertTrue(f[2].startsWith("links 1 ") && f[2].contains("waiting for room:; rank 1 OPEN epoch 0"), f[2]);
  }

  @ParameterizedTest
  @EnumSource(value = MpJob.class, names = {"IB_ON_DEMAND", "TCA_ON_DEMAND"})
  void floodsToEveryRankSurviveEvictionsInOrder(MpJob job) throws Exception {
    int n = 6;
    int count = 40;
    List<int[]> got = job.run(n, ctx -> {
      try (VerbsCommunicator comm = VerbsCommunicator.open(ctx, CONFIG)) {
        int me = comm.rank();
        List<Request> sends = new ArrayList<>();
        for (int i = 0; i < count; i++) {
          for (int to = 0; to < n; to++) {
            if (to != me) {
              sends.add(comm.isend(ByteBuffer.allocate(8).putInt(0, me).putInt(4, i), to, 5));
            }
          }
        }
        int[] next = new int[n];
        ByteBuffer b = ByteBuffer.allocate(8);
        for (int m = 0; m < count * (n - 1); m++) {
          Status s = comm.recv(b, Communicator.ANY_SOURCE, 5);
          assertEquals(s.source(), b.getInt(0));
          assertEquals(next[s.source()]++, b.getInt(4), "order from rank " + s.source());
        }
        comm.waitAll(sends.toArray(Request[]::new));
        return next;
      }
    });
    for (int r = 0; r < n; r++) {
      for (int from = 0; from < n; from++) {
        assertEquals(from == r ? 0 : count, got.get(r)[from], "rank " + r + " from " + from);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = MpJob.class, names = {"IB_BASELINE", "TCA_BASELINE"})
  void aSharedPoolSmallerThanTheCreditsLosesNothing(MpJob job) throws Exception {
    // 5 peers x 4 credits = 20 messages may be in flight to a rank, into 12 shared buffers: the rest wait in RNR
    int n = 6;
    int count = 60;
    MpConfig cfg = MpConfig.defaults().withEagerLimit(EAGER).withSlots(8).withSharedReceive(12)
        .withTimeout(Duration.ofSeconds(120));
    List<long[]> got = job.run(n, ctx -> {
      try (VerbsCommunicator comm = VerbsCommunicator.open(ctx, cfg)) {
        int me = comm.rank();
        List<Request> sends = new ArrayList<>();
        for (int i = 0; i < count; i++) {
          for (int to = 0; to < n; to++) {
            if (to != me) {
              ByteBuffer b = ByteBuffer.allocate(300);
              for (int k = 0; k < 300; k++) {
                b.put(k, pattern(me, to, i, k));
              }
              sends.add(comm.isend(b, to, i));
            }
          }
        }
        comm.barrier();
        long sum = 0;
        ByteBuffer in = ByteBuffer.allocate(300);
        for (int i = 0; i < count; i++) {
          for (int from = 0; from < n; from++) {
            if (from != me) {
              comm.recv(in, from, i);
              for (int k = 0; k < 300; k++) {
                assertEquals(pattern(from, me, i, k), in.get(k), "message " + i + " from " + from + " byte " + k);
              }
              sum += 300;
            }
          }
        }
        comm.waitAll(sends.toArray(Request[]::new));
        return new long[] {sum};
      }
    });
    for (long[] g : got) {
      assertEquals(300L * count * (n - 1), g[0]);
    }
  }

  @ParameterizedTest
  @EnumSource(value = MpJob.class, names = {"IB_ON_DEMAND", "TCA_ON_DEMAND"})
  void aKnownScheduleEvictsTheLinkUsedFurthestInTheFuture(MpJob job) throws Exception {
    int rounds = 10;
    int[] trace = new int[3 * rounds];
    for (int i = 0; i < trace.length; i++) {
      trace[i] = 1 + i % 3;
    }
    long[] opened = new long[2];
    for (int withSchedule = 0; withSchedule < 2; withSchedule++) {
      boolean known = withSchedule == 1;
      List<Long> got = job.run(4, ctx -> {
        try (VerbsCommunicator comm = VerbsCommunicator.open(ctx, CONFIG)) {
          if (comm.rank() != 0) {
            ByteBuffer b = ByteBuffer.allocate(4);
            for (int i = 0; i < rounds; i++) {
              comm.recv(b, 0, 1);
              assertEquals(i, b.getInt(0));
            }
            return 0L;
          }
          if (known) {
            comm.schedule(trace);
          }
          for (int i = 0; i < trace.length; i++) {
            comm.send(ByteBuffer.allocate(4).putInt(0, i / 3), trace[i], 1);
          }
          return comm.linkStats().opened();
        }
      });
      opened[withSchedule] = got.get(0);
    }
    // cyclic 1,2,3 with room for two: LRU misses every time; Belady misses every other time after the
    // first two. On tca about one run in seven opened one link more (LRU 31), on wall-clock timing
    // not yet understood (the 2026-11-27 closing note of issue 20): one extra open is tolerated, the
    // gap between the two policies is not
    assertTrue(opened[0] == 30 || opened[0] == 31, "LRU: " + opened[0]);
    assertTrue(opened[1] == 2 + 14 || opened[1] == 2 + 15, "furthest in the future: " + opened[1]);
    assertTrue(opened[0] - opened[1] >= 13, "Belady saves about half: " + opened[0] + " vs " + opened[1]);
  }
}
