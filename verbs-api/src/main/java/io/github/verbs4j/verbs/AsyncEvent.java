package io.github.verbs4j.verbs;

import java.util.Objects;

/**
 * An asynchronous event ({@code struct ibv_async_event}), returned by {@link
 * Context#pollAsyncEvent}. Exactly one element field is set, according to the type (see the
 * table in verbs.h): a QP, a CQ, an SRQ, or a port number.
 *
 * <p>verbs4j providers raise CQ_ERR, QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, COMM_EST, SQ_DRAINED,
 * SRQ_LIMIT_REACHED, QP_LAST_WQE_REACHED, PORT_ACTIVE and PORT_ERR. Unlike libibverbs, events
 * need no acknowledgement: closing an object never waits for its events.
 *
 * @param type the event type
 * @param qp the QP, for QP events
 * @param cq the CQ, for CQ_ERR
 * @param srq the SRQ, for SRQ events
 * @param portNum the port, for port events (0 otherwise)
 */
public record AsyncEvent(AsyncEventType type, QueuePair qp, CompletionQueue cq, SharedReceiveQueue srq, int portNum) {

  /** Checks the type. */
  public AsyncEvent {
    Objects.requireNonNull(type, "type");
  }

  /**
   * @param type a QP event type
   * @param qp the QP
   * @return the event
   */
  public static AsyncEvent ofQp(AsyncEventType type, QueuePair qp) {
    return new AsyncEvent(type, qp, null, null, 0);
  }

  /**
   * @param cq the CQ that overflowed
   * @return a CQ_ERR event
   */
  public static AsyncEvent ofCq(CompletionQueue cq) {
    return new AsyncEvent(AsyncEventType.CQ_ERR, null, cq, null, 0);
  }

  /**
   * @param type an SRQ event type
   * @param srq the SRQ
   * @return the event
   */
  public static AsyncEvent ofSrq(AsyncEventType type, SharedReceiveQueue srq) {
    return new AsyncEvent(type, null, null, srq, 0);
  }

  /**
   * @param type a port event type
   * @param port the port number
   * @return the event
   */
  public static AsyncEvent ofPort(AsyncEventType type, int port) {
    return new AsyncEvent(type, null, null, null, port);
  }
}
