package io.github.verbs4j.examples.mp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.testing.InJvmJob;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The application's computation is on its own timeline, not the device's (docs/modelled-time.md,
 * <em>the application's timeline</em>): a message that the device took while the application was
 * still before its computation does not push the computation back.
 */
class AppTimelineTest {
  private static final long SENDER_WORK = 5_000_000;
  private static final long RECEIVER_WORK = 1_000_000;

  @Test
  void aMessageTakenByTheDeviceBeforeTheComputationDoesNotDelayIt() throws Exception {
    // the ranks leave the barrier at slightly different times: the sender's start is the reference
    AtomicLong senderStart = new AtomicLong(-1);
    // the sender sends only once the receiver has left the barrier (in wall time): otherwise the
    // receiver's device may take the message before the barrier's last completion, whose timestamp
    // would then already be past the message's arrival
    CountDownLatch receiverStarted = new CountDownLatch(1);
    List<long[]> r = InJvmJob.IB.run(2, Map.of("verbs.time", "modelled"), ctx -> {
      try (VerbsCommunicator comm = VerbsCommunicator.open(ctx, MpConfig.defaults())) {
        comm.barrier();
        ByteBuffer b = ByteBuffer.allocate(64);
        long start = comm.nowNanos();
        if (comm.rank() == 0) {
          senderStart.set(start);
          assertTrue(receiverStarted.await(20, TimeUnit.SECONDS), "the receiver left the barrier");
          comm.compute(SENDER_WORK);
          comm.wait(comm.isend(b, 1, 7));
          return new long[] {start, comm.nowNanos()};
        }
        receiverStarted.countDown();
        // the device takes the message (its clock moves past the sender's work) before this rank
        // charges its own, shorter, computation
        long deadline = System.nanoTime() + 20_000_000_000L;
        while ((senderStart.get() < 0 || ctx.nowNanos() < senderStart.get() + SENDER_WORK)
            && System.nanoTime() < deadline) {
          Thread.sleep(1);
        }
        assertTrue(senderStart.get() >= 0 && ctx.nowNanos() >= senderStart.get() + SENDER_WORK,
            "the message reached the device: " + ctx.nowNanos() + ", sender started at " + senderStart.get());
        long beforeWork = comm.nowNanos();
        comm.compute(RECEIVER_WORK);
        long afterWork = comm.nowNanos();
        comm.wait(comm.irecv(b, 0, 7));
        return new long[] {start, beforeWork, afterWork, comm.nowNanos(), senderStart.get()};
      }
    });
    long[] rx = r.get(1);
    // the computation starts where the application was, not where the device's arrival put the clock
    assertEquals(rx[0], rx[1], "the application's time did not move while it waited in wall time");
    assertEquals(rx[1] + RECEIVER_WORK, rx[2]);
    // the receive completes when the message arrived (after the sender's work), not arrival + work
    long received = rx[3] - rx[4];
    assertTrue(received >= SENDER_WORK && received < SENDER_WORK + RECEIVER_WORK / 2,
        "received " + received + " ns after the sender's start; sender worked " + SENDER_WORK + ", receiver " + RECEIVER_WORK);
  }

  @Test
  void aBatchOfCompletionsIsTakenInTheOrderTheyHappenedOnAModelledClockOnly() throws Exception {
    List<String> orders = new java.util.ArrayList<>();
    for (String time : List.of("modelled", "wall")) {
      InJvmJob.IB.run(1, Map.of("verbs.time", time), ctx -> {
        AppTimeline t = new AppTimeline(ctx);
        io.github.verbs4j.verbs.WorkCompletion[] wcs = io.github.verbs4j.verbs.WorkCompletion.array(5);
        long[] stamps = {30, 10, 20, 20, 5};
        for (int i = 0; i < stamps.length; i++) {
          wcs[i].reset(i, io.github.verbs4j.verbs.WcStatus.SUCCESS, io.github.verbs4j.verbs.WcOpcode.RECV, 1)
              .timestampNanos(stamps[i]);
        }
        t.inTimeOrder(wcs, 4); // the fifth is not part of the batch
        StringBuilder b = new StringBuilder();
        for (io.github.verbs4j.verbs.WorkCompletion w : wcs) {
          b.append(w.wrId());
        }
        b.append(t.before(wcs[0], wcs[1]) ? " before" : " not before");
        orders.add(b.toString());
        return null;
      });
    }
    // stable: the two at 20 keep their order; a wall clock keeps the CQ's order
    assertEquals(List.of("12304 before", "01234 not before"), orders);
  }
}
