package io.github.verbs4j.examples.mp;

import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code verbs4j mp-latency}: the message-passing layer's point-to-point latency, as OSU's {@code
 * osu_latency} measures MPI's: ranks 0 and 1 ping-pong blocking {@code send}/{@code recv} of each
 * size; rank 0 prints the half round trip (median, mean, 99th percentile). Put beside perftest's
 * {@code send_lat} of the same size, it is what the layer adds to the verbs. With {@code
 * --exchange} both ranks send at once instead ({@code isend} and {@code irecv}, then wait for both,
 * as a halo exchange does) and rank 0 prints the time of one whole exchange.
 */
@Command(name = "mp-latency", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Point-to-point latency of the verbs message-passing layer, like osu_latency: ranks 0 and 1 "
        + "ping-pong blocking send/recv; rank 0 prints the half round trip per size. Other ranks only open the "
        + "communicator.", "With --exchange ranks 0 and 1 send to each other at once and wait for both (a halo "
        + "exchange); rank 0 prints the time of a whole exchange."})
public final class MpLatencyCommand implements Callable<Integer> {
  /** Most timed round trips per size: their times are kept (8 bytes each). */
  static final int MAX_ITERATIONS = 10_000_000;

  @Spec
  CommandSpec spec;

  @Option(names = "--sizes", paramLabel = "BYTES", split = ",", defaultValue = "8,2048,65536",
      description = "Message sizes, comma separated (default: ${DEFAULT-VALUE}).")
  List<Integer> sizes;

  @Option(names = {"-n", "--iters"}, paramLabel = "N", defaultValue = "20000",
      description = "Timed round trips per size (default: ${DEFAULT-VALUE}).")
  int iterations;

  @Option(names = "--warmup", paramLabel = "N", defaultValue = "20000",
      description = "Untimed round trips before each size (default: ${DEFAULT-VALUE}).")
  int warmup;

  @Option(names = "--exchange",
      description = "Both ranks send at once (isend + irecv, wait for both) instead of ping-pong; times whole exchanges.")
  boolean exchange;

  @Mixin
  ConnectionOptions connections = new ConnectionOptions();

  private final PrintStream out = System.out;

  @Override
  public Integer call() {
    if (iterations < 1 || iterations > MAX_ITERATIONS) {
      throw new ParameterException(spec.commandLine(), "--iters=" + iterations + " must be between 1 and "
          + MAX_ITERATIONS + " (rank 0 keeps one time per round trip)");
    }
    if (warmup < 0) {
      throw new ParameterException(spec.commandLine(), "--warmup=" + warmup + " must be at least 0");
    }
    for (int s : sizes) {
      if (s < 0 || s > (64 << 20)) {
        throw new ParameterException(spec.commandLine(), "--sizes: " + s + " must be between 0 and 67108864");
      }
    }
    try (Context ctx = Verbs.open(VerbsConfig.load());
        Communicator comm = VerbsCommunicator.open(ctx, connections.apply(MpConfig.defaults()))) {
      if (comm.size() < 2) {
        throw new ParameterException(spec.commandLine(), "mp-latency needs at least 2 ranks, the job has " + comm.size());
      }
      if (comm.rank() == 0) {
        out.printf("# mp-latency: %s, %d ranks, %d %s per size after %d untimed%n", ctx.device().provider(),
            comm.size(), iterations, exchange ? "exchanges (times: a whole exchange)" : "round trips (times: half)",
            warmup);
        out.printf("%-10s %14s %14s %14s%n", "# bytes", "median [us]", "mean [us]", "p99 [us]");
      }
      for (int size : sizes) {
        double[] r = measure(comm, size, iterations, warmup, exchange);
        if (comm.rank() == 0) {
          out.printf("%-10d %14.2f %14.2f %14.2f%n", size, r[0], r[1], r[2]);
        }
      }
      comm.barrier();
    }
    return 0;
  }

  /**
   * Ping-pongs (or exchanges) {@code size} bytes between ranks 0 and 1 and checks the last message
   * each received.
   *
   * @param comm the communicator (other ranks only take part in the barrier)
   * @param size message bytes
   * @param iterations timed round trips or exchanges
   * @param warmup untimed ones before them
   * @param exchange whether both ranks send at once and wait for both (else ping-pong)
   * @return rank 0's times, µs: half round trips, or whole exchanges; median, mean, 99th percentile
   *     (zeros on other ranks)
   * @throws MpException if a message arrived with other bytes than its sender's pattern
   */
  static double[] measure(Communicator comm, int size, int iterations, int warmup, boolean exchange) {
    int rank = comm.rank();
    ByteBuffer send = comm.allocate(Math.max(1, size));
    ByteBuffer recv = comm.allocate(Math.max(1, size));
    for (int i = 0; i < size; i++) {
      send.put(i, pattern(rank, i));
    }
    long[] t = new long[iterations];
    comm.barrier();
    for (int i = -warmup; i < iterations; i++) {
      long start = System.nanoTime();
      if (exchange && rank <= 1) {
        Request r = comm.irecv(recv.clear().limit(size), 1 - rank, size);
        comm.waitAll(comm.isend(send.clear().limit(size), 1 - rank, size), r);
      } else if (rank == 0) {
        comm.send(send.clear().limit(size), 1, size);
        comm.recv(recv.clear().limit(size), 1, size);
      } else if (rank == 1) {
        comm.recv(recv.clear().limit(size), 0, size);
        comm.send(send.clear().limit(size), 0, size);
      }
      if (i >= 0) {
        t[i] = System.nanoTime() - start;
      }
    }
    if (rank <= 1) {
      for (int i = 0; i < size; i++) {
        if (recv.get(i) != pattern(1 - rank, i)) {
          throw new MpException("rank " + rank + ": byte " + i + " of the last " + size + "-byte message is " + recv.get(i)
              + ", rank " + (1 - rank) + " sent " + pattern(1 - rank, i));
        }
      }
    }
    if (rank != 0) {
      return new double[3];
    }
    Arrays.sort(t);
    double us = exchange ? 1e3 : 2e3;
    double mean = Arrays.stream(t).average().orElse(0);
    return new double[] {t[iterations / 2] / us, mean / us, t[(int) Math.min(iterations - 1L, iterations * 99L / 100)] / us};
  }

  private static byte pattern(int rank, int i) {
    return (byte) (i * 31 + rank * 101 + 7);
  }
}
