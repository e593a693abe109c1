package io.github.verbs4j.examples.gmpi;

import io.github.verbs4j.examples.mp.Communicator;
import io.github.verbs4j.examples.mp.ReduceOp;
import io.github.verbs4j.examples.mp.Request;
import io.github.verbs4j.examples.mp.Status;
import io.github.verbs4j.verbs.MemoryKind;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * The host's message passing on behalf of the accelerator, used by the GMPI daemon and by the
 * host-driven baseline alike: messages between device buffers staged through buffers the
 * communicator registered, with integer request handles, and a modelled timeline. Staging buffers
 * are of the accelerator's memory kind: {@code MemoryKind.DEVICE} where the provider has it (tca:
 * a large message leaves by the PEACH2 board's DMA reading GPU memory), host memory otherwise (ib),
 * where the sender also pays {@link AcceleratorCosts#deviceReadNanos} for the bytes GPUDirect would
 * read out of device memory. Every message carries an 8-byte trailer with the sender's modelled
 * posting time, so a receive completes, in modelled time, at {@code max(posted, sent + read +
 * fabric(bytes))}, with the fabric's own one-way time ({@link FabricTimes}); allreduce also reduces
 * the ranks' times (MAX). The trailer is bookkeeping of the simulation: payloads and statuses
 * exclude it.
 *
 * <p>Staging buffers are pooled by power-of-two size, so steady-state calls allocate nothing but
 * the communicator's own requests. Driven by one thread (the communicator's rule).
 */
public final class TimedComm {
  private static final int TRAILER = 8;
  private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

  private enum Kind {
    SEND,
    RECV
  }

  private static final class Pending {
    Kind kind;
    Request request;
    ByteBuffer staging;
    ByteBuffer target;
    long postedAt;
    long doneAt;
    int bytes;
    int peer;
    int tag;
  }

  private final Communicator comm;
  private final AcceleratorCosts costs;
  private final ModelledClock clock;
  private final MemoryKind kind;
  private final FabricTimes fabric;
  @SuppressWarnings("unchecked")
  private final ArrayDeque<ByteBuffer>[] pool = new ArrayDeque[32];
  private Pending[] pending = new Pending[16];
  private int[] free = new int[16];
  private int freeCount;
  private int open;

  /**
   * @param comm the communicator (this object's thread drives it)
   * @param costs the profile (its device read rate)
   * @param clock the driving thread's modelled clock
   * @param kind the staging buffers' memory kind (the accelerator's device kind)
   * @param fabric the fabric's message times (may be null only when {@code comm} is)
   */
  public TimedComm(Communicator comm, AcceleratorCosts costs, ModelledClock clock, MemoryKind kind,
      FabricTimes fabric) {
    if (comm != null && fabric == null) {
      throw new IllegalArgumentException("fabric must not be null when there is a communicator");
    }
    this.comm = comm;
    this.costs = costs;
    this.clock = clock;
    this.kind = kind;
    this.fabric = fabric;
    for (int i = pending.length - 1; i >= 0; i--) {
      pending[i] = new Pending();
      free[freeCount++] = i;
    }
  }

  /** @return the communicator */
  public Communicator comm() {
    return comm;
  }

  /** @return the driving thread's modelled clock */
  public ModelledClock clock() {
    return clock;
  }

  /** @return requests posted and not yet waited for */
  public int open() {
    return open;
  }

  private ByteBuffer stage(int bytes) {
    int k = 32 - Integer.numberOfLeadingZeros(Math.max(64, bytes) - 1);
    ArrayDeque<ByteBuffer> q = pool[k];
    ByteBuffer b = q == null ? null : q.poll();
    if (b == null) {
      b = comm.allocate(1 << k, kind).order(LE);
    }
    return b.clear();
  }

  private void unstage(ByteBuffer b) {
    int k = Integer.numberOfTrailingZeros(b.capacity());
    if (pool[k] == null) {
      pool[k] = new ArrayDeque<>();
    }
    pool[k].add(b);
  }

  private int newHandle() {
    if (freeCount == 0) {
      int old = pending.length;
      pending = Arrays.copyOf(pending, old * 2);
      free = Arrays.copyOf(free, old * 2);
      for (int i = pending.length - 1; i >= old; i--) {
        pending[i] = new Pending();
        free[freeCount++] = i;
      }
    }
    open++;
    return free[--freeCount] + 1;
  }

  private Pending get(long handle) {
    if (handle < 1 || handle > pending.length || pending[(int) handle - 1].request == null) {
      throw new IllegalArgumentException("request handle " + handle + " is not an open request");
    }
    return pending[(int) handle - 1];
  }

