package io.github.verbs4j.tca.peach2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.fabric.testing.Async;
import io.github.verbs4j.tca.peach2.Peach2Counters.Link;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The PCIe data link layer between two boards over a wire driven by hand with a fake clock
 * ({@link FakeWire}): sequence numbers and their wrap, LCRC errors answered by a Nak and a replay,
 * the replay timer, duplicates and reordering, Ack coalescing, the replay buffer's back-pressure,
 * retraining and taking a dead link down.
 */
class DataLinkLayerTest {
  private FakeWire w = new FakeWire(DataLinkParams.defaults());
  private FakeWire.End a = w.end(1);
  private FakeWire.End b = w.end(2);

  @AfterEach
  void close() {
    w.close();
  }

  private void use(DataLinkParams dl, boolean wallClock) {
    w.close();
    w = new FakeWire(dl, wallClock);
    a = w.end(1);
    b = w.end(2);
  }

  private static List<Long> range(long from, long to) {
    return LongStream.range(from, to).boxed().toList();
  }

  private long replayTimeout() {
    return w.params.dataLink().replayTimeoutNs(w.params, 1, false);
  }

  @Test
  void sequenceNumbersCountTlpsAndWrapAt4096() {
    // 256 one-TLP frames, 15 bursts of 64 KiB (256 TLPs each), 300 one-TLP frames: 4396 numbers
    List<Integer> seqs = new ArrayList<>();
    int n = 256 + 15 + 300;
    for (int i = 0; i < n; i++) {
      a.write(2, i, i >= 256 && i < 271 ? Peach2Board.MAX_FRAME_DATA : 8);
      if (i % 16 == 15 || i == n - 1 || (i >= 256 && i < 271)) {
        w.onWire(s -> s.src == 1 && !s.isDllp()).forEach(s -> seqs.add(s.seq()));
        w.runUntil(w.now + 1000);
      }
    }
    w.runUntil(w.now + 1_000_000);
    assertEquals(range(0, n), b.received, "every frame once, in order");
    assertEquals(255, (int) seqs.get(255));
    assertEquals(256, (int) seqs.get(256));
    assertEquals(512, (int) seqs.get(257), "a 64 KiB burst takes 256 sequence numbers");
    assertEquals(4096 - 256, (int) seqs.get(270));
    assertEquals(0, (int) seqs.get(271), "12-bit sequence numbers wrap after 4095");
    assertEquals(299, (int) seqs.get(n - 1));
    assertEquals(0, a.dll.unacknowledgedTlps(2), "all acknowledged across the wrap");
    assertEquals(0, a.count(Link.REPLAYS));
    assertEquals(0, b.count(Link.DUPLICATES) + b.count(Link.OUT_OF_SEQUENCE) + a.count(Link.DLLP_OUT_OF_RANGE));
  }

  @Test
  void aFrameFailingItsLcrcIsNakedAndReplayedAndDeliveredOnce() {
    a.write(2, 1, 64);
    a.write(2, 2, 64);
    a.write(2, 3, 64);
    w.corrupt(1, 40, 4);
    w.deliverOne(); // 1: in sequence
    w.deliverOne(); // 2: bad LCRC -> Nak
    w.deliverOne(); // 3: out of sequence, discarded, no second Nak
    assertEquals(1, b.count(Link.LCRC_ERRORS));
    assertEquals(0, b.rejected, "an LCRC error is link noise, not a malformed frame");
    assertEquals(1, b.count(Link.OUT_OF_SEQUENCE));
    assertEquals(1, b.count(Link.NAKS_SENT), "one Nak per loss (NAK_SCHEDULED)");
    w.runUntil(w.now + 1000);
    assertEquals(List.of(1L, 2L, 3L), b.received);
    assertEquals(1, a.count(Link.NAKS_RECEIVED));
    assertEquals(1, a.count(Link.REPLAYS));
    assertEquals(2, a.count(Link.REPLAYED_FRAMES), "the Nak acknowledged frame 1: only 2 and 3 again");
    assertEquals(0, a.count(Link.REPLAY_TIMEOUTS));
  }

