package io.github.verbs4j.examples.mp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.spi.AbstractContext;
import io.github.verbs4j.verbs.spi.MemoryAccount;
import io.github.verbs4j.verbs.spi.MemoryComponent;
import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The layer's rings and per-peer records in the context's {@code verbs4j.memory.bytes} account
 * ({@code mp-buffers}, {@code mp-peers}), against {@link MpFootprint}'s prediction, and nothing left
 * once the communicator is closed.
 */
class MpMemoryAccountingTest {
  private static final MpConfig CONFIG = MpConfig.defaults().withSlots(16).withEagerLimit(4056);

  private static Map<MemoryComponent, Long> snapshot(MemoryAccount a) {
    Map<MemoryComponent, Long> m = new EnumMap<>(MemoryComponent.class);
    for (MemoryComponent c : MemoryComponent.values()) {
      m.put(c, a.bytes(c));
    }
    return m;
  }

  @ParameterizedTest
  @EnumSource(value = MpJob.class, names = {"IB_BASELINE", "TCA_BASELINE"})
  void theBaselineHoldsARingAndARecordPerPeerAsPredicted(MpJob job) throws Exception {
    int n = 5;
    List<long[]> got = job.run(n, ctx -> {
      MemoryAccount a = ((AbstractContext) ctx).memoryAccount();
      long[] r = new long[6];
      try (VerbsCommunicator comm = job.open(ctx, CONFIG)) {
        Map<MemoryComponent, Long> m = snapshot(a);
        r[0] = m.get(MemoryComponent.MP_BUFFERS);
        r[1] = m.get(MemoryComponent.MP_PEERS);
        r[2] = m.get(MemoryComponent.QP);
        r[3] = m.get(MemoryComponent.MR);
      }
      r[4] = a.bytes(MemoryComponent.MP_BUFFERS) + a.bytes(MemoryComponent.MP_PEERS);
      r[5] = a.total() - a.bytes(MemoryComponent.CONTEXT);
      return r;
    });
    Map<MemoryComponent, Long> p = MpFootprint.predict(n, n - 1, job.config(CONFIG));
    for (long[] r : got) {
      assertEquals(4L * 2 * 16 * 4096, r[0], "rings: 4 peers x 2 x 16 x 4 KiB");
      assertEquals(p.get(MemoryComponent.MP_BUFFERS), r[0]);
      assertEquals(p.get(MemoryComponent.MP_PEERS), r[1]);
      assertEquals(p.get(MemoryComponent.MR), r[3]);
      assertTrue(Math.abs(r[2] - p.get(MemoryComponent.QP)) <= p.get(MemoryComponent.QP) / 20,
          "QPs " + r[2] + " against " + p.get(MemoryComponent.QP));
      assertEquals(0, r[4], "the layer's bytes go with the communicator");
      assertEquals(0, r[5], "and so does every verbs object it created");
    }
  }

  @ParameterizedTest
  @EnumSource(value = MpJob.class, names = {"IB_ON_DEMAND", "TCA_ON_DEMAND"})
  void onDemandHoldsRingsOnlyForOpenLinks(MpJob job) throws Exception {
    int n = 6;
    MpConfig cfg = CONFIG.withStrategy(MpConfig.Strategy.ON_DEMAND).withGamma(2);
    List<long[]> got = job.run(n, ctx -> {
      MemoryAccount a = ((AbstractContext) ctx).memoryAccount();
      long ring = 2L * 16 * 4096;
      try (VerbsCommunicator comm = VerbsCommunicator.open(ctx, cfg)) {
        long idle = a.bytes(MemoryComponent.MP_BUFFERS);
        int me = comm.rank();
        for (int k = 1; k < n; k++) {
          ByteBuffer in = ByteBuffer.allocate(8);
          comm.waitAll(comm.irecv(in, (me - k + n) % n, k), comm.isend(ByteBuffer.allocate(8), (me + k) % n, k));
        }
        long buffers = a.bytes(MemoryComponent.MP_BUFFERS) - idle;
        LinkStats st = comm.linkStats();
        return new long[] {idle, buffers, ring * (st.open() + st.retiring() + st.spares()),
            a.bytes(MemoryComponent.MP_PEERS)};
      }
    });
    for (long[] r : got) {
      assertEquals(ConnectionManagerBytes.CONTROL, r[0], "before any traffic: only the control buffers");
      assertEquals(r[2], r[1], "a ring per open link, per closed link not yet destroyed and per spare");
    }
  }

