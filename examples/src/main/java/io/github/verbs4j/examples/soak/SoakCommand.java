package io.github.verbs4j.examples.soak;

import io.github.verbs4j.examples.common.ValidatesOptions;
import io.github.verbs4j.examples.mp.Communicator;
import io.github.verbs4j.examples.mp.MpConfig;
import io.github.verbs4j.examples.mp.ReduceOp;
import io.github.verbs4j.examples.mp.Request;
import io.github.verbs4j.examples.mp.VerbsCommunicator;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * A soak run: every rank exchanges checked messages with every other rank over RC (the
 * message-passing layer) on a fabric that drops frames, for a long time, and samples its heap and
 * open file descriptors at a fixed interval. Rank 0 prints every rank's samples, the message and
 * error counts, and the growth of heap and descriptors from the first sample to the last; the run
 * fails (exit 1) on any error or when a rank's descriptors grew. Not part of the build's tests
 * (it runs for minutes); {@code SoakCommandTest} runs it for seconds.
 */
@Command(name = "soak", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"All-to-all RC messages, checked byte for byte, over a fabric that drops frames, for a long "
        + "time; heap and file descriptors sampled and reported.",
        "Example: ./verbs4j run -n 8 --timeout 15m soak --duration 10m --plot soak.png"})
public final class SoakCommand implements Callable<Integer>, ValidatesOptions {
  @Spec
  CommandSpec spec;

  @Option(names = "--duration", paramLabel = "DURATION", defaultValue = "10m",
      description = "How long to run, e.g. 10m or 90s (default: ${DEFAULT-VALUE}).")
  String duration;

  @Option(names = "--messages", paramLabel = "N", defaultValue = "0",
      description = "Stop after N messages per ordered pair of ranks instead of after --duration; 0 = run "
          + "for --duration (default: ${DEFAULT-VALUE}).")
  long messages;

  @Option(names = "--sample", paramLabel = "DURATION", defaultValue = "1m",
      description = "Interval between samples of heap and file descriptors (default: ${DEFAULT-VALUE}).")
  String sample;

  @Option(names = "--size", paramLabel = "BYTES", defaultValue = "4096",
      description = "Message size (default: ${DEFAULT-VALUE}).")
  int size;

  @Option(names = "--drop", paramLabel = "P", defaultValue = "0.01",
      description = "Probability that the fabric drops a frame (verbs.fault.drop; default: ${DEFAULT-VALUE}).")
  double drop;

  @Option(names = "--plot", paramLabel = "FILE.png", description = "Rank 0 also draws heap and descriptors per sample.")
  Path plot;

  /** One rank's samples, gathered to every rank. */
  record Result(long messages, long errors, int samples, long[][] heapBytes, long[][] fds) {}

  @Override
  public void validateOptions() {
    Duration d = parse("--duration", duration);
    Duration s = parse("--sample", sample);
    if (s.compareTo(d) > 0) {
      throw bad("--sample=" + sample + " must not be longer than --duration=" + duration);
    }
    if (size < 8 || size > (64 << 20)) {
      throw bad("--size=" + size + " must be between 8 and 67108864");
    }
    if (messages < 0) {
      throw bad("--messages=" + messages + " must be 0 (run for --duration) or more");
    }
    if (!(drop >= 0 && drop < 1)) {
      throw bad("--drop=" + drop + " must be at least 0 and below 1");
    }
  }

