package io.github.verbs4j.examples.gmpi;

import java.time.Duration;

/**
 * The device-side GMPI functions ({@code __device__} in seed 004, figure 6), called by a warp of a
 * running kernel: each stores an attribute (function id and arguments, one 8-byte word per lane)
 * into the request ring, waits for the host daemon's answer on the answer ring, and returns. A
 * warp's calls allocate nothing (the attribute and answer live in the warp's scratch). Thread-safe:
 * any number of warps call concurrently, without locks.
 *
 * <pre>{@code
 * Kernel pingpong = warp -> {
 *   for (int i = 0; i < iters; i++) {
 *     gmpi.isend(warp, src, n, Datatype.BYTE, 1, i);
 *     long r = gmpi.irecv(warp, dst, n, Datatype.BYTE, 1, i);
 *     gmpi.await(warp, r);
 *     gmpi.synchronize(warp);
 *   }
 * };
 * }</pre>
 */
public final class Gmpi {
  /** {@code GMPI_COMM_WORLD}, the only communicator. */
  public static final long COMM_WORLD = 0;
  /** {@code GMPI_SUM}. */
  public static final long SUM = 1;
  /** {@code GMPI_MAX}. */
  public static final long MAX = 2;
  /** {@code GMPI_ANY_SOURCE} / {@code GMPI_ANY_TAG}. */
  public static final int ANY = -1;

  private final AttributeRing ring;
  private final AcceleratorCosts costs;
  private final HostDaemon daemon;
  private final Duration timeout;

  /**
   * @param ring the rings
   * @param costs the profile
   * @param daemon the daemon (for error messages)
   * @param timeout how long a call waits for a slot and for its answer
   */
  public Gmpi(AttributeRing ring, AcceleratorCosts costs, HostDaemon daemon, Duration timeout) {
    this.ring = ring;
    this.costs = costs;
    this.daemon = daemon;
    this.timeout = timeout;
  }

  private long call(Warp w, GmpiFunction f, int argc) {
    long ticket = ring.submit(f, w.args, argc, w.clock(), costs, timeout);
    int code = ring.awaitAnswer(ticket, f, w.answer, w.clock(), timeout);
    if (code != AttributeRing.OK) {
      String why = daemon.error(ticket);
      throw new GmpiException(f.cName() + " (ticket " + ticket + ") failed on the host: "
          + (why != null ? why : "answer code " + code));
    }
    return w.answer[0];
  }

  /**
   * {@code GMPI_Isend}.
   *
   * @param w the calling warp
   * @param buf device pointer
   * @param count elements
   * @param type their type
   * @param dest destination rank
   * @param tag tag
   * @return the request handle
   */
  public long isend(Warp w, long buf, int count, Datatype type, int dest, int tag) {
    return point(w, GmpiFunction.ISEND, buf, count, type, dest, tag);
  }

  /**
   * {@code GMPI_Irecv}.
   *
   * @param w the calling warp
   * @param buf device pointer
   * @param count elements (the most that may arrive)
   * @param type their type
   * @param source source rank or {@link #ANY}
   * @param tag tag or {@link #ANY}
   * @return the request handle
   */
  public long irecv(Warp w, long buf, int count, Datatype type, int source, int tag) {
    return point(w, GmpiFunction.IRECV, buf, count, type, source, tag);
  }

  private long point(Warp w, GmpiFunction f, long buf, int count, Datatype type, int peer, int tag) {
    long[] a = w.args;
    a[0] = buf;
    a[1] = count;
    a[2] = type.value();
    a[3] = peer;
    a[4] = tag;
    a[5] = COMM_WORLD;
    return call(w, f, 6);
  }

  /**
   * {@code GMPI_Wait}: the warp waits until the request is done.
   *
   * @param w the calling warp
   * @param request a handle
   * @return the message length in bytes (for a receive; for a send, the bytes sent); source and tag
   *     are in {@link #lastSource(Warp)} and {@link #lastTag(Warp)}
   */
  public long await(Warp w, long request) {
    w.args[0] = request;
    call(w, GmpiFunction.WAIT, 1);
    return w.answer[2];
  }

  /**
   * @param w a warp whose last call was {@link #await}
   * @return the source rank of the message it waited for
   */
  public int lastSource(Warp w) {
    return (int) w.answer[0];
  }

  /**
   * @param w a warp whose last call was {@link #await}
   * @return the tag of the message it waited for
   */
  public int lastTag(Warp w) {
    return (int) w.answer[1];
  }

  /**
   * {@code GMPI_Waitall}.
   *
   * @param w the calling warp
   * @param requests up to 30 handles
   */
  public void waitall(Warp w, long... requests) {
    waitall(w, requests, requests.length);
  }

  /**
   * {@code GMPI_Waitall} over the first {@code count} handles of {@code requests} (no allocation).
   *
   * @param w the calling warp
   * @param requests handles
   * @param count how many, 0..30
   */
  public void waitall(Warp w, long[] requests, int count) {
    if (count < 0 || count > AttributeRing.MAX_ARGS - 1) {
      throw new IllegalArgumentException("GMPI_Waitall: count=" + count + " must be between 0 and "
          + (AttributeRing.MAX_ARGS - 1) + " (the handles an attribute carries)");
    }
    w.args[0] = count;
    System.arraycopy(requests, 0, w.args, 1, count);
    call(w, GmpiFunction.WAITALL, count + 1);
  }

  /**
   * {@code GMPI_Allreduce} in place.
   *
   * @param w the calling warp
   * @param buf device pointer to the elements
   * @param count elements
   * @param type INT, LONG or DOUBLE
   * @param op {@link #SUM} or {@link #MAX}
   */
  public void allreduce(Warp w, long buf, int count, Datatype type, long op) {
    long[] a = w.args;
    a[0] = buf;
    a[1] = count;
    a[2] = type.value();
    a[3] = op;
    a[4] = COMM_WORLD;
    call(w, GmpiFunction.ALLREDUCE, 5);
  }

  /**
   * {@code GMPI_Synchronize}: returns once every request this rank posted so far is done.
   *
   * @param w the calling warp
   */
  public void synchronize(Warp w) {
    call(w, GmpiFunction.SYNCHRONIZE, 0);
  }

  /**
   * A probe request: the daemon answers the sum of the arguments, without message passing.
   *
   * @param w the calling warp
   * @param argc arguments, 0..31, taken from {@code values}
   * @param values the arguments
   * @return their sum, as computed by the host
   */
  public long echo(Warp w, int argc, long... values) {
    System.arraycopy(values, 0, w.args, 0, argc);
    return call(w, GmpiFunction.ECHO, argc);
  }
}
