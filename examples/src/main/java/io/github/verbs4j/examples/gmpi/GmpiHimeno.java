package io.github.verbs4j.examples.gmpi;

import io.github.verbs4j.examples.himeno.Decomposition;
import io.github.verbs4j.examples.himeno.ExactSum;
import io.github.verbs4j.examples.himeno.HimenoGrid;
import io.github.verbs4j.examples.himeno.HimenoSize;
import io.github.verbs4j.examples.mp.Communicator;
import io.github.verbs4j.examples.mp.ReduceOp;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.MemoryKind;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.time.Duration;

/**
 * Himeno (seed 004 §5.2) on the simulated accelerator, two ways, on the same cost model and the
 * same arithmetic as {@code verbs4j himeno} (so the residual is bit-identical to the serial run):
 *
 * <ul>
 *   <li>{@link #gmpi}: one persistent kernel per rank; its warp computes the Jacobi step, packs
 *       halo planes into device memory, exchanges them with {@code GMPI_Irecv}/{@code
 *       GMPI_Isend}/{@code GMPI_Waitall} (j planes, then i planes, as the MPI original) and
 *       allreduces the residual with {@code GMPI_Allreduce};
 *   <li>{@link #hostDriven}: per iteration a kernel computes and packs, the host synchronises and
 *       exchanges, a second kernel unpacks and packs the i planes when the grid has both
 *       directions, and the host allreduces.
 * </ul>
 *
 * <p>The step is charged as memory-bound: {@value #BYTES_PER_POINT} bytes per interior point (13
 * arrays read, {@code wrk2} written, then copied back into {@code p}) at the profile's memory
 * bandwidth. The stencil arrays are the Java arrays of {@link HimenoGrid}; the halo planes live in
 * device memory regions.
 */
public final class GmpiHimeno {
  /** Bytes a Jacobi step moves per interior point: 13 floats read, wrk2 written, copied to p. */
  public static final int BYTES_PER_POINT = 64;
  private static final int TAG_J_DOWN = 1;
  private static final int TAG_J_UP = 2;
  private static final int TAG_I_LEFT = 3;
  private static final int TAG_I_RIGHT = 4;
  /** Halo exchanges timed per direction by {@link #measureFabric}. */
  private static final int EXCHANGES = 16;

  /**
   * @param gosa the residual of the last iteration
   * @param modelledNanosPerIteration modelled time per iteration (rank 0's, iterations 2..n)
   * @param wallNanosPerIteration wall-clock time per iteration
   */
  public record Result(float gosa, double modelledNanosPerIteration, double wallNanosPerIteration) {}

  /** Halo planes of one direction in device memory. */
  private static final class Face {
    final int floats;
    final long[] ptr = new long[4]; // send low, send high, recv low, recv high
    final FloatBuffer[] buf = new FloatBuffer[4];

    Face(DeviceMemory mem, int floats) {
      this.floats = floats;
      for (int i = 0; i < 4; i++) {
        ptr[i] = mem.malloc(floats * 4L);
        buf[i] = mem.resolve(ptr[i], floats * 4L).asFloatBuffer();
      }
    }
  }

  private final DeviceMemory memory;
  private final Decomposition d;
  private final HimenoGrid grid;
  private final Face jFace;
  private final Face iFace;
  private final long stepNanos;
  private final int[] handles = new int[4];

  private GmpiHimeno(DeviceMemory mem, AcceleratorCosts costs, HimenoSize size, int ndx, int ndy, int rank) {
    memory = mem;
    d = Decomposition.of(size, ndx, ndy, rank);
    grid = new HimenoGrid(d);
    jFace = ndy > 1 ? new Face(mem, d.imax() * d.kmax()) : null;
    iFace = ndx > 1 ? new Face(mem, d.jmax() * d.kmax()) : null;
    stepNanos = costs.memoryNanos((long) (d.imax() - 2) * (d.jmax() - 2) * (d.kmax() - 2) * BYTES_PER_POINT);
  }

