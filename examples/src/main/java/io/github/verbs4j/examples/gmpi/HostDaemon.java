package io.github.verbs4j.examples.gmpi;

import io.github.verbs4j.examples.common.Backoff;
import io.github.verbs4j.examples.mp.ReduceOp;
import io.github.verbs4j.examples.mp.Status;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The host daemon of seed 004 §3.2: a thread that polls the request ring, performs each request on
 * the message-passing layer (through {@link TimedComm}, which it alone drives) and writes the
 * answer. Requests are performed in ring order; a {@code GMPI_Wait} blocks the daemon until its
 * request is done (bounded by the communicator's timeout), as {@code MPI_Wait} blocks the host
 * thread of the paper's daemon. A failed call is answered with {@link AttributeRing#ERROR}; its
 * message is kept for the warp's exception.
 *
 * <p>Modelled time: the daemon's clock moves to each request's visibility time, then by the call's
 * modelled cost; the answer is visible to the warp {@link AcceleratorCosts#answerNanos()} later.
 */
public final class HostDaemon implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HostDaemon.class);
  private static final AtomicLong THREADS = new AtomicLong();

  private enum State {
    NEW,
    RUNNING,
    STOPPED
  }

  private final AttributeRing ring;
  private final TimedComm comm;
  private final DeviceMemory memory;
  private final AcceleratorCosts costs;
  private final Map<Long, String> errors = new ConcurrentHashMap<>();
  private final long[] args = new long[AttributeRing.MAX_ARGS];
  private final long[] results = new long[AttributeRing.MAX_ARGS];
  private final AtomicLong served = new AtomicLong();
  private volatile State state = State.NEW;
  private volatile Throwable failure;
  private Thread thread;

  /**
   * @param ring the rings
   * @param comm the host's message passing (driven by the daemon's thread from {@link #start} on)
   * @param memory the device memory the attributes point into
   * @param costs the profile
   */
  public HostDaemon(AttributeRing ring, TimedComm comm, DeviceMemory memory, AcceleratorCosts costs) {
    this.ring = ring;
    this.comm = comm;
    this.memory = memory;
    this.costs = costs;
  }

  /** Starts the daemon's thread. */
  public synchronized void start() {
    if (state != State.NEW) {
      throw new IllegalStateException("the daemon is " + state + ", not NEW");
    }
    state = State.RUNNING;
    thread = new Thread(this::loop, "gmpi-daemon-" + THREADS.incrementAndGet());
    thread.setDaemon(true);
    thread.start();
  }

  /** @return requests answered so far */
  public long served() {
    return served.get();
  }

  /**
   * @param ticket a request's ticket
   * @return why the host failed it, or null
   */
  public String error(long ticket) {
    return errors.remove(ticket);
  }

  /** @return the daemon's own failure (a broken ring), or null */
  public Throwable failure() {
    return failure;
  }

  private void loop() {
    Backoff backoff = Backoff.forLatency();
    try {
      while (state == State.RUNNING) {
        long header = ring.poll(args);
        if (header < 0) {
          backoff.idle();
          continue;
        }
        backoff.reset();
        serve(header);
      }
    } catch (Throwable t) {
      failure = t;
      LOG.error("GMPI host daemon failed", t);
    }
  }

  private void serve(long header) {
    long ticket = header >>> 16;
    int argc = (int) (header >>> 8 & 0xff);
    ModelledClock clock = comm.clock();
    clock.advanceTo(ring.visibleAt(ticket));
    int n;
    int code = AttributeRing.OK;
    GmpiFunction f = null;
    try {
      f = GmpiFunction.fromValue((int) (header & 0xff));
      n = perform(f, argc);
    } catch (RuntimeException e) {
      errors.put(ticket, (f == null ? "request" : f.cName()) + ": " + e.getMessage());
      code = AttributeRing.ERROR;
      n = 0;
    }
    ring.answer(ticket, code, results, n, clock.now() + costs.answerNanos());
    served.incrementAndGet();
  }

  private void need(GmpiFunction f, int argc, int want) {
    if (argc != want) {
      throw new IllegalArgumentException(f.cName() + " takes " + want + " arguments, the attribute has " + argc);
    }
  }

  private static int toInt(String what, long v) {
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(what + "=" + v + " does not fit an int");
    }
    return (int) v;
  }

  private ByteBuffer buffer(long ptr, long count, long datatype) {
    Datatype t = Datatype.fromValue(datatype);
    if (count < 0 || count * t.size() > Integer.MAX_VALUE - 64) {
      throw new IllegalArgumentException("count=" + count + " is out of range");
    }
    return memory.resolve(ptr, count * t.size());
  }

  private int perform(GmpiFunction f, int argc) {
    switch (f) {
      case ISEND, IRECV -> {
        need(f, argc, 6);
        checkComm(args[5]);
        ByteBuffer b = buffer(args[0], args[1], args[2]);
        int peer = toInt("peer", args[3]);
        int tag = toInt("tag", args[4]);
        results[0] = f == GmpiFunction.ISEND ? comm.isend(b, peer, tag) : comm.irecv(b, peer, tag);
        return 1;
      }
      case WAIT -> {
        need(f, argc, 1);
        Status st = comm.await(args[0]);
        results[0] = st.source();
        results[1] = st.tag();
        results[2] = st.length();
        return 3;
      }
      case WAITALL -> {
        if (argc < 1 || args[0] != argc - 1) {
          throw new IllegalArgumentException("GMPI_Waitall takes a count and that many handles; count "
              + (argc < 1 ? "missing" : args[0]) + " with " + Math.max(0, argc - 1) + " handles");
        }
        for (int i = 1; i < argc; i++) {
          comm.await(args[i]);
        }
        return 0;
      }
      case ALLREDUCE -> {
        need(f, argc, 5);
        checkComm(args[4]);
        ByteBuffer b = buffer(args[0], args[1], args[2]);
        comm.allreduce(b, (int) args[1], Datatype.fromValue(args[2]), reduceOp(args[3]));
        return 0;
      }
      case SYNCHRONIZE -> {
        need(f, argc, 0);
        comm.waitOpen();
        return 0;
      }
      case ECHO -> {
        long sum = 0;
        for (int i = 0; i < argc; i++) {
          sum += args[i];
        }
        results[0] = sum;
        return 1;
      }
      default -> throw new IllegalArgumentException("unhandled function " + f);
    }
  }

  private static void checkComm(long comm) {
    if (comm != Gmpi.COMM_WORLD) {
      throw new IllegalArgumentException("comm=" + comm + " is not GMPI_COMM_WORLD (" + Gmpi.COMM_WORLD + ")");
    }
  }

  private static ReduceOp reduceOp(long op) {
    if (op == Gmpi.SUM) {
      return ReduceOp.SUM;
    }
    if (op == Gmpi.MAX) {
      return ReduceOp.MAX;
    }
    throw new IllegalArgumentException("op=" + op + " is not GMPI_SUM (" + Gmpi.SUM + ") or GMPI_MAX (" + Gmpi.MAX + ")");
  }

  /**
   * Stops the thread after the request it is serving (bounded wait).
   *
   * @param timeout how long to wait for the thread
   */
  public void stop(Duration timeout) {
    State was = state;
    state = State.STOPPED;
    if (was == State.RUNNING && thread != Thread.currentThread()) {
      try {
        thread.join(timeout.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (thread.isAlive()) {
        LOG.warn("GMPI host daemon still busy after {}", timeout);
      }
    }
  }

  @Override
  public void close() {
    stop(Duration.ofSeconds(30));
  }
}
