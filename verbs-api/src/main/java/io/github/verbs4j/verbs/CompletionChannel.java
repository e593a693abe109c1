package io.github.verbs4j.verbs;

import java.time.Duration;
import java.util.Optional;

/**
 * A completion event channel ({@code struct ibv_comp_channel}). A CQ created with a channel and
 * armed with {@link CompletionQueue#requestNotify(boolean)} delivers one event here when a new
 * completion (or, solicited-only, a solicited or error completion) is added.
 *
 * <p>The canonical loop, as in {@code ibv_get_cq_event(3)}: await, ack, re-arm, then poll until
 * empty. An event may find the CQ already drained; that is not an error.
 *
 * <pre>{@code
 * cq.requestNotify(false);
 * while (running) {
 *   Optional<CompletionQueue> ev = channel.await(Duration.ofSeconds(1));
 *   if (ev.isEmpty()) continue;
 *   ev.get().ackEvents(1);
 *   ev.get().requestNotify(false);
 *   while ((n = ev.get().poll(wcs)) > 0) { ... }
 * }
 * }</pre>
 *
 * <p>Closing fails with EBUSY while CQs use the channel. Thread-safe.
 */
public interface CompletionChannel extends AutoCloseable {
  /**
   * Waits for the next completion event ({@code ibv_get_cq_event}).
   *
   * @param timeout how long to wait; zero polls
   * @return the CQ that raised the event, or empty on timeout
   * @throws VerbsException EBADF if the channel is closed
   */
  Optional<CompletionQueue> await(Duration timeout);

  /** @return the context */
  Context context();

  /**
   * Destroys the channel ({@code ibv_destroy_comp_channel}). Idempotent.
   *
   * @throws VerbsException EBUSY naming the CQs still attached
   */
  @Override
  void close();
}
