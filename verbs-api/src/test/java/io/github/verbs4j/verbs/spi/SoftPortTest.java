package io.github.verbs4j.verbs.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.verbs4j.verbs.AsyncEvent;
import io.github.verbs4j.verbs.AsyncEventType;
import io.github.verbs4j.verbs.PortState;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link SoftPort}: port events only on a change of state, the state set before the event. */
class SoftPortTest {
  private final TestContext ctx = new TestContext();

  @AfterEach
  void closeContext() {
    ctx.close();
  }

  private Optional<AsyncEvent> event() {
    return ctx.pollAsyncEvent(Duration.ZERO);
  }

  @Test
  void creationRaisesNothingAndEachChangeRaisesOneEvent() {
    SoftPort port = new SoftPort(ctx, 1, true);
    assertEquals(PortState.ACTIVE, port.state());
    assertEquals(Optional.empty(), event(), "no event at open");
    port.linkChanged(true);
    assertEquals(Optional.empty(), event(), "up while up is no change");
    port.linkChanged(false);
    port.linkChanged(false);
    assertEquals(PortState.DOWN, port.state());
    assertEquals(Optional.of(AsyncEvent.ofPort(AsyncEventType.PORT_ERR, 1)), event());
    assertEquals(Optional.empty(), event(), "down while down is no change");
    port.linkChanged(true);
    assertEquals(PortState.ACTIVE, port.state());
    assertEquals(Optional.of(AsyncEvent.ofPort(AsyncEventType.PORT_ACTIVE, 1)), event());
    assertEquals(Optional.empty(), event());
  }

  @Test
  void aPortWhoseLinkIsDownAtOpenStartsDownSilently() {
    SoftPort port = new SoftPort(ctx, 2, false);
    assertEquals(PortState.DOWN, port.state());
    assertEquals(Optional.empty(), event());
    port.linkChanged(true);
    assertEquals(Optional.of(AsyncEvent.ofPort(AsyncEventType.PORT_ACTIVE, 2)), event());
  }
}
