package io.github.verbs4j.examples.perftest;

import io.github.verbs4j.examples.common.JobChannel;
import io.github.verbs4j.examples.common.ValidatesOptions;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.netty.Transports;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.config.ConfigKey;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The provider against raw Netty <b>in the same run</b>: for each round and each size, a raw Netty
 * ping-pong and stream between the same two processes ({@link RawNettyPeer}), then {@code
 * send_lat}, {@code write_lat} and {@code write_bw} of that size on the configured provider (their
 * own code, output suppressed), interleaved so both see the same machine state. Prints, per size,
 * the median over rounds of t_typical (latency, RTT/2) and of BW average, and the ratios
 * provider / raw. This is the harness behind the provider figures in {@code docs/benchmarks.md}.
 */
@Command(name = "compare", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"The provider against raw Netty in the same run: RC send/write latency and write bandwidth "
        + "beside a raw Netty ping-pong and stream of the same payloads between the same 2 processes, "
        + "interleaved by round.", "Start it with: ./verbs4j run -n 2 compare"})
public final class Compare implements Callable<Integer>, ValidatesOptions {
  @Spec
  CommandSpec spec;

  @Option(names = "--sizes", paramLabel = "BYTES,...", split = ",",
      defaultValue = "8,64,4096,65536,1048576", description = "Message sizes (default: ${DEFAULT-VALUE}).")
  long[] sizes;

  @Option(names = "--rounds", paramLabel = "N", defaultValue = "5",
      description = "Rounds; the table shows the median over rounds (default: ${DEFAULT-VALUE}).")
  int rounds;

  @Option(names = "--lat-iters", paramLabel = "N", defaultValue = "2000",
      description = "Round trips per latency measurement (default: ${DEFAULT-VALUE}).")
  int latIters;

  @Option(names = "--bw-iters", paramLabel = "N", defaultValue = "2000",
      description = "Messages per bandwidth measurement, fewer for large sizes to keep --bw-bytes per "
          + "measurement (default: ${DEFAULT-VALUE}).")
  int bwIters;

  @Option(names = "--bw-bytes", paramLabel = "BYTES", defaultValue = "1073741824",
      description = "Most bytes per bandwidth measurement; at least 16 messages are sent "
          + "(default: ${DEFAULT-VALUE}, about half a second at the sizes where it applies).")
  long bwBytes;

  @Option(names = "--transport", paramLabel = "auto|tcp|uds", defaultValue = "auto",
      description = "Raw Netty socket family; auto follows verbs.fabric.transport's rule (default: ${DEFAULT-VALUE}).")
  String transport;

  /** The fabric's Unix socket buffers, applied to the raw peers too (set in {@link #call}). */
  private int socketBuffer;

  @Option(names = "--md", paramLabel = "FILE", description = "Also write the table as Markdown to FILE.")
  Path markdown;

  private static final PrintStream NULL = new PrintStream(OutputStream.nullOutputStream());

  @Override
  public void validateOptions() {
    if (sizes.length == 0) {
      throw bad("--sizes must name at least one size");
    }
    for (long s : sizes) {
      if (s < 2 || s > PerftestOptions.MAX_SIZE) {
        throw bad("--sizes: " + s + " must be between 2 and " + PerftestOptions.MAX_SIZE);
      }
    }
    if (rounds < 1) {
      throw bad("--rounds=" + rounds + " must be at least 1");
    }
    if (latIters < LatencyStats.MIN_ITERATIONS) {
      throw bad("--lat-iters=" + latIters + " must be at least " + LatencyStats.MIN_ITERATIONS);
    }
    if (bwIters < 1) {
      throw bad("--bw-iters=" + bwIters + " must be at least 1");
    }
    if (bwBytes < 1) {
      throw bad("--bw-bytes=" + bwBytes + " must be at least 1");
    }
    if (!List.of("auto", "tcp", "uds").contains(transport)) {
      throw bad("--transport=" + transport + " must be auto, tcp or uds");
    }
  }

