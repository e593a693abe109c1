package io.github.verbs4j.verbs.spi;

import io.github.verbs4j.verbs.AsyncEvent;
import io.github.verbs4j.verbs.AsyncEventType;
import io.github.verbs4j.verbs.PortState;

/**
 * The state of one port of a context as its link reports it, with the port events libibverbs
 * raises: PORT_ERR when an ACTIVE port goes DOWN, PORT_ACTIVE when it comes back — only on a
 * change, never because the context opened (as rxe's {@code rxe_port_down}/{@code rxe_port_up},
 * which set the state and dispatch the event together). A provider creates it at open with the
 * link's state, reports every change with {@link #linkChanged}, and returns {@link #state()} from
 * {@code portAttr}; the state is set before the event is queued, so a program that sees PORT_ERR
 * reads DOWN from {@code queryPort}.
 *
 * <p>Thread-safe.
 */
public final class SoftPort {
  private final AbstractContext context;
  private final int portNum;
  private volatile PortState state;

  /**
   * @param context the context that raises the events
   * @param portNum the port number (1-based)
   * @param linkUp whether the port's link is up at open (no event either way)
   */
  public SoftPort(AbstractContext context, int portNum, boolean linkUp) {
    this.context = context;
    this.portNum = portNum;
    this.state = linkUp ? PortState.ACTIVE : PortState.DOWN;
  }

  /** @return ACTIVE or DOWN */
  public PortState state() {
    return state;
  }

  /**
   * The port's link went down or came up: moves the state and raises PORT_ERR or PORT_ACTIVE if
   * that changes it; a repeated report changes nothing.
   *
   * @param up true if the link is up
   */
  public synchronized void linkChanged(boolean up) {
    PortState next = up ? PortState.ACTIVE : PortState.DOWN;
    if (next == state) {
      return;
    }
    state = next;
    context.raiseAsyncEvent(AsyncEvent.ofPort(up ? AsyncEventType.PORT_ACTIVE : AsyncEventType.PORT_ERR, portNum));
  }
}
