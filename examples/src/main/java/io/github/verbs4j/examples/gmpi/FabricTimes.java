package io.github.verbs4j.examples.gmpi;

import io.github.verbs4j.examples.mp.Communicator;
import io.github.verbs4j.examples.mp.ReduceOp;
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

  private FabricTimes(long[] sizes, long[] nanos) {
    this.sizes = sizes;
    this.nanos = nanos;
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
          nanos[i] / 1e3));
    }
    return b.toString();
  }
}
