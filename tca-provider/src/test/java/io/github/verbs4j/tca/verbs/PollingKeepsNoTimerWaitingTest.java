package io.github.verbs4j.tca.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.verbs4j.fabric.testing.BusyLooks;
import io.github.verbs4j.tca.peach2.FabricLink;
import io.github.verbs4j.verbs.WorkCompletion;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Modelled time: the node's timers move the clock to a deadline only while the node is not busy.
 * An application polling an empty CQ in a tight loop runs the proxy's duty cycle on its own thread
 * each time, but finds nothing to do: the node must not look busy, or every timer (a link-level
 * Ack, a replay, a held DMA frame) waits until a look happens to fall between two polls.
 */
class PollingKeepsNoTimerWaitingTest {
  @Test
  void anApplicationPollingAnEmptyCqDoesNotMakeTheNodeBusy() throws Exception {
    try (TwoTcaNodes n = new TwoTcaNodes(14, Map.of("verbs.time", "modelled"))) {
      WorkCompletion[] wc = WorkCompletion.array(1);
      BusyLooks.Result r = BusyLooks.whileRunning(((FabricLink) n.a.tca().board().link()).fabricNode().clock(),
          () -> n.a.cq.poll(wc), 300);
      assertEquals(0, r.busy(), r.toString());
    }
  }
}
