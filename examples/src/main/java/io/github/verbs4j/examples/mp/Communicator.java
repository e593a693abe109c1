package io.github.verbs4j.examples.mp;

import java.nio.ByteBuffer;

/**
 * A group of ranks exchanging tagged messages, in the manner of an MPI communicator (a small
 * subset): non-blocking and blocking point-to-point messages matched by source and tag in posting
 * order (messages between two ranks do not overtake each other), a barrier, and allreduce of
 * doubles and longs.
 *
 * <p>A send's data is the buffer's bytes from position to limit; a receive fills the buffer from
 * its position, at most {@code remaining()} bytes (a longer message fails the receive as
 * truncated). Positions and limits are never changed. Buffers from {@link #allocate(int)} are
 * registered memory: large messages to and from them move without an extra copy.
 *
 * <pre>{@code
 * try (Communicator comm = VerbsCommunicator.open(ctx, MpConfig.defaults())) {
 *   ByteBuffer buf = comm.allocate(1 << 20);
 *   if (comm.rank() == 0) comm.send(buf, 1, 7); else comm.recv(buf, 0, 7);
 *   double[] residual = {local};
 *   comm.allreduce(residual, ReduceOp.SUM);
 * }
 * }</pre>
 *
 * <p>Not thread-safe: one thread drives a communicator (MPI_THREAD_SINGLE). Every wait is bounded
 * by the communicator's timeout and fails with an {@link MpException} naming what was awaited.
 */
public interface Communicator extends AutoCloseable {
  /** Receive from any rank. */
  int ANY_SOURCE = -1;
  /** Receive any tag. */
  int ANY_TAG = -1;

  /** @return this rank, 0..size-1 */
  int rank();

  /** @return the number of ranks */
  int size();

  /**
   * Memory for messages: a direct buffer of {@code bytes} bytes that the communicator has
   * registered, valid until it is closed.
   *
   * @param bytes the size
   * @return the buffer (position 0, limit bytes)
   */
  ByteBuffer allocate(int bytes);

  /**
   * Starts sending {@code data}'s remaining bytes to {@code dest} with {@code tag}.
   *
   * @param data the message (not to be modified until the request is done)
   * @param dest the destination rank (may be this rank)
   * @param tag a tag, 0 or more
   * @return the request
   */
  Request isend(ByteBuffer data, int dest, int tag);

  /**
   * Starts receiving a message from {@code source} with {@code tag} into {@code into}.
   *
   * @param into where the message goes, at most {@code remaining()} bytes
   * @param source a rank or {@link #ANY_SOURCE}
   * @param tag a tag or {@link #ANY_TAG}
   * @return the request
   */
  Request irecv(ByteBuffer into, int source, int tag);

  /**
   * Waits until {@code request} is done.
   *
   * @param request the request
   * @return its status
   * @throws MpException if it failed or did not finish within the timeout
   */
  Status wait(Request request);

  /**
   * Waits for every request.
   *
   * @param requests the requests
   * @throws MpException for the first that failed
   */
  void waitAll(Request... requests);

  /**
   * Sends and waits until {@code data} may be reused.
   *
   * @param data the message
   * @param dest the destination
   * @param tag the tag
   */
  default void send(ByteBuffer data, int dest, int tag) {
    wait(isend(data, dest, tag));
  }

  /**
   * Receives a message.
   *
   * @param into where it goes
   * @param source a rank or {@link #ANY_SOURCE}
   * @param tag a tag or {@link #ANY_TAG}
   * @return its status
   */
  default Status recv(ByteBuffer into, int source, int tag) {
    return wait(irecv(into, source, tag));
  }

  /** Waits until every rank has called it. */
  void barrier();

  /**
   * Combines {@code values} element-wise over all ranks; every rank gets the same result (the
   * combination order is fixed, so even floating-point sums are bit-identical on every rank).
   *
   * @param values this rank's values, replaced by the result
   * @param op the operation
   */
  void allreduce(double[] values, ReduceOp op);

  /**
   * @param values this rank's values, replaced by the result
   * @param op the operation
   * @see #allreduce(double[], ReduceOp)
   */
  void allreduce(long[] values, ReduceOp op);

  /** @return the current time of the communicator's clock (modelled when the fabric models time) */
  long nowNanos();

  /**
   * Accounts this rank's computation to the communicator's clock: with modelled time the clock
   * moves forward by {@code nanos} ({@code Context.chargeNanos}); with wall time nothing happens.
   *
   * @param nanos the computation's modelled duration, not negative
   */
  void compute(long nanos);

  /** Releases everything; pending requests are abandoned. */
  @Override
  void close();
}
