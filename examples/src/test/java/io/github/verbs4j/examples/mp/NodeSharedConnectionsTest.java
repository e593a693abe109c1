package io.github.verbs4j.examples.mp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.spi.AbstractContext;
import io.github.verbs4j.verbs.spi.MemoryAccount;
import io.github.verbs4j.verbs.spi.MemoryComponent;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link MpConfig.Strategy#SHARED} (seed 003 §3.4): the ranks of a node share its cap of RC links
 * and one file of rings, which its first rank holds; every message arrives whole, and no file is
 * left in shared memory. On tca (no DC) skipped by capability.
 */
class NodeSharedConnectionsTest {
  private static final int EAGER = 512;
  private static final int SLOTS = 8;
  private static final MpConfig BASE = MpConfig.defaults().withEagerLimit(EAGER).withSlots(SLOTS)
      .withSharedReceive(64).withTimeout(Duration.ofSeconds(120));

  private static byte pattern(int from, int to, int i, int k) {
    return (byte) (from * 29 + to * 11 + i * 5 + k);
  }

  /** A rank's links and its buffer meter. */
  private record Seen(HybridStats stats, long buffers) {}

  /** Most rounds the exchange runs while waiting for the switches to settle. */
  private static final int MAX_ROUNDS = 200;

  private static long nodeFiles() throws IOException {
    Path shm = Path.of("/dev/shm");
    if (!Files.isDirectory(shm)) {
      shm = Path.of(System.getProperty("java.io.tmpdir"));
    }
    try (Stream<Path> s = Files.list(shm)) {
      return s.filter(p -> p.getFileName().toString().startsWith("verbs4j-mp-")).count();
    }
  }

  /**
   * Collective: whether the exchange may stop after {@code round} rounds: at least {@code min}
   * rounds, and then every node holds an RC link or had an ask refused, and some rank writes into a
   * node's rings; at most {@link #MAX_ROUNDS} (the assertions then say what is missing).
   */
  private static boolean converged(VerbsCommunicator comm, int round, int min, int nodes, int ppn) {
    if (round < min) {
      return false;
    }
    long[] seen = new long[nodes + 1];
    HybridStats st = comm.hybridStats();
    seen[comm.rank() / ppn] = st.rcLinks() + st.refusals();
    seen[nodes] = st.ringsUsed();
    comm.allreduce(seen, ReduceOp.SUM);
    boolean done = seen[nodes] > 0;
    for (int node = 0; node < nodes; node++) {
      done &= seen[node] > 0;
    }
    return done || round >= MAX_ROUNDS;
  }

  @ParameterizedTest
  @EnumSource(value = MpJob.class, names = {"IB_NODE_SHARED", "TCA_NODE_SHARED"})
  void aNodesRanksShareItsRcCapAndItsRings(MpJob job) throws Exception {
    int n = 6;
    int ppn = 3;
    int nodeCap = 2;
    int rounds = 10;
    MpConfig cfg = BASE.withStrategy(MpConfig.Strategy.SHARED)
        .withHybrid(new MpConfig.Hybrid(3, Duration.ofSeconds(60), nodeCap, ppn));
    long filesBefore = nodeFiles();
    List<Seen> got = job.run(n, ctx -> {
      MemoryAccount account = ((AbstractContext) ctx).memoryAccount();
      try (VerbsCommunicator comm = job.open(ctx, cfg)) {
        int me = comm.rank();
        ByteBuffer in = ByteBuffer.allocate(100);
        // At least `rounds` rounds, then on until every node's switches are settled (it holds an RC
        // link, or its asks were refused) and rings carry messages: switches are asked for and
        // answered asynchronously, so on a busy machine they may settle after the first rounds.
        for (int round = 0; !converged(comm, round, rounds, n / ppn, ppn); round++) {
          for (int k = 1; k < n; k++) {
            int to = (me + k) % n;
            int from = (me - k + n) % n;
            ByteBuffer out = ByteBuffer.allocate(100);
            for (int i = 0; i < 100; i++) {
              out.put(i, pattern(me, to, round, i));
            }
            comm.waitAll(comm.irecv(in, from, k), comm.isend(out, to, k));
            for (int i = 0; i < 100; i++) {
              assertEquals(pattern(from, me, round, i), in.get(i), "byte " + i + " from " + from + " round " + round);
            }
          }
        }
        comm.barrier();
        return new Seen(comm.hybridStats(), account.bytes(MemoryComponent.MP_BUFFERS));
      }
    });
    assertEquals(filesBefore, nodeFiles(), "no node file is left in shared memory");
    long slotSize = (Wire.HEADER_LENGTH + EAGER + 63) / 64 * 64;
    long file = NodeRings.fileBytes(HybridSwitch.RINGS - nodeCap, SLOTS * slotSize);
    long used = 0;
    for (int node = 0; node < n / ppn; node++) {
      int rc = 0;
      long refused = 0;
      int rings = 0;
      for (int r = node * ppn; r < (node + 1) * ppn; r++) {
        HybridStats st = got.get(r).stats();
        rc += st.rcLinks();
        refused += st.refusals();
        rings += st.ringsGiven();
        used += st.ringsUsed();
        assertEquals(n - 1 - st.rcLinks(), st.dcPeers(), "rank " + r + ": the other peers stay on DC");
        long own = got.get(r).buffers() - (r == node * ppn ? file : 0);
        long dcPools = (64L + Connections.DC_SEND_BUFFERS) * slotSize;
        assertEquals(dcPools + st.rcLinks() * 2L * SLOTS * slotSize, own,
            "rank " + r + ": its pools and RC rings; the rings it gave are the node's (held by rank " + node * ppn
                + ")");
      }
      assertTrue(rc <= nodeCap, "node " + node + " holds " + rc + " RC links, cap " + nodeCap);
      // Its ranks asked: a node either holds RC links or had its asks refused. Asks of the same
      // node in flight at once fill its cap, so a peer of that node cannot accept meanwhile; a
      // refused source stays on DC (with a ring), and under load a node may end with none.
      assertTrue(rc > 0 || refused > 0, "node " + node + " neither moved a source to RC nor had an ask refused");
      assertTrue(rings > 0, "node " + node + ": sources beyond the node's cap got rings from its file");
    }
    assertTrue(used > 0, "heavy sources beyond the cap write into the node's rings");
  }
}