  @ParameterizedTest
  @EnumSource(value = MpJob.class, names = {"IB_BASELINE", "TCA_BASELINE"})
  void sharedReceiveBuffersReplaceTheReceiveHalfOfEveryRing(MpJob job) throws Exception {
    int n = 5;
    MpConfig cfg = CONFIG.withSharedReceive(64);
    List<long[]> got = job.run(n, ctx -> {
      MemoryAccount a = ((AbstractContext) ctx).memoryAccount();
      try (VerbsCommunicator comm = VerbsCommunicator.open(ctx, cfg)) {
        return new long[] {a.bytes(MemoryComponent.MP_BUFFERS), a.bytes(MemoryComponent.SRQ),
            a.bytes(MemoryComponent.QP)};
      }
    });
    Map<MemoryComponent, Long> p = MpFootprint.predict(n, n - 1, cfg);
    for (long[] r : got) {
      assertEquals(4L * 16 * 4096 + 64L * 4096, r[0], "send rings of 16 x 4 KiB per peer and 64 shared buffers");
      assertEquals(p.get(MemoryComponent.MP_BUFFERS), r[0]);
      assertEquals(p.get(MemoryComponent.SRQ), r[1]);
      assertTrue(Math.abs(r[2] - p.get(MemoryComponent.QP)) <= p.get(MemoryComponent.QP) / 20,
          "QPs " + r[2] + " against " + p.get(MemoryComponent.QP));
    }
  }