  /**
   * Measures the fabric's times for this run's messages (collective): the residual's allreduce
   * element by ping-pong, the halo planes by {@link FabricTimes#measureExchange} with every rank
   * exchanging with its neighbours at once, one direction after the other as the iteration does
   * (so the planes' times carry the contention of the four messages in flight, on every rank);
   * keyed by rank 0's plane sizes.
   *
   * @param ctx the rank's context
   * @param comm the communicator
   * @param size the problem size
   * @param ndx ranks along i
   * @param ndy ranks along j
   * @return the times
   */
  public static FabricTimes measureFabric(Context ctx, Communicator comm, HimenoSize size, int ndx, int ndy) {
    dims(comm, ndx, ndy);
    Decomposition d0 = Decomposition.of(size, ndx, ndy, 0);
    Decomposition d = Decomposition.of(size, ndx, ndy, comm.rank());
    MemoryKind kind = DeviceMemory.kindOf(ctx);
    FabricTimes t = FabricTimes.measure(ctx, comm, kind, new int[] {(ExactSum.LIMBS + 1) * 8}, 4);
    long j = ndy > 1
        ? FabricTimes.measureExchange(ctx, comm, kind, d.imax() * d.kmax() * 4, d.down(), d.up(), EXCHANGES) : 0;
    long i = ndx > 1
        ? FabricTimes.measureExchange(ctx, comm, kind, d.jmax() * d.kmax() * 4, d.left(), d.right(), EXCHANGES) : 0;
    int jBytes = d0.imax() * d0.kmax() * 4;
    int iBytes = d0.jmax() * d0.kmax() * 4;
    if (ndy > 1) {
      t = t.withExchange(jBytes, ndx > 1 && iBytes == jBytes ? Math.max(i, j) : j);
    }
    if (ndx > 1) {
      t = t.withExchange(iBytes, ndy > 1 && iBytes == jBytes ? Math.max(i, j) : i);
    }
    return t;
  }

  private static int[] dims(Communicator comm, int ndx, int ndy) {
    if (ndx * ndy != comm.size()) {
      throw new IllegalArgumentException("a " + ndx + " x " + ndy + " process grid needs " + ndx * ndy
          + " ranks, the job has " + comm.size());
    }
    return new int[] {ndx, ndy};
  }

  /**
   * Himeno with kernel-side communication.
   *
   * @param ctx the rank's context
   * @param comm the rank's communicator (handed to the daemon for the run)
   * @param fabric the fabric's message times ({@link #measureFabric})
   * @param costs the profile
   * @param size the problem size
   * @param ndx ranks along i
   * @param ndy ranks along j
   * @param iterations at least 2
   * @param timeout bound of each GMPI call
   * @return this rank's result
   */
  public static Result gmpi(Context ctx, Communicator comm, FabricTimes fabric, AcceleratorCosts costs,
      HimenoSize size, int ndx, int ndy, int iterations, Duration timeout) {
    dims(comm, ndx, ndy);
    checkIterations(iterations);
    try (GmpiNode node = GmpiNode.open(ctx, comm, fabric, costs, 1024, 1, timeout)) {
      GmpiHimeno h = new GmpiHimeno(node.memory(), costs, size, ndx, ndy, comm.rank());
      Gmpi g = node.gmpi();
      long limbsPtr = node.memory().malloc((ExactSum.LIMBS + 1) * 8L);
      ByteBuffer limbsBuf = node.memory().resolve(limbsPtr, (ExactSum.LIMBS + 1) * 8L);
      long[] ends = new long[iterations];
      float[] gosa = new float[1];
      long wall0 = System.nanoTime();
      node.accelerator().launch(1, 1, warp -> {
        ExactSum sum = new ExactSum();
        long[] limbs = new long[ExactSum.LIMBS + 1];
        long[] reqs = new long[4];
        for (int n = 0; n < iterations; n++) {
          sum.clear();
          h.grid.step(sum);
          warp.clock().charge(h.stepNanos);
          if (h.jFace != null) {
            h.packJ();
            h.exchange(g, warp, h.jFace, h.d.down(), h.d.up(), TAG_J_DOWN, TAG_J_UP, reqs);
            h.unpackJ();
          }
          if (h.iFace != null) {
            h.packI();
            h.exchange(g, warp, h.iFace, h.d.left(), h.d.right(), TAG_I_LEFT, TAG_I_RIGHT, reqs);
            h.unpackI();
          }
          sum.exportTo(limbs);
          limbsBuf.asLongBuffer().put(0, limbs);
          g.allreduce(warp, limbsPtr, limbs.length, Datatype.LONG, Gmpi.SUM);
          limbsBuf.asLongBuffer().get(0, limbs);
          gosa[0] = ExactSum.toFloat(limbs);
          ends[n] = warp.clock().now();
        }
      }, node.hostClock()).synchronize(node.hostClock(), KernelRun.Sync.STREAM,
          timeout.multipliedBy(iterations + 1L));
      return result(gosa[0], ends, System.nanoTime() - wall0);
    }
  }

