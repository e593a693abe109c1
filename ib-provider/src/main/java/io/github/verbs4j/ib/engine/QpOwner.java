package io.github.verbs4j.ib.engine;

import io.github.verbs4j.verbs.AsyncEventType;
import io.github.verbs4j.verbs.QpState;

/**
 * The verbs object that owns an {@link EngineQp}: the engine reads the QP's state from it, moves
 * it to ERR through it, and raises QP async events on it. {@link #lock()} is the QP lock: the
 * engine holds it while it works on the QP, and the owner holds it during {@code modify}, so a
 * transition never interleaves with protocol processing. It is a private object, not the verbs
 * QP the application holds (an application's {@code synchronized (qp)} cannot stall the engine).
 */
public interface QpOwner {
  /** @return the QP lock (the same object on every call) */
  Object lock();

  /** @return the QP's current state */
  QpState state();

  /**
   * Moves the QP to ERR because of a data-path error (raising QP_LAST_WQE_REACHED for an SRQ QP).
   *
   * @return true if the state changed (it was not already ERR or RESET)
   */
  boolean enterErrorState();

  /**
   * Raises an async event whose element is this QP.
   *
   * @param type the event
   */
  void raise(AsyncEventType type);
}