  @ParameterizedTest
  @EnumSource(value = MpJob.class, names = {"IB_DC", "TCA_DC"})
  void dcHoldsTwoInitiatorsAndATargetAndNoRcQueuePairs(MpJob job) throws Exception {
    int n = 5;
    List<Map<MemoryComponent, Long>> got = job.run(n, ctx -> {
      MemoryAccount a = ((AbstractContext) ctx).memoryAccount();
      try (VerbsCommunicator comm = job.open(ctx, CONFIG)) {
        int me = comm.rank();
        for (int k = 1; k < n; k++) {
          comm.waitAll(comm.irecv(ByteBuffer.allocate(8), (me - k + n) % n, k),
              comm.isend(ByteBuffer.allocate(8), (me + k) % n, k));
        }
        return snapshot(a);
      }
    });
    Map<MemoryComponent, Long> p = MpFootprint.predict(n, n - 1, job.config(CONFIG));
    for (Map<MemoryComponent, Long> m : got) {
      assertEquals(0, m.get(MemoryComponent.QP), "no RC QP");
      assertEquals((64L + 80) * 4096, m.get(MemoryComponent.MP_BUFFERS), "64 shared receive and 80 shared send buffers");
      assertEquals(2L * 128, m.get(MemoryComponent.MR), "two registrations: the receive pool and the send pool");
      for (MemoryComponent c : new MemoryComponent[] {MemoryComponent.DCI, MemoryComponent.DCT, MemoryComponent.SRQ,
          MemoryComponent.AH, MemoryComponent.MR, MemoryComponent.MP_BUFFERS, MemoryComponent.MP_PEERS}) {
        assertEquals(p.get(c), m.get(c), c.tag());
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = MpJob.class, names = {"IB_NODE_SHARED", "TCA_NODE_SHARED"})
  void sharedNodesHoldOneFileOfRingsAndTheMeanMatchesThePrediction(MpJob job) throws Exception {
    int n = 8;
    int ppn = 4;
    MpConfig cfg = CONFIG.withStrategy(MpConfig.Strategy.SHARED)
        .withHybrid(new MpConfig.Hybrid(4, java.time.Duration.ofSeconds(60), 4, ppn));
    List<Held> got = job.run(n, ctx -> {
      MemoryAccount a = ((AbstractContext) ctx).memoryAccount();
      try (VerbsCommunicator comm = job.open(ctx, cfg)) {
        int me = comm.rank();
        for (int round = 0; round < 6; round++) {
          for (int k = 1; k < n; k++) {
            comm.waitAll(comm.irecv(ByteBuffer.allocate(8), (me - k + n) % n, k),
                comm.isend(ByteBuffer.allocate(8), (me + k) % n, k));
          }
        }
        comm.barrier();
        HybridStats st = comm.hybridStats();
        long atLinks = MpFootprint.predictHybrid(n, n - 1, job.config(cfg), st.rcLinks(), st.ringsGiven()).values()
            .stream()
            .mapToLong(Long::longValue).sum();
        return new Held(a.total(), a.bytes(MemoryComponent.MP_BUFFERS), atLinks);
      }
    });
    long file = NodeRings.fileBytes(HybridSwitch.RINGS - 4, 16L * 4096);
    long measured = 0;
    long atLinks = 0;
    for (int r = 0; r < n; r++) {
      measured += got.get(r).total();
      atLinks += got.get(r).atLinks();
      assertEquals(r % ppn == 0, got.get(r).buffers() > file, "rank " + r + ": only a node's first rank holds its "
          + "file");
    }
    assertEquals(atLinks, measured, "the ranks together hold what the model gives at the links and rings they held");
  }

  /** A rank's bytes, its buffer bytes, and the model's bytes at the links and rings it held. */
  private record Held(long total, long buffers, long atLinks) {}

  @ParameterizedTest
  @EnumSource(value = MpJob.class, names = {"IB_HYBRID", "TCA_HYBRID"})
  void hybridHoldsDcForEveryPeerAndAnRcQpAndRingPerSourceMovedAsPredicted(MpJob job) throws Exception {
    int n = 4;
    MpConfig cfg = CONFIG.withHybrid(new MpConfig.Hybrid(4, java.time.Duration.ofSeconds(60), n - 1));
    List<Map<MemoryComponent, Long>> got = job.run(n, ctx -> {
      MemoryAccount a = ((AbstractContext) ctx).memoryAccount();
      try (VerbsCommunicator comm = job.open(ctx, cfg)) {
        int me = comm.rank();
        for (int round = 0; round < 12; round++) {
          for (int k = 1; k < n; k++) {
            comm.waitAll(comm.irecv(ByteBuffer.allocate(8), (me - k + n) % n, k),
                comm.isend(ByteBuffer.allocate(8), (me + k) % n, k));
          }
        }
        comm.barrier();
        assertEquals(n - 1, comm.hybridStats().rcLinks(), "every peer sent 12 messages: all moved to RC");
        return snapshot(a);
      }
    });
    Map<MemoryComponent, Long> p = MpFootprint.predict(n, n - 1, job.config(cfg));
    for (Map<MemoryComponent, Long> m : got) {
      for (MemoryComponent c : MemoryComponent.values()) {
        assertEquals(p.getOrDefault(c, 0L), m.get(c), c.tag());
      }
      assertEquals((64L + 80) * 4096 + (n - 1) * 2L * 16 * 4096, m.get(MemoryComponent.MP_BUFFERS),
          "the shared pools, and a ring of 16 receive and 16 send slots per RC link");
    }
  }

  @ParameterizedTest
  @EnumSource(value = MpJob.class, names = {"IB_DC", "TCA_DC"})
  void dcBuffersStayTheSameAsTheJobGrowsAndEachPeerCostsOnlyItsRecords(MpJob job) throws Exception {
    long[] totals = new long[2];
    long[] buffers = new long[2];
    int[] sizes = {3, 9};
    for (int i = 0; i < sizes.length; i++) {
      int n = sizes[i];
      List<long[]> got = job.run(n, ctx -> {
        MemoryAccount a = ((AbstractContext) ctx).memoryAccount();
        try (VerbsCommunicator comm = job.open(ctx, CONFIG)) {
          int me = comm.rank();
          for (int k = 1; k < n; k++) {
            comm.waitAll(comm.irecv(ByteBuffer.allocate(8), (me - k + n) % n, k),
                comm.isend(ByteBuffer.allocate(8), (me + k) % n, k));
          }
          return new long[] {a.total(), a.bytes(MemoryComponent.MP_BUFFERS)};
        }
      });
      for (long[] r : got) {
        assertEquals(got.get(0)[0], r[0], "every rank holds the same");
      }
      totals[i] = got.get(0)[0];
      buffers[i] = got.get(0)[1];
    }
    assertEquals(buffers[0], buffers[1], "no buffers per peer");
    assertEquals(6 * MpFootprint.dcBytesPerPeer() + MpFootprint.rankTableBytes(8) - MpFootprint.rankTableBytes(2),
        totals[1] - totals[0], "6 more peers: an AH and records each, and the rank table doubled once");
    assertEquals(128 + 296 + 80, MpFootprint.dcBytesPerPeer());
    assertEquals(48 + 2 * (16 + 4 * 16), MpFootprint.rankTableBytes(8) , "8 records: a capacity of 16");
  }

  @ParameterizedTest
  @EnumSource(value = MpJob.class, names = {"IB_DC", "TCA_DC"})
  void dcHoldsAsManyInitiatorsAsConfiguredAndDeliversThroughEach(MpJob job) throws Exception {
    int n = 5;
    MpConfig cfg = CONFIG.withDcInitiators(3);
    List<long[]> got = job.run(n, ctx -> {
      MemoryAccount a = ((AbstractContext) ctx).memoryAccount();
      try (VerbsCommunicator comm = job.open(ctx, cfg)) {
        int me = comm.rank();
        long sum = 0;
        for (int k = 1; k < n; k++) {
          ByteBuffer in = ByteBuffer.allocate(4);
          comm.waitAll(comm.irecv(in, (me - k + n) % n, k),
              comm.isend(ByteBuffer.allocate(4).putInt(0, me), (me + k) % n, k));
          sum += in.getInt(0);
        }
        return new long[] {sum, a.bytes(MemoryComponent.DCI), a.bytes(MemoryComponent.CQ)};
      }
    });
    Map<MemoryComponent, Long> p = MpFootprint.predict(n, n - 1, job.config(cfg));
    for (int r = 0; r < n; r++) {
      assertEquals(0 + 1 + 2 + 3 + 4 - r, got.get(r)[0], "rank " + r + " heard from every other rank");
      assertEquals(p.get(MemoryComponent.DCI), got.get(r)[1]);
      assertEquals(p.get(MemoryComponent.CQ), got.get(r)[2]);
    }
    assertEquals(3 * MpFootprint.predict(n, n - 1, job.config(CONFIG)).get(MemoryComponent.DCI) / 2,
        p.get(MemoryComponent.DCI), "three DCIs where the default has two");
  }

  /** The control QP's buffers, as the layer sizes them. */
  private static final class ConnectionManagerBytes {
    static final long CONTROL = ConnectionManager.CONTROL_BYTES;
  }
}
