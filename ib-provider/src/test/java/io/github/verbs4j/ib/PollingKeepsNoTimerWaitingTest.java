package io.github.verbs4j.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.verbs4j.fabric.testing.BusyLooks;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.WorkCompletion;
import java.util.Map;
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
      CompletionQueue cq = n.a.createCq(16, null, 0);
      WorkCompletion[] wc = WorkCompletion.array(1);
      BusyLooks.Result r = BusyLooks.whileRunning(((IbContext) n.a).fabricNode().clock(), () -> cq.poll(wc), 300);
      assertEquals(0, r.busy(), r.toString());
      cq.close();
    }
  }
}