  /**
   * The host-driven baseline.
   *
   * @param ctx the rank's context
   * @param comm the rank's communicator
   * @param fabric the fabric's message times ({@link #measureFabric})
   * @param costs the profile
   * @param size the problem size
   * @param ndx ranks along i
   * @param ndy ranks along j
   * @param iterations at least 2
   * @param timeout bound of each kernel
   * @return this rank's result
   */
  public static Result hostDriven(Context ctx, Communicator comm, FabricTimes fabric, AcceleratorCosts costs,
      HimenoSize size, int ndx, int ndy, int iterations, Duration timeout) {
    dims(comm, ndx, ndy);
    checkIterations(iterations);
    try (Accelerator gpu = new Accelerator(ctx, costs, 1)) {
      GmpiHimeno h = new GmpiHimeno(gpu.memory(), costs, size, ndx, ndy, comm.rank());
      ModelledClock host = new ModelledClock(0);
      TimedComm tc = new TimedComm(comm, costs, host, gpu.memory().deviceKind(), fabric);
      long limbsPtr = gpu.memory().malloc((ExactSum.LIMBS + 1) * 8L);
      ByteBuffer limbsBuf = gpu.memory().resolve(limbsPtr, (ExactSum.LIMBS + 1) * 8L);
      ExactSum sum = new ExactSum();
      long[] limbs = new long[ExactSum.LIMBS + 1];
      long[] ends = new long[iterations];
      float gosa = 0;
      boolean unpackI = false;
      long wall0 = System.nanoTime();
      for (int n = 0; n < iterations; n++) {
        boolean pendingI = unpackI;
        gpu.launch(1, 1, warp -> { // unpack last iteration's i planes, step, pack the first direction
          if (pendingI) {
            h.unpackI();
          }
          sum.clear();
          h.grid.step(sum);
          warp.clock().charge(h.stepNanos);
          sum.exportTo(limbs);
          limbsBuf.asLongBuffer().put(0, limbs);
          if (h.jFace != null) {
            h.packJ();
          } else if (h.iFace != null) {
            h.packI();
          }
        }, host).synchronize(host, KernelRun.Sync.STREAM, timeout);
        if (h.jFace != null) {
          h.hostExchange(tc, h.jFace, h.d.down(), h.d.up(), TAG_J_DOWN, TAG_J_UP);
          if (h.iFace != null) {
            gpu.launch(1, 1, warp -> {
              h.unpackJ();
              h.packI();
            }, host).synchronize(host, KernelRun.Sync.STREAM, timeout);
          } else {
            gpu.launch(1, 1, warp -> h.unpackJ(), host).synchronize(host, KernelRun.Sync.STREAM, timeout);
          }
        }
        if (h.iFace != null) {
          h.hostExchange(tc, h.iFace, h.d.left(), h.d.right(), TAG_I_LEFT, TAG_I_RIGHT);
        }
        unpackI = h.iFace != null;
        tc.allreduce(limbsBuf, limbs.length, Datatype.LONG, ReduceOp.SUM);
        limbsBuf.asLongBuffer().get(0, limbs);
        gosa = ExactSum.toFloat(limbs);
        ends[n] = host.now();
      }
      return result(gosa, ends, System.nanoTime() - wall0);
    }
  }