  private ParameterException bad(String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  private int bwIters(long size) {
    return (int) Math.max(16, Math.min(bwIters, bwBytes / size));
  }

  private static <P extends PerftestProgram> ResultRow one(Supplier<P> factory, Context ctx, VerbsConfig config,
      long size, int iters, String tag) {
    P p = factory.get();
    p.channelTag(tag);
    new CommandLine(p).parseArgs("--size", Long.toString(size), "--iters", Integer.toString(iters));
    p.streams(NULL, NULL);
    List<ResultRow> rows = p.run(ctx, config, p.validate());
    return rows.isEmpty() ? null : rows.get(0);
  }

  @Override
  public Integer call() throws Exception {
    validateOptions();
    VerbsConfig config = VerbsConfig.load();
    FabricOptions.Key sb = FabricOptions.UDS_SOCKET_BUFFER;
    String sbValue = config.get(ConfigKey.string(sb.name(), sb.defaultValue(), sb.description()));
    socketBuffer = (int) FabricOptions.from(Map.of(sb.name(), sbValue), Map.of()).getLong(sb);
    try (Context ctx = Verbs.open(config); RawNettyPeer raw = new RawNettyPeer(transport, socketBuffer)) {
      JobChannel ch = new JobChannel(ctx.job(), "compare", Duration.ofSeconds(120));
      if (ch.size() != 2) {
        throw new IllegalStateException("compare runs on exactly 2 ranks, this job has " + ch.size()
            + ": start it with ./verbs4j run -n 2 compare");
      }
      boolean client = ch.rank() == 0;
      if (client) {
        raw.connect(ch.lookup("raw", 1));
      } else {
        ch.publish("raw", raw.serve());
      }
      ch.barrier();
      int n = sizes.length;
      double[][] rawLat = new double[n][rounds];
      double[][] pollLat = new double[n][rounds];
      boolean poll = Transports.choose("auto").epoll();
      double[][] sendLat = new double[n][rounds];
      double[][] writeLat = new double[n][rounds];
      double[][] rawBw = new double[n][rounds];
      double[][] writeBw = new double[n][rounds];
      for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < n; i++) {
          long size = sizes[i];
          int bw = bwIters(size);
          if (client) {
            rawLat[i][r] = LatencyStats.of(size, raw.pingPong((int) size, latIters), 2).tTypical();
            long[] s = raw.stream((int) size, bw);
            long[] posted = Arrays.copyOf(s, bw);
            long[] completed = new long[bw];
            completed[bw - 1] = s[bw];
            rawBw[i][r] = BandwidthStats.of(size, posted, completed, bw, false).bwAverage();
          }
          String tag = "/compare/" + r + "/" + size;
          if (poll) {
            pollLat[i][r] = busyPollPingPong(ch, client, tag, (int) size);
          }
          ch.barrier();
          ResultRow sl = one(SendLat::new, ctx, config, size, latIters, tag);
          ResultRow wl = one(WriteLat::new, ctx, config, size, latIters, tag);
          ResultRow wb = one(WriteBw::new, ctx, config, size, bw, tag);
          if (client) {
            sendLat[i][r] = sl.latency().tTypical();
            writeLat[i][r] = wl.latency().tTypical();
            writeBw[i][r] = wb.bandwidth().bwAverage();
            System.err.printf(Locale.ROOT, "# round %d/%d, %d B: raw %.2f us, raw poll %.2f us, send %.2f us, "
                + "write %.2f us, raw %.1f MiB/s, write_bw %.1f MiB/s%n", r + 1, rounds, size, rawLat[i][r],
                pollLat[i][r], sendLat[i][r], writeLat[i][r], rawBw[i][r], writeBw[i][r]);
          }
        }
      }
      if (client) {
        String table = table(ctx, config, raw.describe(), rawLat, poll ? pollLat : null, sendLat, writeLat, rawBw, writeBw);
        System.out.print(table);
        if (markdown != null) {
          try {
            Files.writeString(markdown, table);
          } catch (IOException e) {
            throw new UncheckedIOException("cannot write --md " + markdown + ": " + e.getMessage(), e);
          }
        }
      }
      ch.barrier();
    }
    return 0;
  }

  /**
   * A ping-pong on a fresh pair of busy-polling raw Netty peers (made and closed here, so their
   * spinning event loops do not run during the other measurements).
   *
   * @return the client's t_typical; 0 on the server
   */
  private double busyPollPingPong(JobChannel ch, boolean client, String tag, int size) throws Exception {
    try (RawNettyPeer p = new RawNettyPeer(transport, socketBuffer, true)) {
      if (client) {
        p.connect(ch.lookup("rawpoll" + tag, 1));
        double t = LatencyStats.of(size, p.pingPong(size, latIters), 2).tTypical();
        ch.barrier();
        return t;
      }
      ch.publish("rawpoll" + tag, p.serve());
      ch.barrier();
      return 0;
    }
  }

  private String table(Context ctx, VerbsConfig config, String rawTransport, double[][] rawLat, double[][] pollLat,
      double[][] sendLat, double[][] writeLat, double[][] rawBw, double[][] writeBw) {
    String provider = ctx.device().provider();
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "%n%s (%s fabric, %s) vs raw Netty (%s), median of %d rounds; "
        + "latency t_typical RTT/2 in usec, bandwidth BW average in MiB/sec%n%n", provider,
        config.get(VerbsConfig.FABRIC), ctx.device().name(), rawTransport, rounds));
    b.append("| size | raw lat | raw poll lat | send_lat | ratio | ratio (poll) | write_lat | ratio | ratio (poll) "
        + "| raw BW | write_bw | ratio |\n");
    b.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < sizes.length; i++) {
      double rl = median(rawLat[i]);
      double pl = pollLat == null ? Double.NaN : median(pollLat[i]);
      double sl = median(sendLat[i]);
      double wl = median(writeLat[i]);
      double rb = median(rawBw[i]);
      double wb = median(writeBw[i]);
      b.append(String.format(Locale.ROOT, "| %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f | %.1f | %.2f |%n",
          sizes[i], rl, pl, sl, sl / rl, sl / pl, wl, wl / rl, wl / pl, rb, wb, wb / rb));
    }
    b.append("\nraw lat: ping-pong between sleeping event loops (Netty's default); raw poll lat: the same with\n"
        + "event loops that poll epoll without sleeping (n/a without native epoll).\n");
    return b.toString();
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }
}
