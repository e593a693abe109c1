package io.github.verbs4j.examples.mp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.testing.InJvmJob;
import io.github.verbs4j.verbs.spi.runtime.IdleStrategyKey;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import io.github.verbs4j.verbs.spi.runtime.HostShare;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A communicator whose waits never spin (the numbers an oversubscribed host gets) blocks on its
 * completion channel and is woken by the completions themselves: its blocks have no timeout here,
 * so a completion that raised no event would hang the job (and fail it at the job's limit).
 */
class CompletionWaitTest {
  private static final MpConfig CONFIG = MpConfig.defaults().withEagerLimit(1024).withSlots(8)
      .withTimeout(Duration.ofSeconds(60));
  private static final IdleStrategyKey.Backoff NO_SPIN = new IdleStrategyKey.Backoff(0, 0, 10_000, 1_000_000);
  private static final Duration FOREVER = Duration.ofDays(1);

  @ParameterizedTest
  @EnumSource(InJvmJob.class)
  void waitsThatNeverSpinAreWokenByEagerRendezvousAndCollectiveTraffic(InJvmJob job) throws Exception {
    int rounds = 20;
    List<long[]> got = job.run(2, ctx -> {
      try (VerbsCommunicator comm = VerbsCommunicator.open(ctx, CONFIG, NO_SPIN, FOREVER)) {
        int peer = 1 - comm.rank();
        ByteBuffer small = ByteBuffer.allocate(8);
        ByteBuffer big = comm.allocate(64 * 1024);
        long sum = 0;
        for (int i = 0; i < rounds; i++) {
          if (comm.rank() == 0) {
            Thread.sleep(2); // the other rank is inside a wait by now, blocked on its channel
            small.putLong(0, i);
            comm.send(small, peer, 1);
            comm.recv(big, peer, 2);
            sum += big.getLong(64 * 1024 - 8);
          } else {
            comm.recv(small, peer, 1);
            big.putLong(64 * 1024 - 8, small.getLong(0) * 3);
            comm.send(big, peer, 2); // rendezvous: RTS, CTS, RDMA WRITE, FIN
          }
        }
        long[] total = {comm.rank() + 1L};
        comm.allreduce(total, ReduceOp.SUM);
        comm.barrier();
        return new long[] {sum, total[0], comm.completionWakeups()};
      }
    });
    assertEquals(3L * rounds * (rounds - 1) / 2, got.get(0)[0], "rank 0 got every reply");
    assertArrayEquals(new long[] {3, 3}, new long[] {got.get(0)[1], got.get(1)[1]}, "allreduce on both ranks");
    assertTrue(got.get(1)[2] > 0, "rank 1 blocked and completions woke it: " + got.get(1)[2]);
  }

  /** Oversubscribed ranks wake from a block as rarely as their count per processor allows (at most 1 s). */
  @Test
  void anOversubscribedHostsRanksBlockLongerBetweenSafetyWakeUps() {
    assertEquals(Duration.ofMillis(10), CompletionWait.maxBlock(new HostShare(2, 2)));
    assertEquals(Duration.ofMillis(80), CompletionWait.maxBlock(new HostShare(16, 2)));
    assertEquals(Duration.ofSeconds(1), CompletionWait.maxBlock(new HostShare(1024, 2)));
  }
}