  /**
   * @param payload the bytes to send (position to limit; not changed)
   * @param dest the destination rank
   * @param tag the tag
   * @return the handle (1 or more)
   */
  public int isend(ByteBuffer payload, int dest, int tag) {
    int len = payload.remaining();
    ByteBuffer s = stage(len + TRAILER);
    s.put(payload.duplicate()).putLong(clock.now()).flip();
    int h = newHandle();
    Pending p = pending[h - 1];
    p.kind = Kind.SEND;
    p.staging = s;
    p.target = null;
    p.bytes = len;
    p.peer = dest;
    p.tag = tag;
    p.postedAt = clock.now();
    p.doneAt = clock.now() + readNanos(len);
    p.request = comm.isend(s, dest, tag);
    return h;
  }

  /**
   * @param into where the message goes (position to limit; the data is copied there on wait)
   * @param source a rank or {@link Communicator#ANY_SOURCE}
   * @param tag a tag or {@link Communicator#ANY_TAG}
   * @return the handle
   */
  public int irecv(ByteBuffer into, int source, int tag) {
    int cap = into.remaining();
    ByteBuffer s = stage(cap + TRAILER);
    s.limit(cap + TRAILER);
    int h = newHandle();
    Pending p = pending[h - 1];
    p.kind = Kind.RECV;
    p.staging = s;
    p.target = into;
    p.bytes = cap;
    p.peer = source;
    p.tag = tag;
    p.postedAt = clock.now();
    p.request = comm.irecv(s, source, tag);
    return h;
  }

  /**
   * Waits for a request, copies a received message to its device buffer and advances the clock
   * to the request's modelled completion.
   *
   * @param handle the handle
   * @return the status (for a send: destination, tag, length)
   */
  public Status await(long handle) {
    Pending p = get(handle);
    Status st;
    try {
      st = comm.wait(p.request);
      if (p.kind == Kind.RECV) {
        int len = st.length() - TRAILER;
        if (len < 0) {
          throw new IllegalStateException("message from rank " + st.source() + " tag " + st.tag() + " has "
              + st.length() + " bytes, less than the " + TRAILER + "-byte time trailer");
        }
        long sentAt = p.staging.getLong(len);
        p.target.duplicate().put(p.staging.duplicate().position(0).limit(len));
        p.doneAt = Math.max(p.postedAt, sentAt + readNanos(len) + fabric.messageNanos(len));
        st = new Status(st.source(), st.tag(), len);
      } else {
        st = new Status(p.peer, p.tag, p.bytes);
      }
      clock.advanceTo(p.doneAt);
    } finally {
      unstage(p.staging);
      p.staging = null;
      p.target = null;
      p.request = null;
      free[freeCount++] = (int) handle - 1;
      open--;
    }
    return st;
  }

  /** Waits for every open request ({@code GMPI_Synchronize}). */
  public void waitOpen() {
    for (int i = 0; i < pending.length; i++) {
      if (pending[i].request != null) {
        await(i + 1);
      }
    }
  }

  /**
   * Allreduce of {@code count} elements in place in {@code values}; the clock moves to the latest
   * rank's time plus ⌈log2 size⌉ message times.
   *
   * @param values the elements (little-endian), replaced by the result
   * @param count elements
   * @param type LONG, INT or DOUBLE
   * @param op the operation
   */
  public void allreduce(ByteBuffer values, int count, Datatype type, ReduceOp op) {
    ByteBuffer v = values.duplicate().order(LE);
    switch (type) {
      case DOUBLE -> {
        double[] a = new double[count];
        v.asDoubleBuffer().get(a);
        comm.allreduce(a, op);
        v.asDoubleBuffer().put(a);
      }
      case LONG -> {
        long[] a = new long[count];
        v.asLongBuffer().get(a);
        comm.allreduce(a, op);
        v.asLongBuffer().put(a);
      }
      case INT -> {
        long[] a = new long[count];
        for (int i = 0; i < count; i++) {
          a[i] = v.getInt(i * 4);
        }
        comm.allreduce(a, op);
        for (int i = 0; i < count; i++) {
          v.putInt(i * 4, (int) a[i]);
        }
      }
      default -> throw new IllegalArgumentException("datatype " + type + " cannot be reduced (INT, LONG, DOUBLE)");
    }
    long[] t = {clock.now()};
    comm.allreduce(t, ReduceOp.MAX);
    int rounds = 32 - Integer.numberOfLeadingZeros(comm.size() - 1);
    clock.advanceTo(t[0] + rounds * fabric.messageNanos((long) count * type.size()));
  }

  private long readNanos(long bytes) {
    return kind == MemoryKind.HOST ? costs.deviceReadNanos(bytes) : 0;
  }
}
