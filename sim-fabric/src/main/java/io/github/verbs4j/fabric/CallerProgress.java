package io.github.verbs4j.fabric;

import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * Caller progress, a capability a node offers when it was opened with {@code
 * verbs.fabric.progress=caller} (netty; {@link FabricNode#callerProgress()}): a thread that polls
 * runs the node's I/O, tasks and timers itself, as the node's fabric thread, instead of handing
 * each frame to the node's own thread — the manual progress of libfabric ({@code
 * FI_PROGRESS_MANUAL}) and UCX's worker progress. A background thread takes over whenever no caller
 * has called {@link #progress} for {@code verbs.fabric.progress-lease-us}.
 *
 * <pre>{@code
 * CallerProgress cp = node.callerProgress().orElse(null);
 * int n = cp != null ? cp.progress(engine::doWork) : engine.doWork();
 * }</pre>
 *
 * <p>A caller with nothing to do until something arrives may wait inside the node's I/O instead of
 * handing it to the background thread and blocking elsewhere ({@link #awaitIo}): the frame that
 * ends the wait then wakes the caller itself.
 *
 * <p>Exactly one thread runs the node's I/O, tasks and timers at any time; every method may be
 * called from any thread and only {@link #awaitIo} blocks.
 */
public interface CallerProgress {
  /**
   * Runs the node's ready I/O, tasks and due timers on the calling thread and then {@code work},
   * all as the node's fabric thread (frames {@code work} sends leave at once), unless another
   * thread is running them right now; then it runs only {@code work}. Re-entrant: a nested call
   * runs only {@code work}.
   *
   * @param work what to run afterwards, on this thread (may be null)
   * @return what {@code work} returned plus the I/O events and tasks handled
   */
  int progress(IntSupplier work);

  /**
   * {@link #progress(IntSupplier)}, optionally without reading the sockets first (a caller that
   * only sends: its frames still leave at once, its next call reads).
   *
   * @param work what to run, on this thread (may be null)
   * @param pollIo whether to handle ready I/O first
   * @return what {@code work} returned plus the I/O events and tasks handled
   */
  int progress(IntSupplier work, boolean pollIo);

  /**
   * Waits for input as the node's fabric thread: blocks in the node's selector until I/O, a task or
   * a timer is ready, {@code ready} is true, {@link #wakeAwaiting} is called or {@code timeoutNanos}
   * passes; then handles what is ready and runs {@code work}, as {@link #progress} does. If another
   * thread runs the I/O it is asked to step back, and waited for within the timeout.
   *
   * @param work what to run afterwards, on this thread (may be null)
   * @param ready checked just before blocking: true means do not block (a thread that makes it
   *     true calls {@link #wakeAwaiting} afterwards)
   * @param timeoutNanos longest wait
   * @return false if nothing ran because the I/O could not be taken (another thread kept it, the
   *     node is closing, or this thread is already inside a call): the caller waits its own way
   */
  boolean awaitIo(IntSupplier work, BooleanSupplier ready, long timeoutNanos);

  /** Ends the wait of a thread in {@link #awaitIo} (any thread; cheap when none waits). */
  void wakeAwaiting();

  /**
   * The calling thread will not call {@link #progress} for a while (it is about to block): the
   * background thread takes the I/O over now instead of after the lease.
   */
  void yieldProgress();

  /**
   * Runs {@code task} on the node's background thread each time it takes the I/O over because
   * callers stopped calling {@link #progress} (the lease ran out, or {@link #yieldProgress}), so a
   * caller's deferred work is not left waiting for a call that does not come. Replaces an earlier
   * task.
   *
   * @param task what to run, or null for nothing
   */
  void onCallersIdle(Runnable task);
}