  private Duration parse(String name, String v) {
    String t = v.trim().toLowerCase(Locale.ROOT);
    try {
      Duration d = t.endsWith("ms") ? Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)))
          : t.endsWith("s") ? Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1)))
          : t.endsWith("m") ? Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1)))
          : t.endsWith("h") ? Duration.ofHours(Long.parseLong(t.substring(0, t.length() - 1))) : null;
      if (d != null && !d.isNegative() && !d.isZero()) {
        return d;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw bad(name + "=" + v + " must be a positive duration such as 500ms, 90s, 10m or 1h");
  }

  private ParameterException bad(String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  @Override
  public Integer call() {
    validateOptions();
    VerbsConfig config = VerbsConfig.load().with("verbs.fault.drop", Double.toString(drop));
    try (Context ctx = Verbs.open(config); Communicator comm = VerbsCommunicator.open(ctx, MpConfig.defaults())) {
      Result r = run(comm, parse("--duration", duration), messages, parse("--sample", sample), size);
      if (comm.rank() == 0) {
        report(spec.commandLine().getOut(), r);
        if (plot != null) {
          plot(r, plot);
        }
      }
      return failed(r) ? 1 : 0;
    }
  }

  /** @return whether the run had an error or a rank's file descriptors grew */
  static boolean failed(Result r) {
    if (r.errors() > 0) {
      return true;
    }
    for (long[] f : r.fds()) {
      if (r.samples() > 1 && f[r.samples() - 1] > f[0]) {
        return true;
      }
    }
    return false;
  }

  /**
   * The soak on {@code comm}: rounds of one checked message to and from every other rank until
   * {@code duration} has passed on rank 0's clock, or for {@code rounds} rounds if that is positive
   * (one message per ordered pair each), a sample every {@code sample} and one at the end.
   */
  static Result run(Communicator comm, Duration duration, long rounds, Duration sample, int size) {
    int n = comm.size();
    int me = comm.rank();
    int maxSamples = (int) Math.min(10_000, duration.toNanos() / sample.toNanos() + 2);
    long[] heap = new long[maxSamples];
    long[] fds = new long[maxSamples];
    List<ByteBuffer> out = new ArrayList<>();
    List<ByteBuffer> in = new ArrayList<>();
    for (int k = 1; k < n; k++) {
      out.add(comm.allocate(size));
      in.add(comm.allocate(size));
    }
    long messages = 0;
    long errors = 0;
    int samples = 0;
    long start = System.nanoTime();
    long nextSample = start;
    long[] control = new long[2];
    for (long round = 0; ; round++) {
      Request[] reqs = new Request[2 * (n - 1)];
      for (int k = 1; k < n; k++) {
        int dest = (me + k) % n;
        ByteBuffer b = out.get(k - 1).clear();
        fill(b, me, dest, round);
        reqs[2 * (k - 1)] = comm.irecv(in.get(k - 1).clear(), (me - k + n) % n, 7);
        reqs[2 * (k - 1) + 1] = comm.isend(b.clear(), dest, 7);
      }
      comm.waitAll(reqs);
      for (int k = 1; k < n; k++) {
        int src = (me - k + n) % n;
        messages++;
        if (!matches(in.get(k - 1).clear(), src, me, round)) {
          errors++;
        }
      }
      boolean last = rounds > 0 && round + 1 >= rounds; // the same round on every rank
      if (round % 64 != 0 && !last) {
        continue;
      }
      long now = System.nanoTime();
      control[0] = me == 0 && (rounds > 0 ? last : now - start >= duration.toNanos()) ? 1 : 0;
      control[1] = me == 0 && now - nextSample >= 0 ? 1 : 0;
      comm.allreduce(control, ReduceOp.SUM);
      if (control[1] == 1 || control[0] == 1) {
        if (samples < maxSamples) {
          System.gc();
          heap[samples] = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
          fds[samples] = openFileDescriptors();
          samples++;
        }
        nextSample += sample.toNanos();
      }
      if (control[0] == 1) {
        break;
      }
    }
    long[] totals = {messages, errors};
    comm.allreduce(totals, ReduceOp.SUM);
    long[][] allHeap = gather(comm, heap, samples);
    long[][] allFds = gather(comm, fds, samples);
    return new Result(totals[0], totals[1], samples, allHeap, allFds);
  }

  private static long[][] gather(Communicator comm, long[] mine, int samples) {
    int n = comm.size();
    long[] all = new long[n * samples];
    System.arraycopy(mine, 0, all, comm.rank() * samples, samples);
    comm.allreduce(all, ReduceOp.SUM);
    long[][] out = new long[n][samples];
    for (int r = 0; r < n; r++) {
      System.arraycopy(all, r * samples, out[r], 0, samples);
    }
    return out;
  }

  private static void fill(ByteBuffer b, int src, int dst, long round) {
    for (int i = 0; i < b.capacity(); i++) {
      b.put(i, (byte) (src * 31 + dst * 17 + round * 7 + i));
    }
  }

  private static boolean matches(ByteBuffer b, int src, int dst, long round) {
    for (int i = 0; i < b.capacity(); i++) {
      if (b.get(i) != (byte) (src * 31 + dst * 17 + round * 7 + i)) {
        return false;
      }
    }
    return true;
  }

  /** @return this process's open file descriptors ({@code /proc/self/fd}), or -1 where there is none */
  static long openFileDescriptors() {
    Path dir = Path.of("/proc/self/fd");
    if (!Files.isDirectory(dir)) {
      return -1;
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.count();
    } catch (IOException e) {
      return -1;
    }
  }

  /** Rank 0's report: counts, then heap (MiB) and descriptors per rank and sample. */
  static void report(PrintWriter out, Result r) {
    out.printf(Locale.ROOT, "soak: %d ranks, %d messages, %d errors, %d samples%n", r.heapBytes().length, r.messages(),
        r.errors(), r.samples());
    out.println("| rank | heap MiB per sample | file descriptors per sample | heap growth MiB | fd growth |");
    out.println("|---:|---|---|---:|---:|");
    for (int rank = 0; rank < r.heapBytes().length; rank++) {
      StringBuilder h = new StringBuilder();
      StringBuilder f = new StringBuilder();
      for (int s = 0; s < r.samples(); s++) {
        h.append(s == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.1f", r.heapBytes()[rank][s] / 1048576.0));
        f.append(s == 0 ? "" : " ").append(r.fds()[rank][s]);
      }
      int last = r.samples() - 1;
      out.printf(Locale.ROOT, "| %d | %s | %s | %.1f | %d |%n", rank, h, f,
          (r.heapBytes()[rank][last] - r.heapBytes()[rank][0]) / 1048576.0, r.fds()[rank][last] - r.fds()[rank][0]);
    }
    out.println(failed(r) ? "soak: FAILED (errors, or descriptors grew)" : "soak: passed (0 errors, descriptors flat)");
    out.flush();
  }

  private static void plot(Result r, Path png) {
    XYChart heap = new XYChartBuilder().width(700).height(400).title("Heap after GC per rank")
        .xAxisTitle("sample").yAxisTitle("MiB").build();
    XYChart fds = new XYChartBuilder().width(700).height(400).title("Open file descriptors per rank")
        .xAxisTitle("sample").yAxisTitle("descriptors").build();
    double[] x = new double[r.samples()];
    for (int s = 0; s < x.length; s++) {
      x[s] = s;
    }
    for (int rank = 0; rank < r.heapBytes().length; rank++) {
      double[] h = new double[x.length];
      double[] f = new double[x.length];
      for (int s = 0; s < x.length; s++) {
        h[s] = r.heapBytes()[rank][s] / 1048576.0;
        f[s] = r.fds()[rank][s];
      }
      heap.addSeries("rank " + rank, x, h);
      fds.addSeries("rank " + rank, x, f);
    }
    try {
      String base = png.toString().replaceFirst("\\.png$", "");
      BitmapEncoder.saveBitmap(heap, base + "-heap", BitmapEncoder.BitmapFormat.PNG);
      BitmapEncoder.saveBitmap(fds, base + "-fds", BitmapEncoder.BitmapFormat.PNG);
    } catch (IOException e) {
      throw new UncheckedIOException("--plot " + png + ": " + e.getMessage(), e);
    }
  }
}