  @Test
  void aCorruptedLengthOrVersionIsAnErrorToo() {
    a.write(2, 1, 64);
    w.corrupt(0, LinkFrame.BODY_OFFSET + Peach2Tlp.LENGTH_OFFSET + 3, 60);
    w.deliverOne();
    assertEquals(1, b.count(Link.BAD_FRAMES));
    assertEquals(1, b.rejected, "handed to the fabric's reject budget");
    w.runUntil(w.now + 1000);
    assertEquals(List.of(1L), b.received);
  }

  @Test
  void aLostLastFrameIsReplayedWhenTheReplayTimerRunsOut() {
    a.write(2, 1, 64);
    a.write(2, 2, 64);
    w.deliverOne();
    w.dropOne(); // the tail: nothing follows it, so no Nak
    long t0 = w.now;
    w.runUntil(t0 + replayTimeout() - 1);
    assertEquals(List.of(1L), b.received);
    assertEquals(0, a.count(Link.REPLAYS));
    w.runUntil(t0 + replayTimeout() + 1000);
    assertEquals(List.of(1L, 2L), b.received);
    assertEquals(1, a.count(Link.REPLAY_TIMEOUTS));
    assertEquals(1, a.count(Link.REPLAYED_FRAMES), "frame 1 was acknowledged meanwhile");
    assertEquals(0, b.count(Link.NAKS_SENT));
  }

  @Test
  void aLostAckIsRecoveredByTheReplayAndTheDuplicateIsDiscarded() {
    a.write(2, 7, 64);
    w.deliverOne();
    assertEquals(List.of(7L), b.received);
    w.runTasksUntil(w.now + w.params.dataLink().ackLatencyNs());
    assertEquals(1, w.onWire(FakeWire.Sent::isDllp).size(), "the Ack after the AckNak latency");
    w.dropOne();
    w.runUntil(w.now + replayTimeout() + 1000);
    assertEquals(List.of(7L), b.received, "exactly once");
    assertEquals(1, b.count(Link.DUPLICATES));
    assertEquals(0, a.dll.unacknowledgedTlps(2), "the duplicate was acknowledged again");
  }

  /**
   * Regression (the "Ack livelock" of f87bce0): the Ack for a duplicate rode the next TLP frame,
   * and a partner that discarded that frame (it was itself waiting for a replay) lost the Ack with
   * it, so both ends replayed to each other without an Ack. PCIe §3.5.3.1: a duplicate is
   * answered by an Ack DLLP of its own.
   */
  @Test
  void aDuplicateIsAnsweredByAnAckOfItsOwnNotOneRidingTheNextDataFrame() {
    a.write(2, 7, 64);
    w.deliverOne();
    w.runTasksUntil(w.now + w.params.dataLink().ackLatencyNs());
    w.dropOne(); // b's first Ack is lost
    w.runTasksUntil(w.now + replayTimeout() + 1000); // a's replay timer: frame 7 again
    assertEquals(1, a.count(Link.REPLAYS));
    w.deliverOne(); // the replay: a duplicate at b
    assertEquals(1, b.count(Link.DUPLICATES));
    b.write(1, 9, 64); // b has data for a before its Ack timer runs out
    List<FakeWire.Sent> fromB = w.onWire(s -> s.src == 2);
    assertEquals(1, fromB.size());
    assertFalse(fromB.get(0).isDllp());
    w.dropOne(); // a discards b's data frame, and whatever rode on it
    w.runTasksUntil(w.now + w.params.dataLink().ackLatencyNs());
    List<FakeWire.Sent> acks = w.onWire(s -> s.src == 2 && s.isDllp());
    assertEquals(1, acks.size(), "the duplicate's Ack leaves in a DLLP of its own");
    w.deliverOne();
    assertEquals(0, a.dll.unacknowledgedTlps(2), "frame 7 acknowledged without b's data frame");
    assertEquals(1, a.count(Link.REPLAYS), "no second replay");
  }

