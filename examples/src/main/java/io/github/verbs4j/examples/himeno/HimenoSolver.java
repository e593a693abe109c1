package io.github.verbs4j.examples.himeno;

import io.github.verbs4j.examples.mp.Communicator;
import io.github.verbs4j.examples.mp.ReduceOp;
import io.github.verbs4j.examples.mp.Request;
import io.github.verbs4j.verbs.MemoryKind;
import io.github.verbs4j.verbs.VerbsException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;

/**
 * The MPI Himeno benchmark on a {@link Communicator}: each iteration computes the Jacobi step on
 * this rank's block, exchanges halo planes with the j neighbours and then the i neighbours (the
 * i planes carry the freshly received j halos, so diagonal corners are right, as in the
 * original's {@code sendp2}/{@code sendp3}), and allreduces the residual. Halo planes are packed
 * into communicator-registered buffers, in host or device memory. Which rank computes which grid
 * position is the {@link Placement}'s choice. Times are kept per phase: calculation, halo exchange and
 * allreduce.
 */
public final class HimenoSolver {
  private static final int TAG_J_DOWN = 1;
  private static final int TAG_J_UP = 2;
  private static final int TAG_I_LEFT = 3;
  private static final int TAG_I_RIGHT = 4;

  private final Communicator comm;
  private final Decomposition d;
  private final HimenoGrid grid;
  private final boolean modelled;
  private final long calcModelNanosPerIteration;
  private final Face jFace;
  private final Face iFace;

  /** Registered buffers for one direction's four planes. */
  private static final class Face {
    final int floats;
    final ByteBuffer sendLow;
    final ByteBuffer sendHigh;
    final ByteBuffer recvLow;
    final ByteBuffer recvHigh;
    final FloatBuffer sendLowF;
    final FloatBuffer sendHighF;
    final FloatBuffer recvLowF;
    final FloatBuffer recvHighF;

    Face(Communicator comm, int floats, MemoryKind kind) {
      this.floats = floats;
      sendLow = allocate(comm, floats, kind);
      sendHigh = allocate(comm, floats, kind);
      recvLow = allocate(comm, floats, kind);
      recvHigh = allocate(comm, floats, kind);
      sendLowF = sendLow.asFloatBuffer();
      sendHighF = sendHigh.asFloatBuffer();
      recvLowF = recvLow.asFloatBuffer();
      recvHighF = recvHigh.asFloatBuffer();
    }

    private static ByteBuffer allocate(Communicator comm, int floats, MemoryKind kind) {
      try {
        return comm.allocate(floats * Float.BYTES, kind).order(ByteOrder.LITTLE_ENDIAN);
      } catch (VerbsException e) {
        throw new IllegalArgumentException("halo memory " + kind + ": " + e.getMessage(), e);
      }
    }
  }

  /**
   * @param comm the communicator (its size must be ndx · ndy)
   * @param size the problem size
   * @param ndx processes along i
   * @param ndy processes along j
   * @param modelled also keep modelled times of the communication phases
   */
  public HimenoSolver(Communicator comm, HimenoSize size, int ndx, int ndy, boolean modelled) {
    this(comm, size, ndx, ndy, modelled, DEFAULT_GFLOPS);
  }

  /** <b>Assumption</b>: one rank's Himeno rate, GFLOP/s (one core of the seed-000 hosts, memory-bound). */
  public static final double DEFAULT_GFLOPS = 3.0;

  /**
   * @param comm the communicator (its size must be ndx · ndy)
   * @param size the problem size
   * @param ndx processes along i
   * @param ndy processes along j
   * @param modelled also keep modelled times of the communication phases and of the computation
   * @param gflops this rank's computation rate in modelled time, GFLOP/s: a Jacobi step of this
   *     rank's interior points takes {@code points × 34 / gflops} ns
   */
  public HimenoSolver(Communicator comm, HimenoSize size, int ndx, int ndy, boolean modelled, double gflops) {
    this(comm, size, ndx, ndy, modelled, gflops, null, MemoryKind.HOST);
  }

  /**
   * @param comm the communicator (its size must be ndx · ndy)
   * @param size the problem size
   * @param ndx processes along i
   * @param ndy processes along j
   * @param modelled also keep modelled times of the communication phases and of the computation
   * @param gflops this rank's computation rate in modelled time, GFLOP/s
   * @param rankOfPosition the rank computing each grid position ({@link Placement#rankOfPosition}),
   *     or null for rank = position
   * @param haloMemory where the halo buffers live: {@link MemoryKind#DEVICE} needs a provider with
   *     device memory (the halos then move by its device path, as seed 000's CUDA Himeno's)
   * @throws IllegalArgumentException naming the memory kind and the reason if the communicator
   *     cannot allocate it
   */
  public HimenoSolver(Communicator comm, HimenoSize size, int ndx, int ndy, boolean modelled, double gflops,
      int[] rankOfPosition, MemoryKind haloMemory) {
    if (!(gflops > 0) || Double.isInfinite(gflops)) {
      throw new IllegalArgumentException("flop rate=" + gflops + " GFLOP/s must be positive and finite");
    }
    if (ndx * ndy != comm.size()) {
      throw new IllegalArgumentException("a " + ndx + " x " + ndy + " process grid needs " + ndx * ndy
          + " ranks, the job has " + comm.size());
    }
    int[] ranks = rankOfPosition != null ? rankOfPosition.clone() : Placement.rankOfPosition(null, comm.size());
    int position = positionOf(ranks, comm.rank());
    this.comm = comm;
    this.d = Decomposition.of(size, ndx, ndy, position).placed(ranks);
    this.grid = new HimenoGrid(d);
    this.modelled = modelled;
    long points = (long) (d.imax() - 2) * (d.jmax() - 2) * (d.kmax() - 2);
    this.calcModelNanosPerIteration = Math.round(points * HimenoGrid.FLOPS_PER_POINT / gflops);
    this.jFace = ndy > 1 ? new Face(comm, d.imax() * d.kmax(), haloMemory) : null;
    this.iFace = ndx > 1 ? new Face(comm, d.jmax() * d.kmax(), haloMemory) : null;
  }

