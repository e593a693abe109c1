package io.github.verbs4j.examples.gmpi;

import io.github.verbs4j.examples.mp.Communicator;
import io.github.verbs4j.examples.mp.ReduceOp;
import io.github.verbs4j.examples.mp.Request;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.MemoryKind;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * One-way message times of the fabric the study runs on, measured on the node clock ({@code
 * Context.nowNanos()}, modelled with {@code verbs.time=modelled}): for each size a blocking ping-pong
 * between ranks 0 and 1 through the communicator, from buffers of the accelerator's memory kind, so
 * the figures carry the provider's own costs (ib's HCA and links, tca's PEACH2 DMA reading GPU
 * memory). Measured once, after a few round trips not counted (connection and buffer warm-up), before any kernel runs, while both ranks only wait for each other, so the
 * node clocks move by the fabric's events alone and the times are those of the fabric's model.
 * The study's timelines then use them (see {@code docs/gmpi.md}, <i>Modelled time</i>, for why the
 * kernels' own figures are not read from the node clock itself).
 */
public final class FabricTimes {
  private static final int TAG = 0x6d70;
  private static final int WARMUP = 3;
  private final long[] sizes;
  private final long[] nanos;
  private final boolean[] exchanged;

  private FabricTimes(long[] sizes, long[] nanos) {
    this(sizes, nanos, new boolean[sizes.length]);
  }

  private FabricTimes(long[] sizes, long[] nanos, boolean[] exchanged) {
    this.sizes = sizes;
    this.nanos = nanos;
    this.exchanged = exchanged;
  }

  /**
   * Measures (collective: every rank calls it with the same sizes; ranks 0 and 1 exchange).
   *
   * @param ctx the rank's context (its clock)
   * @param comm the communicator (2 ranks or more)
   * @param kind the buffers' memory kind (the accelerator's device kind)
   * @param sizes message sizes, at least 1 byte each
   * @param iterations round trips counted per size, at least 1 (after {@value #WARMUP} not counted)
   * @return the times, the same on every rank
   */
  public static FabricTimes measure(Context ctx, Communicator comm, MemoryKind kind, int[] sizes, int iterations) {
    if (iterations < 1) {
      throw new IllegalArgumentException("iterations=" + iterations + " must be at least 1");
    }
    long[] s = Arrays.stream(sizes).asLongStream().sorted().distinct().toArray();
    if (s.length == 0 || s[0] < 1) {
      throw new IllegalArgumentException("sizes=" + Arrays.toString(sizes) + " must be at least 1 byte each");
    }
    long[] t = new long[s.length];
    int rank = comm.rank();
    ByteBuffer out = rank < 2 ? comm.allocate((int) s[s.length - 1], kind) : null;
    ByteBuffer in = rank < 2 ? comm.allocate((int) s[s.length - 1], kind) : null;
    for (int i = 0; i < s.length; i++) {
      comm.barrier();
      if (rank > 1) {
        continue;
      }
      ByteBuffer o = out.duplicate().limit((int) s[i]);
      ByteBuffer r = in.duplicate().limit((int) s[i]);
      long start = 0;
      for (int it = 0; it < WARMUP + iterations; it++) {
        if (it == WARMUP) {
          start = ctx.nowNanos();
        }
        if (rank == 0) {
          comm.send(o.duplicate(), 1, TAG);
          comm.recv(r.duplicate(), 1, TAG);
        } else {
          comm.recv(r.duplicate(), 0, TAG);
          comm.send(o.duplicate(), 0, TAG);
        }
      }
      t[i] = rank == 0 ? (ctx.nowNanos() - start) / (2L * iterations) : 0;
    }
    comm.allreduce(t, ReduceOp.MAX);
    return new FabricTimes(s, t);
  }