  private static void checkIterations(int iterations) {
    if (iterations < 2) {
      throw new IllegalArgumentException("iterations=" + iterations + " must be at least 2");
    }
  }

  private static Result result(float gosa, long[] ends, long wall) {
    int n = ends.length;
    return new Result(gosa, (double) (ends[n - 1] - ends[0]) / (n - 1), (double) wall / n);
  }

  /** The original's four requests: receive from high and low, send low and high, wait for all. */
  private void exchange(Gmpi g, Warp warp, Face f, int low, int high, int tagToLow, int tagToHigh, long[] reqs) {
    int n = 0;
    if (high >= 0) {
      reqs[n++] = g.irecv(warp, f.ptr[3], f.floats, Datatype.INT, high, tagToLow);
    }
    if (low >= 0) {
      reqs[n++] = g.irecv(warp, f.ptr[2], f.floats, Datatype.INT, low, tagToHigh);
    }
    if (low >= 0) {
      reqs[n++] = g.isend(warp, f.ptr[0], f.floats, Datatype.INT, low, tagToLow);
    }
    if (high >= 0) {
      reqs[n++] = g.isend(warp, f.ptr[1], f.floats, Datatype.INT, high, tagToHigh);
    }
    g.waitall(warp, reqs, n);
  }

  private void hostExchange(TimedComm tc, Face f, int low, int high, int tagToLow, int tagToHigh) {
    int[] h = handles;
    int n = 0;
    if (high >= 0) {
      h[n++] = tc.irecv(bytes(f, 3), high, tagToLow);
    }
    if (low >= 0) {
      h[n++] = tc.irecv(bytes(f, 2), low, tagToHigh);
    }
    if (low >= 0) {
      h[n++] = tc.isend(bytes(f, 0), low, tagToLow);
    }
    if (high >= 0) {
      h[n++] = tc.isend(bytes(f, 1), high, tagToHigh);
    }
    for (int i = 0; i < n; i++) {
      tc.await(h[i]);
    }
  }

  private ByteBuffer bytes(Face f, int which) {
    return memory.resolve(f.ptr[which], f.floats * 4L);
  }

  private void packJ() {
    int imax = d.imax();
    int jmax = d.jmax();
    int kmax = d.kmax();
    float[] p = grid.p();
    if (d.down() >= 0) {
      for (int i = 0; i < imax; i++) {
        jFace.buf[0].put(i * kmax, p, (i * jmax + 1) * kmax, kmax);
      }
    }
    if (d.up() >= 0) {
      for (int i = 0; i < imax; i++) {
        jFace.buf[1].put(i * kmax, p, (i * jmax + jmax - 2) * kmax, kmax);
      }
    }
  }

  private void unpackJ() {
    int imax = d.imax();
    int jmax = d.jmax();
    int kmax = d.kmax();
    float[] p = grid.p();
    if (d.up() >= 0) {
      for (int i = 0; i < imax; i++) {
        jFace.buf[3].get(i * kmax, p, (i * jmax + jmax - 1) * kmax, kmax);
      }
    }
    if (d.down() >= 0) {
      for (int i = 0; i < imax; i++) {
        jFace.buf[2].get(i * kmax, p, (i * jmax) * kmax, kmax);
      }
    }
  }

  private void packI() {
    int plane = d.jmax() * d.kmax();
    float[] p = grid.p();
    if (d.left() >= 0) {
      iFace.buf[0].put(0, p, plane, plane);
    }
    if (d.right() >= 0) {
      iFace.buf[1].put(0, p, (d.imax() - 2) * plane, plane);
    }
  }

  private void unpackI() {
    int plane = d.jmax() * d.kmax();
    float[] p = grid.p();
    if (d.right() >= 0) {
      iFace.buf[3].get(0, p, (d.imax() - 1) * plane, plane);
    }
    if (d.left() >= 0) {
      iFace.buf[2].get(0, p, 0, plane);
    }
  }
}
