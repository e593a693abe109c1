package io.github.verbs4j.examples.gmpi;

import io.github.verbs4j.examples.mp.Communicator;
import io.github.verbs4j.verbs.Context;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * Seed 004's ping-pong (figure 6) between ranks 0 and 1, two ways, on the same cost model:
 *
 * <ul>
 *   <li>{@link #gmpi}: one persistent kernel per rank whose warp calls {@code GMPI_Isend},
 *       {@code GMPI_Irecv}, {@code GMPI_Wait}, {@code GMPI_Synchronize} every iteration;
 *   <li>{@link #hostDriven}: the baseline — per iteration a kernel produces the data, the host
 *       synchronises ({@code cudaStreamSynchronize}), sends and receives, and launches again.
 * </ul>
 *
 * <p>Each iteration rank 0 sends {@code bytes} bytes whose content depends on the iteration and
 * rank, and rank 1 answers with its own; both check every byte they receive. The modelled time
 * per iteration is taken on rank 0 between the ends of the first and last iterations, so start-up
 * is excluded: half of it is the one-way latency the paper plots.
 */
public final class PingPong {
  /**
   * @param modelledHalfRoundTripNanos modelled one-way latency (half an iteration), steady state
   * @param wallHalfRoundTripNanos wall-clock one-way latency over all iterations
   * @param iterations iterations run
   */
  public record Result(double modelledHalfRoundTripNanos, double wallHalfRoundTripNanos, int iterations) {}

  private PingPong() {}

  static byte pattern(int iteration, int rank, int i) {
    return (byte) (i * 31 + iteration * 7 + rank * 101 + 1);
  }

  private static void fill(ByteBuffer b, int bytes, int iteration, int rank) {
    for (int i = 0; i < bytes; i++) {
      b.put(i, pattern(iteration, rank, i));
    }
  }

  private static void check(ByteBuffer b, int bytes, int iteration, int rank) {
    for (int i = 0; i < bytes; i++) {
      if (b.get(i) != pattern(iteration, rank, i)) {
        throw new IllegalStateException("iteration " + iteration + ": byte " + i + " of " + bytes + " from rank " + rank
            + " is " + b.get(i) + ", expected " + pattern(iteration, rank, i));
      }
    }
  }

  /**
   * The GMPI ping-pong on ranks 0 and 1 (other ranks idle).
   *
   * @param ctx the rank's context
   * @param comm the rank's communicator (handed to the daemon for the run)
   * @param fabric the fabric's message times
   * @param costs the profile
   * @param bytes message size, at least 1
   * @param iterations at least 2
   * @param timeout bound of each GMPI call and of the kernel
   * @return rank 0's result (other ranks: zeros)
   */
  public static Result gmpi(Context ctx, Communicator comm, FabricTimes fabric, AcceleratorCosts costs, int bytes,
      int iterations, Duration timeout) {
    check(bytes, iterations);
    int rank = comm.rank();
    if (rank > 1) {
      return new Result(0, 0, iterations);
    }
    int peer = 1 - rank;
    try (GmpiNode node = GmpiNode.open(ctx, comm, fabric, costs, 1024, 1, timeout)) {
      long src = node.memory().malloc(bytes);
      long dst = node.memory().malloc(bytes);
      ByteBuffer srcBuf = node.memory().resolve(src, bytes);
      ByteBuffer dstBuf = node.memory().resolve(dst, bytes);
      Gmpi g = node.gmpi();
      long[] ends = new long[iterations];
      long wallStart = System.nanoTime();
      KernelRun run = node.accelerator().launch(1, 1, warp -> {
        for (int it = 0; it < iterations; it++) {
          if (rank == 0) {
            fill(srcBuf, bytes, it, rank);
            g.isend(warp, src, bytes, Datatype.BYTE, peer, it);
            long r = g.irecv(warp, dst, bytes, Datatype.BYTE, peer, it);
            g.await(warp, r);
            check(dstBuf, bytes, it, peer);
          } else {
            long r = g.irecv(warp, dst, bytes, Datatype.BYTE, peer, it);
            g.await(warp, r);
            check(dstBuf, bytes, it, peer);
            fill(srcBuf, bytes, it, rank);
            g.isend(warp, src, bytes, Datatype.BYTE, peer, it);
          }
          g.synchronize(warp);
          ends[it] = warp.clock().now();
        }
      }, node.hostClock());
      run.synchronize(node.hostClock(), KernelRun.Sync.STREAM, timeout.multipliedBy(iterations + 1L));
      long wall = System.nanoTime() - wallStart;
      return result(ends, wall, iterations);
    }
  }

  /**
   * The host-driven baseline on ranks 0 and 1.
   *
   * @param ctx the rank's context
   * @param comm the rank's communicator
   * @param fabric the fabric's message times
   * @param costs the profile
   * @param bytes message size
   * @param iterations at least 2
   * @param timeout bound of each kernel
   * @return rank 0's result (other ranks: zeros)
   */
  public static Result hostDriven(Context ctx, Communicator comm, FabricTimes fabric, AcceleratorCosts costs,
      int bytes, int iterations, Duration timeout) {
    check(bytes, iterations);
    int rank = comm.rank();
    if (rank > 1) {
      return new Result(0, 0, iterations);
    }
    int peer = 1 - rank;
    try (Accelerator gpu = new Accelerator(ctx, costs, 1)) {
      ModelledClock host = new ModelledClock(0);
      TimedComm tc = new TimedComm(comm, costs, host, gpu.memory().deviceKind(), fabric);
      long src = gpu.memory().malloc(bytes);
      long dst = gpu.memory().malloc(bytes);
      ByteBuffer srcBuf = gpu.memory().resolve(src, bytes);
      ByteBuffer dstBuf = gpu.memory().resolve(dst, bytes);
      long[] ends = new long[iterations];
      long wallStart = System.nanoTime();
      for (int it = 0; it < iterations; it++) {
        int iter = it;
        if (rank == 1) {
          tc.await(tc.irecv(dstBuf, peer, it));
        }
        gpu.launch(1, 1, warp -> {
          if (rank == 1) {
            check(dstBuf, bytes, iter, peer);
          }
          fill(srcBuf, bytes, iter, rank);
        }, host).synchronize(host, KernelRun.Sync.STREAM, timeout);
        tc.await(tc.isend(srcBuf, peer, it));
        if (rank == 0) {
          tc.await(tc.irecv(dstBuf, peer, it));
          check(dstBuf, bytes, it, peer);
        }
        ends[it] = host.now();
      }
      long wall = System.nanoTime() - wallStart;
      return result(ends, wall, iterations);
    }
  }

  private static void check(int bytes, int iterations) {
    if (bytes < 1) {
      throw new IllegalArgumentException("bytes=" + bytes + " must be at least 1");
    }
    if (iterations < 2) {
      throw new IllegalArgumentException("iterations=" + iterations + " must be at least 2");
    }
  }

  private static Result result(long[] ends, long wall, int iterations) {
    double modelled = (double) (ends[iterations - 1] - ends[0]) / (iterations - 1) / 2;
    return new Result(modelled, (double) wall / iterations / 2, iterations);
  }
}