  @Test
  void duplicatedAndReorderedFramesAreDeliveredOnceInOrder() {
    for (int i = 1; i <= 4; i++) {
      a.write(2, i, 16);
    }
    List<FakeWire.Sent> f = new ArrayList<>(w.wire);
    w.wire.clear();
    // the fabric delivers 1, 3, 2, 2 (a copy), 4
    f.get(1).frame.retain();
    w.wire.add(f.get(0));
    w.wire.add(f.get(2));
    w.wire.add(f.get(1));
    w.wire.add(new FakeWire.Sent(1, 2, f.get(1).unchecked, f.get(1).frame.duplicate()));
    w.wire.add(f.get(3));
    w.runUntil(w.now + replayTimeout() * 2);
    assertEquals(List.of(1L, 2L, 3L, 4L), b.received);
    assertTrue(b.count(Link.OUT_OF_SEQUENCE) >= 1);
    assertTrue(b.count(Link.DUPLICATES) >= 1);
    assertEquals(0, a.dll.unacknowledgedTlps(2));
  }

  @Test
  void acksAreCoalescedAndShareTheReverseTrafficsFrames() {
    for (int i = 0; i < 10; i++) {
      a.write(2, i, 8);
    }
    w.deliverAll();
    assertEquals(0, b.count(Link.ACKS_SENT), "no Ack per frame");
    b.write(1, 100, 8); // reverse traffic carries the Ack
    FakeWire.Sent back = w.wire.peek();
    assertEquals(LinkFrame.TLP_OVERHEAD + Peach2Tlp.HEADER_LENGTH + 8 + LinkFrame.DLLP_TRAILER,
        back.frame.readableBytes());
    w.deliverAll();
    assertEquals(1, b.count(Link.ACKS_SHARED));
    assertEquals(0, a.dll.unacknowledgedTlps(2));
    w.runUntil(w.now + 10_000);
    assertEquals(0, b.count(Link.ACKS_SENT), "the timer found nothing left to acknowledge");
    assertEquals(1, a.count(Link.ACKS_SENT), "a acknowledged b's frame after the latency timer");
    // a full 64 KiB burst (256 TLPs) is acknowledged at once
    a.write(2, 11, Peach2Board.MAX_FRAME_DATA);
    w.deliverOne();
    assertEquals(1, b.count(Link.ACKS_SENT));
  }

  @Test
  void aFullReplayBufferHoldsTheSenderUntilAnAckFreesRoom() throws Exception {
    use(DataLinkParams.defaults().toBuilder().replayBufferTlps(4).ackCoalesceTlps(4).build(), false);
    w.canWait = true;
    for (int i = 0; i < 4; i++) {
      assertTrue(a.write(2, i, 8));
    }
    CompletableFuture<Boolean> fifth = Async.supply(() -> a.write(2, 4, 8));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (a.count(Link.STALLS) == 0 && System.nanoTime() - deadline < 0) {
      Thread.sleep(5); // the writer's thread may start late on a loaded machine
    }
    assertEquals(1, a.count(Link.STALLS), "the sender stalled on the full buffer");
    Thread.sleep(50);
    assertFalse(fifth.isDone(), "the sender waits for room");
    assertEquals(4, w.onWire(s -> !s.isDllp()).size());
    w.deliverAll(); // b acknowledges all four at once (4 = ackCoalesceTlps)
    assertTrue(fifth.get(10, TimeUnit.SECONDS));
    w.runUntil(w.now + 10_000);
    assertEquals(range(0, 5), b.received);
    // a caller that may not wait (the link thread) queues behind the full buffer instead
    w.canWait = false;
    for (int i = 5; i < 12; i++) {
      assertTrue(a.write(2, i, 8));
    }
    assertEquals(4, w.onWire(s -> !s.isDllp()).size(), "only what fits is on the wire");
    w.runUntil(w.now + 10_000);
    assertEquals(range(0, 12), b.received);
  }