  /**
   * Measures one halo exchange with every rank exchanging at once (collective: every rank calls it
   * with its own neighbours): each rank receives from and sends to its low and high neighbours
   * ({@code bytes} each way, as Himeno's original posts them) and waits for all four, {@value
   * #WARMUP} times not counted and then {@code iterations} times back to back, on the node clock.
   * Unlike {@link #measure}'s ping-pong, the messages of the exchange are in flight together, so
   * the time carries what they cost each other on the provider's model (links, HCA or PEACH2 DMA
   * engines, the mp layer's protocol). Like {@link #measure}, ranks only wait for each other while
   * it runs.
   *
   * @param ctx the rank's context (its clock)
   * @param comm the communicator
   * @param kind the buffers' memory kind (the accelerator's device kind)
   * @param bytes the plane's size, at least 1
   * @param low the low neighbour's rank, or -1
   * @param high the high neighbour's rank, or -1
   * @param iterations exchanges counted, at least 1
   * @return the longest time per exchange over all ranks (the same on every rank)
   */
  public static long measureExchange(Context ctx, Communicator comm, MemoryKind kind, int bytes, int low, int high,
      int iterations) {
    if (iterations < 1) {
      throw new IllegalArgumentException("iterations=" + iterations + " must be at least 1");
    }
    if (bytes < 1) {
      throw new IllegalArgumentException("bytes=" + bytes + " must be at least 1");
    }
    ByteBuffer[] buf = new ByteBuffer[4]; // send low, send high, receive low, receive high
    for (int i = 0; i < 4; i++) {
      buf[i] = comm.allocate(bytes, kind);
    }
    Request[] reqs = new Request[4];
    comm.barrier();
    long start = 0;
    for (int it = 0; it < WARMUP + iterations; it++) {
      if (it == WARMUP) {
        start = ctx.nowNanos();
      }
      int n = 0;
      if (high >= 0) {
        reqs[n++] = comm.irecv(buf[3].duplicate(), high, TAG + 1);
      }
      if (low >= 0) {
        reqs[n++] = comm.irecv(buf[2].duplicate(), low, TAG + 2);
      }
      if (low >= 0) {
        reqs[n++] = comm.isend(buf[0].duplicate(), low, TAG + 1);
      }
      if (high >= 0) {
        reqs[n++] = comm.isend(buf[1].duplicate(), high, TAG + 2);
      }
      for (int i = 0; i < n; i++) {
        comm.wait(reqs[i]);
      }
    }
    long[] t = {(ctx.nowNanos() - start) / iterations};
    comm.allreduce(t, ReduceOp.MAX);
    return t[0];
  }

  /**
   * @param bytes a message size
   * @param exchangeNanos its time measured by {@link #measureExchange}
   * @return these times with {@code bytes} taking {@code exchangeNanos} (added or replaced)
   */
  public FabricTimes withExchange(long bytes, long exchangeNanos) {
    if (bytes < 1 || exchangeNanos < 0) {
      throw new IllegalArgumentException("bytes=" + bytes + " must be at least 1 and exchangeNanos=" + exchangeNanos
          + " not negative");
    }
    int i = Arrays.binarySearch(sizes, bytes);
    if (i >= 0) {
      long[] n = nanos.clone();
      boolean[] e = exchanged.clone();
      n[i] = exchangeNanos;
      e[i] = true;
      return new FabricTimes(sizes, n, e);
    }
    int at = -i - 1;
    long[] s = new long[sizes.length + 1];
    long[] n = new long[sizes.length + 1];
    boolean[] e = new boolean[sizes.length + 1];
    for (int k = 0, j = 0; k < s.length; k++) {
      if (k == at) {
        s[k] = bytes;
        n[k] = exchangeNanos;
        e[k] = true;
      } else {
        s[k] = sizes[j];
        n[k] = nanos[j];
        e[k] = exchanged[j++];
      }
    }
    return new FabricTimes(s, n, e);
  }

  /**
   * Times given directly (tests of the timeline without a fabric).
   *
   * @param latencyNanos one-way time of a 1-byte message
   * @param bytesPerMicro bandwidth beyond it
   * @return the times
   */
  public static FabricTimes linear(long latencyNanos, long bytesPerMicro) {
    return new FabricTimes(new long[] {1, 1 << 30}, new long[] {latencyNanos,
        latencyNanos + ((1L << 30) - 1) * 1000 / bytesPerMicro});
  }

  /**
   * @param bytes a message size
   * @return its one-way time: measured at that size, or interpolated linearly between the measured
   *     sizes around it (extrapolated from the last two above the largest; the smallest's below it)
   */
  public long messageNanos(long bytes) {
    int i = Arrays.binarySearch(sizes, bytes);
    if (i >= 0) {
      return nanos[i];
    }
    int hi = -i - 1;
    if (hi == 0 || sizes.length == 1) {
      return nanos[hi == 0 ? 0 : sizes.length - 1];
    }
    if (hi == sizes.length) {
      hi = sizes.length - 1;
    }
    int lo = hi - 1;
    double slope = (double) (nanos[hi] - nanos[lo]) / (sizes[hi] - sizes[lo]);
    return Math.max(0, Math.round(nanos[lo] + slope * (bytes - sizes[lo])));
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < sizes.length; i++) {
      b.append(i == 0 ? "" : ", ").append(sizes[i]).append(" B: ").append(String.format(java.util.Locale.ROOT, "%.2f us",
          nanos[i] / 1e3)).append(exchanged[i] ? " (exchange)" : "");
    }
    return b.toString();
  }
}
