package io.github.verbs4j.tca.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.tca.peach2.Peach2Counters;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

/**
 * How many fabric frames (netty writes, on the netty fabric) the two tca boards send per 8-byte
 * message, on the in-JVM fabric with the wall clock, over back-to-back messages; the links go
 * quiet at the end so every frame is counted.
 *
 * <p>Counted are the frames that carry TLPs (memory writes), sent the first time: per 8 B SEND
 * round trip each side sends its packet (a DMA chain: the packet, then its send PSN) and a
 * write-back (credits and acknowledgement, one PIO write). That was 6 frames when each TLP was a
 * fabric frame of its own; since what a proxy duty cycle sends a peer leaves as one fabric frame
 * ({@code DataLinkLayer#beginBatch}, the chain's two TLPs in one train) it is 4. Per 8 B WRITE the
 * chain and the write-back: 3 before, 2 now. The link layer's lone Acks come on top (the message
 * reports them): how many depends on whether the next frame left within the 250 µs Ack timer,
 * which a loaded host decides. Replays are not counted (a loaded host can hold an Ack past the
 * replay timeout).
 */
class FramesPerMessageTest {
  private static final int ROUNDS = 200;
  /** Fabric frames with TLPs per 8 B SEND round trip (a SEND each way). */
  private static final double SEND_ROUND_TRIP_FRAMES = 4;
  /** Fabric frames with TLPs per 8 B RDMA WRITE. */
  private static final double WRITE_FRAMES = 2;

  @Test
  void an8ByteSendRoundTripTakesFourFabricFramesAndAnRdmaWriteTwo() {
    // timeout 20 (4.3 s): TCA Verbs' own timer never sends a message again here
    try (TwoTcaNodes n = new TwoTcaNodes(20)) {
      // warm up: the first message to a peer allocates the rings' staging memory and descriptors
      sendRoundTrip(n, 0);
      write(n, 0);
      quiet(n);
      long[] start = counts(n);
      for (int i = 1; i <= ROUNDS; i++) {
        sendRoundTrip(n, i);
      }
      quiet(n);
      long[] mid = counts(n);
      for (int i = 1; i <= ROUNDS; i++) {
        write(n, i);
      }
      quiet(n);
      long[] end = counts(n);
      double sendTlp = (mid[0] - start[0]) / (double) ROUNDS;
      double writeTlp = (end[0] - mid[0]) / (double) ROUNDS;
      String all = "fabric frames with TLPs (all frames) per 8 B SEND round trip " + sendTlp + " ("
          + (mid[1] - start[1]) / (double) ROUNDS + "), per 8 B WRITE " + writeTlp + " ("
          + (end[1] - mid[1]) / (double) ROUNDS + "), TLP frames replayed " + (end[2] - start[2]);
      // a replayed frame that shared a train is subtracted as a frame of its own, and two batches
      // that overlap may share a train: a little under the pinned counts, never over
      assertTrue(sendTlp <= SEND_ROUND_TRIP_FRAMES && sendTlp > SEND_ROUND_TRIP_FRAMES - 0.5, all);
      assertTrue(writeTlp <= WRITE_FRAMES && writeTlp > WRITE_FRAMES - 0.5, all);
    }
  }

  private static void sendRoundTrip(TwoTcaNodes n, int i) {
    n.b.rc.postRecv(new RecvWr().wrId(i).sge(n.b.pool, 0, 8));
    n.a.rc.postRecv(new RecvWr().wrId(i).sge(n.a.pool, 0, 8));
    n.a.pool.buffer().putLong(64, 1000 + i);
    n.a.rc.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).signaled(true).sge(n.a.pool, 64, 8));
    TwoTcaNodes.poll(n.b.cq); // b's receive (its SEND completion comes below)
    assertEquals(1000 + i, n.b.pool.buffer().getLong(0));
    n.b.pool.buffer().putLong(64, 2000 + i);
    n.b.rc.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).signaled(true).sge(n.b.pool, 64, 8));
    TwoTcaNodes.poll(n.a.cq); // a's SEND completion and a's receive, in either order
    TwoTcaNodes.poll(n.a.cq);
    assertEquals(2000 + i, n.a.pool.buffer().getLong(0));
    TwoTcaNodes.poll(n.b.cq); // b's SEND completion
  }

  private static void write(TwoTcaNodes n, int i) {
    n.a.pool.buffer().putLong(128, 3000 + i);
    n.a.rc.postSend(new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).signaled(true).sge(n.a.pool, 128, 8)
        .rdma(n.b.pool.address() + 256, n.b.pool.rkey()));
    TwoTcaNodes.poll(n.a.cq);
    assertEquals(3000 + i, n.b.pool.buffer().getLong(256));
  }

  /**
   * @return fabric frames with TLPs sent the first time, all fabric frames, TLP frames replayed;
   *     both boards. A loaded host can hold an Ack past the wall-clock replay timeout; the replay
   *     sends TLP frames again, at most one fabric frame each, which are not the message's cost.
   */
  private static long[] counts(TwoTcaNodes n) {
    Peach2Counters.Snapshot a = n.a.board();
    Peach2Counters.Snapshot b = n.b.board();
    long all = a.framesSent() + b.framesSent();
    long dllps = a.link(Peach2Counters.Link.DLLP_FRAMES) + b.link(Peach2Counters.Link.DLLP_FRAMES);
    long replayed = a.link(Peach2Counters.Link.REPLAYED_FRAMES) + b.link(Peach2Counters.Link.REPLAYED_FRAMES);
    return new long[] {all - dllps - replayed, all, replayed};
  }

  /** Waits until both links have every TLP acknowledged and no frame was sent for 20 ms. */
  private static void quiet(TwoTcaNodes n) {
    long deadline = System.nanoTime() + 30_000_000_000L;
    long last = -1;
    while (System.nanoTime() < deadline) {
      boolean acked = n.a.tca().board().dataLink().unacknowledgedTlps(n.b.lid()) == 0
          && n.b.tca().board().dataLink().unacknowledgedTlps(n.a.lid()) == 0;
      long f = counts(n)[1];
      if (acked && f == last) {
        return;
      }
      last = acked ? f : -1;
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
    throw new AssertionError("the links did not go quiet within 30 s");
  }
}
