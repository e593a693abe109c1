package io.github.verbs4j.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.verbs4j.fabric.time.NodeClock;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.WorkCompletion;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Modelled time: the node's timers move the clock to a deadline only while the node is not busy.
 * An application polling an empty CQ in a tight loop may run the device's duty cycle on its own
 * thread each time, but it finds nothing to do: the node must not look busy, or every timer (a
 * retransmission, an RNR retry, a held ACK) waits until a look happens to fall between two polls.
 */
class PollingKeepsNoTimerWaitingTest {
  @Test
  void anApplicationPollingAnEmptyCqDoesNotMakeTheNodeBusy() throws Exception {
    try (TwoNodes n = TwoNodes.threaded(Map.of("verbs.time", "modelled"))) {
      NodeClock clock = ((IbContext) n.a).fabricNode().clock();
      CompletionQueue cq = n.a.createCq(16, null, 0);
      AtomicBoolean stop = new AtomicBoolean();
      Thread poller = new Thread(() -> {
        WorkCompletion[] wc = WorkCompletion.array(1);
        while (!stop.get()) {
          cq.poll(wc);
        }
      });
      poller.start();
      int busy = 0;
      int looks = 0;
      try {
        long settle = System.nanoTime() + 10_000_000_000L;
        while (clock.busy() && System.nanoTime() < settle) {
          Thread.sleep(1); // the setup's signals are taken first
        }
        long end = System.nanoTime() + 300_000_000L;
        while (System.nanoTime() < end) {
          looks++;
          if (clock.busy()) {
            busy++;
          }
          LockSupport.parkNanos(20_000);
        }
      } finally {
        stop.set(true);
        poller.join();
      }
      assertEquals(0, busy, "of " + looks + " looks, those that found the idle node busy");
      cq.close();
    }
  }
}
