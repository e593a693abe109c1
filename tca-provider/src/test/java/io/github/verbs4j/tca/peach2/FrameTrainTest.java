package io.github.verbs4j.tca.peach2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.tca.peach2.Peach2Counters.Link;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a board sends a partner during a batch ({@link DataLinkLayer#beginBatch()}) leaves as one
 * fabric frame, a train, and is received record by record exactly as if each had come alone: in
 * sequence, acknowledged, Naked and replayed per TLP. Two data link layers over {@link FakeWire}
 * with a wall clock (batches are a wall-clock matter) and one with modelled time.
 */
class FrameTrainTest {
  private FakeWire w = new FakeWire(DataLinkParams.defaults(), true);

  @AfterEach
  void close() {
    w.close();
  }

  private static boolean isTrain(FakeWire.Sent s) {
    return LinkFrame.type(s.frame, s.frame.readerIndex()) == LinkFrame.TYPE_TRAIN;
  }

  @Test
  void tlpsSentDuringABatchLeaveAsOneFabricFrameAndArriveInOrder() {
    FakeWire.End a = w.end(1);
    a.dll.beginBatch();
    a.write(2, 11, 8);
    a.write(2, 22, 120);
    a.write(2, 33, 8);
    assertEquals(0, w.wire.size(), "nothing leaves before the batch ends");
    a.dll.endBatch();
    assertEquals(1, w.wire.size());
    assertTrue(isTrain(w.wire.peek()));
    assertEquals(3, LinkFrame.trainCount(w.wire.peek().frame, w.wire.peek().frame.readerIndex()));
    w.deliverAll();
    assertEquals(List.of(11L, 22L, 33L), w.end(2).received);
    Peach2Counters.Snapshot c = a.counters.snapshot();
    assertEquals(1, c.framesSent());
    assertEquals(1, c.link(Link.TRAINS));
    assertEquals(0, c.link(Link.DLLP_FRAMES));
    assertEquals(3, a.dll.unacknowledgedTlps(2), "each TLP waits for its Ack");
    w.runUntil(w.now + 10_000_000); // the partner's Ack timer: one Ack covers all three
    assertEquals(0, a.dll.unacknowledgedTlps(2));
    assertEquals(1, w.end(2).count(Link.ACKS_SENT));
  }

  @Test
  void aCorruptedRecordIsNakedAndReplayedWhileTheRecordsBeforeItAreTaken() {
    FakeWire.End a = w.end(1);
    a.dll.beginBatch();
    a.write(2, 11, 8);
    a.write(2, 22, 8);
    a.write(2, 33, 8);
    a.dll.endBatch();
    // train header 4, first record: length 4 + frame; corrupt a data byte of the second record
    int firstRecord = LinkFrame.TRAIN_HEADER + LinkFrame.RECORD_LENGTH
        + w.wire.peek().frame.getInt(LinkFrame.TRAIN_HEADER);
    int secondData = firstRecord + LinkFrame.RECORD_LENGTH + LinkFrame.BODY_OFFSET + Peach2Tlp.HEADER_LENGTH;
    w.corrupt(0, secondData, 0x5A);
    w.deliverOne();
    assertEquals(List.of(11L), w.end(2).received, "the first record was taken, the rest not");
    assertEquals(1, w.end(2).count(Link.LCRC_ERRORS));
    assertEquals(1, w.end(2).count(Link.OUT_OF_SEQUENCE), "the third came out of sequence");
    assertEquals(1, w.end(2).count(Link.NAKS_SENT), "one Nak per loss");
    w.runUntil(w.now + 100_000_000); // the Nak arrives: the unacknowledged TLPs are replayed
    assertEquals(List.of(11L, 22L, 33L), w.end(2).received, "each TLP once, in order");
    assertEquals(0, a.dll.unacknowledgedTlps(2));
  }

  @Test
  void aFrameTooLongForATrainTravelsAloneAndKeepsItsPlace() {
    FakeWire.End a = w.end(1);
    a.dll.beginBatch();
    a.write(2, 11, 8);
    a.write(2, 22, FrameTrain.MAX_RECORD);
    a.write(2, 33, 8);
    a.write(2, 44, 8);
    assertEquals(2, w.wire.size(), "what was held leaves before the long frame");
    a.dll.endBatch();
    assertEquals(3, w.wire.size());
    assertTrue(isTrain(w.wire.peekLast()));
    w.deliverAll();
    assertEquals(List.of(11L, 22L, 33L, 44L), w.end(2).received);
    assertEquals(1, a.counters.snapshot().link(Link.TRAINS));
  }

  @Test
  void anAckTheTimerSendsDuringABatchRidesInTheTrain() {
    w.end(2).write(1, 5, 8);
    w.deliverAll(); // node 1 owes node 2 an Ack
    FakeWire.End a = w.end(1);
    a.dll.beginBatch();
    w.runTasksUntil(w.now + 500_000); // node 1's Ack timer (250 µs) runs during the batch
    assertEquals(0, w.wire.size());
    a.write(2, 11, 8);
    a.dll.endBatch();
    assertEquals(1, w.wire.size(), "the Ack DLLP and the TLP in one fabric frame");
    assertTrue(isTrain(w.wire.peek()));
    w.deliverAll();
    assertEquals(0, w.end(2).dll.unacknowledgedTlps(1), "the Ack was taken");
    assertEquals(List.of(11L), w.end(2).received);
    Peach2Counters.Snapshot c = a.counters.snapshot();
    assertEquals(1, c.framesSent());
    assertEquals(1, c.link(Link.ACKS_SENT));
    assertEquals(0, c.link(Link.DLLP_FRAMES), "the frame carried a TLP");
  }

  @Test
  void inModelledTimeEveryFrameTravelsAlone() {
    w.close();
    w = new FakeWire(DataLinkParams.defaults(), false);
    FakeWire.End a = w.end(1);
    a.dll.beginBatch();
    a.write(2, 11, 8);
    a.write(2, 22, 8);
    assertEquals(2, w.wire.size(), "batches do nothing in modelled time: each frame is timed alone");
    a.dll.endBatch();
    assertEquals(2, w.wire.size());
    w.deliverAll();
    assertEquals(List.of(11L, 22L), w.end(2).received);
    assertEquals(0, a.counters.snapshot().link(Link.TRAINS));
  }
}
