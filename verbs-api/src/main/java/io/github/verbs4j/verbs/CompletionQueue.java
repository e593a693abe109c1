package io.github.verbs4j.verbs;

/**
 * A completion queue ({@code struct ibv_cq}): created by {@link Context#createCq}, polled with
 * {@link #poll(WorkCompletion[])}.
 *
 * <p>Completions of one work queue appear in posting order; completions of different QPs sharing
 * a CQ interleave. If more completions arrive than {@link #cqe()} can hold, the CQ overruns: one
 * {@link AsyncEventType#CQ_ERR} event is raised, the completion is lost, the QP that tried to
 * complete into the CQ moves to ERR, and every later {@code poll} throws EIO ({@code ibv_poll_cq}
 * returns a negative value).
 *
 * <p>Thread safety: {@code poll} may be called by one thread at a time per CQ (as with a real
 * HCA's CQ, which is lock-free for a single consumer); the provider's engines add completions
 * concurrently. {@code poll} allocates nothing. Closing fails with EBUSY while a QP or SRQ uses
 * the CQ or events are unacknowledged.
 */
public interface CompletionQueue extends AutoCloseable {
  /**
   * Removes up to {@code wcs.length} completions into {@code wcs} ({@code ibv_poll_cq}). Never
   * blocks.
   *
   * @param wcs caller-owned, reusable completions
   * @return the number filled, 0 if the CQ is empty
   * @throws VerbsException EIO if the CQ overran; EBADF if closed
   */
  int poll(WorkCompletion[] wcs);

  /**
   * Removes up to {@code max} completions into the first entries of {@code wcs}.
   *
   * @param wcs caller-owned completions
   * @param max at most this many; more than {@code wcs.length} counts as {@code wcs.length}
   * @return the number filled
   * @throws VerbsException EINVAL if max is negative; EIO if the CQ overran; EBADF if closed
   */
  int poll(WorkCompletion[] wcs, int max);

  /**
   * Arms the CQ for one event on its channel ({@code ibv_req_notify_cq}). One-shot: one event per
   * call. With {@code solicitedOnly} the event fires only for a receive completion of a message
   * with the solicited bit, or for any completion with an error status. Only completions added
   * after arming trigger it.
   *
   * @param solicitedOnly solicited-only notification
   * @throws VerbsException EINVAL if the CQ has no completion channel
   */
  void requestNotify(boolean solicitedOnly);

  /**
   * Acknowledges {@code n} events taken from the channel ({@code ibv_ack_cq_events}).
   *
   * @param n the number of events
   * @throws VerbsException EINVAL if more events are acknowledged than were delivered
   */
  void ackEvents(int n);

  /** @return the capacity, at least the requested size */
  int cqe();

  /**
   * Resizes the CQ ({@code ibv_resize_cq}); the new capacity is at least {@code cqe}.
   *
   * @param cqe requested capacity
   * @throws VerbsException EINVAL if {@code cqe} exceeds the device limit or is smaller than the
   *     number of completions waiting to be polled
   */
  void resize(int cqe);

  /** @return the completion channel, or null */
  CompletionChannel channel();

  /** @return the context */
  Context context();

  /**
   * Destroys the CQ ({@code ibv_destroy_cq}). Idempotent.
   *
   * @throws VerbsException EBUSY naming what still uses the CQ or the unacknowledged events
   */
  @Override
  void close();
}
