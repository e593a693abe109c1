package io.github.verbs4j.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class InboundSharesTest {
  @Test
  void halfTheQueueIsReservedPerSourceAndHalfIsAPool() {
    InboundShares s = new InboundShares(64, 4);
    assertEquals(8, s.reserved());
    assertEquals(32, s.pool());
    assertEquals(64, s.capacity());
  }

  @Test
  void aFloodingSourceTakesItsReserveAndThePoolAndNoMore() {
    InboundShares s = new InboundShares(64, 4);
    int admitted = 0;
    for (int i = 0; i < 1000; i++) {
      if (s.admit(1)) {
        admitted++;
      }
    }
    assertEquals(8 + 32, admitted);
    assertEquals(40, s.held(1));
    for (int src = 2; src <= 4; src++) {
      for (int i = 0; i < 8; i++) {
        assertTrue(s.admit(src), "source " + src + " frame " + i + " within its reserve");
      }
      assertFalse(s.admit(src), "source " + src + ": the pool is the flood's");
    }
    s.taken(1);
    assertTrue(s.admit(3), "a slot the flood gave back to the pool is anyone's");
    assertFalse(s.admit(1));
  }

  @Test
  void takenGivesSlotsBackSoASteadySourceIsNeverRefused() {
    InboundShares s = new InboundShares(16, 2);
    for (int round = 0; round < 10_000; round++) {
      assertTrue(s.admit(2));
      s.taken(2);
    }
    assertEquals(0, s.held(2));
    // Taken more often than admitted (a frame queued by another path): the count stays at 0.
    s.taken(2);
    assertEquals(0, s.held(2));
    assertTrue(s.admit(2));
  }

  @Test
  void sourcesOutOfRangeAreRefused() {
    InboundShares s = new InboundShares(16, 2);
    assertFalse(s.admit(0));
    assertFalse(s.admit(3));
    s.taken(3); // ignored
    assertEquals(0, s.held(3));
    assertThrows(IllegalArgumentException.class, () -> new InboundShares(0, 2));
    assertThrows(IllegalArgumentException.class, () -> new InboundShares(16, 0));
  }

  @Test
  void aTinyQueueStillReservesOneSlotPerSource() {
    InboundShares s = new InboundShares(4, 8);
    assertEquals(1, s.reserved());
    assertEquals(0, s.pool());
    for (int src = 1; src <= 8; src++) {
      assertTrue(s.admit(src));
      assertFalse(s.admit(src));
    }
  }

  /** Producers and a consumer on their own threads: the counts end where they started. */
  @Test
  void concurrentAdmitAndTakenKeepTheCountsExact() throws Exception {
    InboundShares s = new InboundShares(64, 4);
    int producers = 4;
    CountDownLatch done = new CountDownLatch(producers);
    for (int p = 0; p < producers; p++) {
      int src = 1 + p % 2; // two threads per source
      Thread t = new Thread(() -> {
        for (int i = 0; i < 50_000; i++) {
          if (s.admit(src)) {
            s.taken(src);
          }
        }
        done.countDown();
      });
      t.start();
    }
    done.await();
    assertEquals(0, s.held(1));
    assertEquals(0, s.held(2));
    for (int i = 0; i < 40; i++) {
      assertTrue(s.admit(1), "pool slot " + i + " was not given back");
    }
  }
}
