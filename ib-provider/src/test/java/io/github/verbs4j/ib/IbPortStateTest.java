package io.github.verbs4j.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.verbs4j.fabric.local.LocalNode;
import io.github.verbs4j.fabric.topo.SwitchTopology;
import io.github.verbs4j.verbs.AsyncEvent;
import io.github.verbs4j.verbs.AsyncEventType;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.PortState;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The port of {@code sim_ib0} follows its node's own links (CONFORMANCE.md, async events): no
 * event at open, DOWN without an event when the context opens on a cut link, PORT_ACTIVE when it
 * comes back; a peer's cut link is not this port's business.
 */
class IbPortStateTest {
  private static Context open(String fabric, int rank) {
    return Verbs.open(VerbsConfig.of(Map.of("verbs.provider", "ib", "verbs.fabric", "local", "verbs.fabric.name", fabric,
        "verbs.rank", Integer.toString(rank), "verbs.size", "2")));
  }

  @Test
  void aContextOpenedOnACutLinkIsDownSilentlyAndGetsPortActiveWhenItComesBack() {
    String fabric = "ib-port-state-" + System.nanoTime();
    try (Context a = open(fabric, 0)) {
      LocalNode node = (LocalNode) ((IbContext) a).fabricNode();
      node.fabric().faults().linkDown(SwitchTopology.uplink(2)); // node 2 has not joined yet
      try (Context b = open(fabric, 1)) {
        assertEquals(PortState.DOWN, b.queryPort(1).state());
        assertEquals(Optional.empty(), b.pollAsyncEvent(Duration.ofMillis(100)), "no event at open");
        node.fabric().faults().linkUp(SwitchTopology.uplink(2));
        Optional<AsyncEvent> ev = b.pollAsyncEvent(Duration.ofSeconds(10));
        assertEquals(Optional.of(AsyncEvent.ofPort(AsyncEventType.PORT_ACTIVE, 1)), ev);
        assertEquals(PortState.ACTIVE, b.queryPort(1).state());
        assertEquals(PortState.ACTIVE, a.queryPort(1).state());
        assertEquals(Optional.empty(), a.pollAsyncEvent(Duration.ofMillis(100)), "node 1's port never changed");
      }
    }
  }
}