  @Test
  void aSenderInterruptedWhileItWaitsForRoomKeepsItsFrameAndItsInterrupt() throws Exception {
    use(DataLinkParams.defaults().toBuilder().replayBufferTlps(4).ackCoalesceTlps(4).build(), false);
    w.canWait = true;
    for (int i = 0; i < 4; i++) {
      assertTrue(a.write(2, i, 8));
    }
    CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
    Thread sender = new Thread(() -> {
      boolean sent = a.write(2, 4, 8);
      interrupted.complete(sent && Thread.currentThread().isInterrupted());
    });
    sender.start();
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (a.count(Link.STALLS) == 0 && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    assertEquals(1, a.count(Link.STALLS), "the sender waits for room");
    sender.interrupt(); // an application thread interrupted inside a post (a JUnit timeout, say)
    assertTrue(interrupted.get(10, TimeUnit.SECONDS), "the write was accepted and the interrupt kept");
    assertEquals(4, w.onWire(s -> !s.isDllp()).size(), "the fifth frame is held, not sent over a full buffer");
    w.runUntil(w.now + 10_000);
    assertEquals(range(0, 5), b.received, "and leaves once an Ack frees room: nothing was lost");
  }

  @Test
  void fourReplaysWithoutProgressRetrainAndADeadLinkGoesDownThenComesBackThroughInitialisation() {
    w.cut = true; // everything either side sends is lost
    a.write(2, 1, 64);
    long t0 = w.now;
    long linkDown = w.params.dataLink().linkDownNs();
    w.runUntil(t0 + linkDown - 1);
    assertEquals(DataLinkLayer.State.ACTIVE, a.dll.state(2), "still replaying before the link-down timeout");
    w.runUntil(t0 + linkDown + replayTimeout());
    assertEquals(DataLinkLayer.State.INIT, a.dll.state(2), "down, and probing for the partner");
    assertEquals(1, a.count(Link.DOWNS));
    assertTrue(a.count(Link.RETRAINS) >= 1, "retrained after four replays: " + a.count(Link.RETRAINS));
    assertTrue(a.count(Link.REPLAY_TIMEOUTS) > 3);
    assertEquals(0, a.dll.unacknowledgedTlps(2), "the replay buffer was released: TLP 1 is lost");
    assertTrue(a.write(2, 2, 64), "held while the link initialises");
    // the path works again: the probe's InitFC1 restarts b too, and the held write goes at seq 0
    w.cut = false;
    w.runUntil(w.now + w.params.dataLink().linkDownNs() / 4);
    assertEquals(DataLinkLayer.State.ACTIVE, a.dll.state(2));
    assertEquals(DataLinkLayer.State.ACTIVE, b.dll.state(1));
    assertEquals(List.of(2L), b.received, "what the down link held is lost; what came after is delivered");
    assertEquals(1, a.count(Link.INITS));
    a.write(2, 3, 64);
    b.write(1, 4, 64);
    w.runUntil(w.now + 10_000);
    assertEquals(List.of(2L, 3L), b.received);
    assertEquals(List.of(4L), a.received);
  }

  @Test
  void aCutCableTakesTheLinksDownAtOnceAndBothEndsStartOverWhenItIsBack() {
    a.write(2, 1, 64);
    w.runUntil(w.now + 10_000);
    a.write(2, 2, 64); // in flight when the cable is cut: lost
    w.dropOne();
    a.cables(false);
    assertEquals(DataLinkLayer.State.DOWN, a.dll.state(2));
    assertEquals(0, a.dll.unacknowledgedTlps(2));
    assertFalse(a.write(2, 3, 64), "nothing goes over a cut cable");
    assertEquals(1L, a.counters.snapshot().drops().get("link_down"));
    // b did not see the cut (the netty fabric tells one end): it starts over when a's InitFC1 comes
    a.cables(true);
    w.runUntil(w.now + 10_000);
    assertEquals(DataLinkLayer.State.ACTIVE, a.dll.state(2));
    assertEquals(DataLinkLayer.State.ACTIVE, b.dll.state(1));
    a.write(2, 5, 64);
    b.write(1, 6, 64);
    w.runUntil(w.now + 10_000);
    assertEquals(List.of(1L, 5L), b.received);
    assertEquals(List.of(6L), a.received);
    assertEquals(0, a.count(Link.REPLAYS) + b.count(Link.REPLAYS) + b.count(Link.DUPLICATES));
  }

  @Test
  void aStaleInitFromAnOlderEpochChangesNothing() {
    a.cables(false);
    a.cables(true);
    w.runUntil(w.now + 10_000); // epoch 1 on both ends
    io.netty.buffer.ByteBuf f = w.alloc.directBuffer(LinkFrame.DLLP_FRAME_LENGTH);
    LinkFrame.writeInitFrame(f, Peach2Dllp.INIT1, 0, 0); // epoch 0: older than b knows
    a.write(2, 7, 64);
    w.wire.addFirst(new FakeWire.Sent(1, 2, false, f));
    w.runUntil(w.now + 10_000);
    assertEquals(List.of(7L), b.received);
    assertEquals(DataLinkLayer.State.ACTIVE, b.dll.state(1));
    assertEquals(0, a.count(Link.REPLAYS));
  }

  @Test
  void onTheWallClockTheReplayTimeoutFollowsTheMeasuredRoundTripsAndWaitsForAnAckAlreadyThere() {
    use(DataLinkParams.defaults(), true);
    long floor = w.params.dataLink().wallReplayTimeoutNs();
    // Acks that take 3 floors: the first frames are replayed, then the timeout has learnt the round trip
    for (int i = 0; i < 30; i++) {
      a.write(2, i, 8);
      w.deliverOne();
      w.runTasksUntil(w.now + 3 * floor); // b's Ack timer has run; its Ack waits on the wire
      w.deliverAll();
    }
    assertEquals(range(0, 30), b.received);
    long early = a.count(Link.REPLAYS);
    assertTrue(early > 0, "the first Acks came after the floor");
    for (int i = 30; i < 60; i++) {
      a.write(2, i, 8);
      w.deliverOne();
      w.runTasksUntil(w.now + 3 * floor);
      w.deliverAll();
    }
    assertEquals(early, a.count(Link.REPLAYS), "no replay once the timeout exceeds the round trip");
    // an Ack that is there when the timer runs out (behind it in the thread's queue) prevents the replay
    use(DataLinkParams.defaults(), true);
    a.write(2, 100, 8);
    w.deliverOne();
    w.runTasksUntil(w.now + floor + 1); // b's Ack is on the wire; a's timer ran out once
    assertEquals(0, a.count(Link.REPLAY_TIMEOUTS));
    w.deliverAll();
    w.runUntil(w.now + 10 * floor);
    assertEquals(0, a.count(Link.REPLAYS));
    assertEquals(List.of(100L), b.received);
  }

  @Test
  void anAckOutsideTheUnacknowledgedRangeIsIgnored() {
    a.write(2, 1, 8);
    io.netty.buffer.ByteBuf f = w.alloc.directBuffer(LinkFrame.DLLP_FRAME_LENGTH);
    LinkFrame.writeDllpFrame(f, Peach2Dllp.ACK, 2000); // never sent
    w.wire.addFirst(new FakeWire.Sent(2, 1, false, f));
    w.deliverOne();
    assertEquals(1, a.count(Link.DLLP_OUT_OF_RANGE));
    assertEquals(1, a.dll.unacknowledgedTlps(2));
    w.runUntil(w.now + 10_000);
    assertEquals(List.of(1L), b.received);
  }

  @Test
  void framesSentWhileNothingCanCorruptThemCarryNoLcrcAndAreNotChecked() {
    w.mayCorrupt = false;
    a.write(2, 1, 64);
    FakeWire.Sent s = w.wire.peek();
    assertTrue(s.unchecked);
    int lcrcAt = LinkFrame.lcrcOffset(s.frame, s.frame.readerIndex(), s.frame.readableBytes());
    assertEquals(0, s.frame.getInt(s.frame.readerIndex() + lcrcAt));
    w.runUntil(w.now + 10_000);
    assertEquals(List.of(1L), b.received);
    assertEquals(0, b.count(Link.LCRC_ERRORS));
  }

  @Test
  void whatABoardThatLeftWasForwardingIsSentAgainOnALinkThatCannotLose() {
    w.mayLose = false; // modelled time, no fault injection: the link keeps no replay timer
    a.write(2, 1, 64);
    a.write(2, 2, 64);
    w.deliverOne();
    w.dropOne(); // lost in the board of a rank that exited while relaying it
    w.runUntil(w.now + 3 * replayTimeout());
    assertEquals(List.of(1L), b.received, "nothing sends it again on its own");
    assertEquals(0, a.count(Link.REPLAYS));
    a.dll.peerGone(3); // a board on the route (not in this two-node fake) left the fabric
    w.runUntil(w.now + 10_000);
    assertEquals(List.of(1L, 2L), b.received, "sent again once, delivered once");
    assertEquals(1, a.count(Link.REPLAYS));
    assertEquals(0, a.dll.unacknowledgedTlps(2));
  }
}
