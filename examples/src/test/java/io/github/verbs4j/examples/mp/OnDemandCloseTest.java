package io.github.verbs4j.examples.mp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.verbs4j.fabric.fault.LinkFaults;
import io.github.verbs4j.fabric.local.LocalFabric;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The CLOSE handshake of on-demand links when a CLOSE is slow: both sides close the same link at
 * once, the peer's CLOSE arrives, and this side's CLOSE is lost twice on the fabric, so the device
 * sends it again only after two ACK timeouts (QP timeout 20: 4.3 s each). The handshake must wait
 * for it: a side that gave up on its CLOSE and destroyed the QP left the peer closing forever, its
 * next link to anyone blocked behind it (issue #20's stall of the 512-rank all-to-all).
 */
class OnDemandCloseTest {
  private static final MpConfig CONFIG = MpConfig.defaults().withEagerLimit(256).withSlots(8)
      .withStrategy(MpConfig.Strategy.ON_DEMAND).withGamma(1).withTimeout(Duration.ofSeconds(25));
  /** The fabric path from rank 0 to rank 1 is down this long: longer than one ACK timeout (4.3 s). */
  private static final long DOWN_MILLIS = 6_000;

  @Test
  void aCloseLostTwiceStillEndsTheHandshake() throws Exception {
    String fabric = "on-demand-close-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    int n = 3;
    ExecutorService pool = Executors.newFixedThreadPool(n);
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    CyclicBarrier phase = new CyclicBarrier(2); // ranks 0 and 1: the first exchange is over
    List<Context> contexts = new ArrayList<>();
    List<Future<Integer>> results = new ArrayList<>();
    Throwable failure = null;
    try {
      for (int r = 0; r < n; r++) {
        VerbsConfig cfg = VerbsConfig.of(Map.of("verbs.provider", "ib", "verbs.fabric", "local", "verbs.fabric.name",
            fabric, "verbs.rank", Integer.toString(r), "verbs.size", Integer.toString(n)));
        results.add(pool.submit(() -> {
          Context ctx = Verbs.open(cfg);
          synchronized (contexts) {
            contexts.add(ctx);
          }
          return rank(ctx, fabric, phase, timer);
        }));
      }
      for (int r = 0; r < n; r++) {
        assertEquals(r == 2 ? 2 : 1, results.get(r).get(60, TimeUnit.SECONDS), "messages rank " + r + " received");
      }
    } catch (Exception | AssertionError e) {
      failure = e;
      throw e;
    } finally {
      pool.shutdownNow();
      timer.shutdownNow();
      synchronized (contexts) {
        for (Context c : contexts) { // one after another, as the local transport needs
          try {
            c.close();
          } catch (RuntimeException e) {
            if (failure == null) {
              throw e;
            }
            failure.addSuppressed(e); // a failed rank's context may still hold objects
          }
        }
      }
    }
  }

  /**
   * Ranks 0 and 1 exchange a message (their only link, γ = 1), then both send to rank 2, so both
   * close the link 0-1 at once, while rank 0's frames to rank 1 are dropped for {@link
   * #DOWN_MILLIS}.
   *
   * @return messages received
   */
  private static int rank(Context ctx, String fabric, CyclicBarrier phase, ScheduledExecutorService timer)
      throws Exception {
    try (VerbsCommunicator comm = VerbsCommunicator.open(ctx, CONFIG)) {
      int me = comm.rank();
      ByteBuffer out = ByteBuffer.allocate(64);
      if (me == 2) {
        Request a = comm.irecv(ByteBuffer.allocate(64), 0, 2);
        Request b = comm.irecv(ByteBuffer.allocate(64), 1, 2);
        comm.waitAll(a, b);
        return 2;
      }
      int other = 1 - me;
      Request r = comm.irecv(ByteBuffer.allocate(64), other, 1);
      comm.waitAll(r, comm.isend(out, other, 1));
      Thread.sleep(300); // the exchange's ACKs are through: only the closing meets the fault
      phase.await(10, TimeUnit.SECONDS);
      if (me == 0) {
        LinkFaults path = LocalFabric.shared(fabric).faults().link(1, 2); // node ids are rank + 1
        path.down();
        timer.schedule(path::up, DOWN_MILLIS, TimeUnit.MILLISECONDS);
      }
      phase.await(10, TimeUnit.SECONDS);
      comm.wait(comm.isend(out, 2, 2)); // no room (γ = 1): closes the link to the other rank first
      return 1;
    }
  }
}