  private static int positionOf(int[] rankOfPosition, int rank) {
    if (rankOfPosition.length <= rank) {
      throw new IllegalArgumentException("rank " + rank + " has no grid position in " + rankOfPosition.length);
    }
    for (int p = 0; p < rankOfPosition.length; p++) {
      if (rankOfPosition[p] == rank) {
        return p;
      }
    }
    throw new IllegalArgumentException("rank " + rank + " computes no grid position of the placement");
  }

  /** @return this rank's block */
  public Decomposition decomposition() {
    return d;
  }

  /** @return this rank's arrays */
  public HimenoGrid grid() {
    return grid;
  }

  /**
   * Runs {@code iterations} Jacobi iterations.
   *
   * @param iterations how many
   * @return gosa of the last iteration and this rank's times
   */
  public HimenoResult run(int iterations) {
    ExactSum sum = new ExactSum();
    long[] limbs = new long[ExactSum.LIMBS + 1];
    long calc = 0;
    long halo = 0;
    long reduce = 0;
    long haloModel = 0;
    long reduceModel = 0;
    float gosa = 0;
    for (int n = 0; n < iterations; n++) {
      long t0 = System.nanoTime();
      sum.clear();
      grid.step(sum);
      if (modelled) {
        comm.compute(calcModelNanosPerIteration); // the step's flops on the node's clock
      }
      long t1 = System.nanoTime();
      long m1 = modelled ? comm.nowNanos() : 0;
      exchangeHalos();
      long t2 = System.nanoTime();
      long m2 = modelled ? comm.nowNanos() : 0;
      sum.exportTo(limbs);
      comm.allreduce(limbs, ReduceOp.SUM);
      gosa = ExactSum.toFloat(limbs);
      long t3 = System.nanoTime();
      long m3 = modelled ? comm.nowNanos() : 0;
      calc += t1 - t0;
      halo += t2 - t1;
      reduce += t3 - t2;
      haloModel += m2 - m1;
      reduceModel += m3 - m2;
    }
    // Computation in modelled time is charged to the node's clock each iteration, so a rank with
    // more points makes its neighbours wait in the halo exchange, as on a real machine.
    return new HimenoResult(gosa, iterations, calc, halo, reduce, modelled ? haloModel : -1,
        modelled ? reduceModel : -1, modelled ? calcModelNanosPerIteration * iterations : -1);
  }

  /** {@code sendp}: j direction first (full i range), then i direction (whole planes). */
  void exchangeHalos() {
    int imax = d.imax();
    int jmax = d.jmax();
    int kmax = d.kmax();
    float[] p = grid.p;
    if (jFace != null) {
      Face f = jFace;
      if (d.down() >= 0) {
        for (int i = 0; i < imax; i++) {
          f.sendLowF.put(i * kmax, p, (i * jmax + 1) * kmax, kmax);
        }
      }
      if (d.up() >= 0) {
        for (int i = 0; i < imax; i++) {
          f.sendHighF.put(i * kmax, p, (i * jmax + jmax - 2) * kmax, kmax);
        }
      }
      exchange(f, d.down(), d.up(), TAG_J_DOWN, TAG_J_UP);
      if (d.up() >= 0) {
        for (int i = 0; i < imax; i++) {
          f.recvHighF.get(i * kmax, p, (i * jmax + jmax - 1) * kmax, kmax);
        }
      }
      if (d.down() >= 0) {
        for (int i = 0; i < imax; i++) {
          f.recvLowF.get(i * kmax, p, (i * jmax) * kmax, kmax);
        }
      }
    }
    if (iFace != null) {
      Face f = iFace;
      int plane = jmax * kmax;
      if (d.left() >= 0) {
        f.sendLowF.put(0, p, plane, plane);
      }
      if (d.right() >= 0) {
        f.sendHighF.put(0, p, (imax - 2) * plane, plane);
      }
      exchange(f, d.left(), d.right(), TAG_I_LEFT, TAG_I_RIGHT);
      if (d.right() >= 0) {
        f.recvHighF.get(0, p, (imax - 1) * plane, plane);
      }
      if (d.left() >= 0) {
        f.recvLowF.get(0, p, 0, plane);
      }
    }
  }

  /**
   * The original's four-request pattern: receive from high (tag toLow) and low (tag toHigh), send
   * the low plane down (tag toLow) and the high plane up (tag toHigh), wait for all.
   */
  private void exchange(Face f, int low, int high, int tagToLow, int tagToHigh) {
    Request[] reqs = new Request[4];
    int n = 0;
    if (high >= 0) {
      reqs[n++] = comm.irecv(f.recvHigh, high, tagToLow);
    }
    if (low >= 0) {
      reqs[n++] = comm.irecv(f.recvLow, low, tagToHigh);
    }
    if (low >= 0) {
      reqs[n++] = comm.isend(f.sendLow, low, tagToLow);
    }
    if (high >= 0) {
      reqs[n++] = comm.isend(f.sendHigh, high, tagToHigh);
    }
    for (int i = 0; i < n; i++) {
      comm.wait(reqs[i]);
    }
  }
}
