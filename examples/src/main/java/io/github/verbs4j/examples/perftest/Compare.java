package io.github.verbs4j.examples.perftest;

import io.github.verbs4j.examples.common.JobChannel;
import io.github.verbs4j.examples.common.ValidatesOptions;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.auth.PrivateDir;
import io.github.verbs4j.fabric.coord.Coordinator;
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
 * The providers against raw Netty <b>in the same run</b>: for each round and each size, a raw Netty
 * ping-pong and stream between the same two processes ({@link RawNettyPeer}) and the same over
 * shared-memory rings ({@link RawShmPeer}: the physical floor on one host), then {@code
 * send_lat}, {@code write_lat}, {@code write_bw} and {@code send_bw} of that size on each provider
 * of {@code --providers} (their own code, output suppressed), interleaved so all see the same
 * machine state. The configured provider runs on the launcher's coordinator; every other one on a
 * coordinator rank 0 starts for it (a coordinator fixes one topology per job, and tca needs PEACH2
 * rings). Prints, per provider and size, the median over rounds of t_typical (latency, RTT/2), of
 * BW average and of the SEND message rate, the ratios provider / raw, the ratios of issue #24
 * (against raw shm), and each provider against the first. This is the harness behind the provider figures in {@code docs/benchmarks.md}.
 */
@Command(name = "compare", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"The provider against raw Netty in the same run: RC send/write latency and write bandwidth "
        + "beside a raw Netty and a raw shared-memory ping-pong and stream of the same payloads between the same "
        + "2 processes, "
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

  @Option(names = "--bw-iters", paramLabel = "N", defaultValue = "100000",
      description = "Messages per bandwidth measurement, fewer for large sizes to keep --bw-bytes per "
          + "measurement; a small-message rate needs many, since a short stream measures its start and "
          + "end (default: ${DEFAULT-VALUE}).")
  int bwIters;

  @Option(names = "--bw-bytes", paramLabel = "BYTES", defaultValue = "1073741824",
      description = "Most bytes per bandwidth measurement; at least 16 messages are sent "
          + "(default: ${DEFAULT-VALUE}, about half a second at the sizes where it applies).")
  long bwBytes;

  @Option(names = "--providers", paramLabel = "NAME,...", split = ",", defaultValue = "ib,tca",
      description = "Providers to measure, each in the same rounds (default: ${DEFAULT-VALUE}).")
  List<String> providers;

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
    if (providers.isEmpty() || providers.stream().distinct().count() != providers.size()) {
      throw bad("--providers=" + String.join(",", providers) + " must name at least one provider, each once");
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
    List<AutoCloseable> opened = new ArrayList<>();
    int maxSize = (int) Arrays.stream(sizes).max().getAsLong();
    try (Context ctx = Verbs.open(config); RawNettyPeer raw = new RawNettyPeer(transport, socketBuffer);
        RawShmPeer shm = new RawShmPeer(shmDir(config), ctx.job().rank(), maxSize)) {
      JobChannel ch = new JobChannel(ctx.job(), "compare", Duration.ofSeconds(120));
      if (ch.size() != 2) {
        throw new IllegalStateException("compare runs on exactly 2 ranks, this job has " + ch.size()
            + ": start it with ./verbs4j run -n 2 compare");
      }
      boolean client = ch.rank() == 0;
      int np = providers.size();
      Context[] ctxs = new Context[np];
      VerbsConfig[] configs = new VerbsConfig[np];
      for (int k = 0; k < np; k++) {
        String p = providers.get(k);
        if (p.equals(ctx.device().provider())) {
          ctxs[k] = ctx;
          configs[k] = config;
          continue;
        }
        if (client) {
          Coordinator c = Coordinator.start("127.0.0.1", 0, Duration.ofSeconds(10));
          opened.add(c::close);
          ch.publish("coordinator/" + p, "127.0.0.1:" + c.port());
        }
        configs[k] = config.with(Map.of("verbs.provider", p, "verbs.coordinator", ch.lookup("coordinator/" + p, 0)));
        ctxs[k] = Verbs.open(configs[k]);
        opened.add(0, ctxs[k]);
      }
      if (client) {
        raw.connect(ch.lookup("raw", 1));
      } else {
        ch.publish("raw", raw.serve());
      }
      ch.publish("shm", shm.address());
      shm.connect(ch.lookup("shm", 1 - ch.rank()));
      ch.barrier();
      int n = sizes.length;
      double[][] rawLat = new double[n][rounds];
      double[][] pollLat = new double[n][rounds];
      boolean poll = Transports.choose("auto").epoll();
      double[][] rawBw = new double[n][rounds];
      double[][] rawRate = new double[n][rounds];
      double[][] shmLat = new double[n][rounds];
      double[][] shmBw = new double[n][rounds];
      double[][] shmRate = new double[n][rounds];
      Figures[] fig = new Figures[np];
      for (int k = 0; k < np; k++) {
        fig[k] = new Figures(n, rounds);
      }
      for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < n; i++) {
          long size = sizes[i];
          int bw = bwIters(size);
          if (client) {
            rawLat[i][r] = LatencyStats.of(size, raw.pingPong((int) size, latIters), 2).tTypical();
            BandwidthStats rs = streamStats(size, raw.stream((int) size, bw));
            rawBw[i][r] = rs.bwAverage();
            rawRate[i][r] = rs.msgRateMpps();
          }
          ch.barrier(); // the shm server spins only between these two barriers
          if (client) {
            shmLat[i][r] = LatencyStats.of(size, shm.pingPong((int) size, latIters), 2).tTypical();
            BandwidthStats ss = streamStats(size, shm.stream((int) size, bw));
            shmBw[i][r] = ss.bwAverage();
            shmRate[i][r] = ss.msgRateMpps();
            shm.stop();
          } else {
            shm.serve();
          }
          ch.barrier();
          String tag = "/compare/" + r + "/" + size;
          if (poll) {
            pollLat[i][r] = busyPollPingPong(ch, client, tag, (int) size);
          }
          for (int k = 0; k < np; k++) {
            ch.barrier();
            String t = tag + "/" + providers.get(k);
            ResultRow sl = one(SendLat::new, ctxs[k], configs[k], size, latIters, t);
            ResultRow wl = one(WriteLat::new, ctxs[k], configs[k], size, latIters, t);
            ResultRow wb = one(WriteBw::new, ctxs[k], configs[k], size, bw, t);
            ResultRow sbw = one(SendBw::new, ctxs[k], configs[k], size, bw, t);
            if (client) {
              Figures f = fig[k];
              f.sendLat[i][r] = sl.latency().tTypical();
              f.writeLat[i][r] = wl.latency().tTypical();
              f.writeBw[i][r] = wb.bandwidth().bwAverage();
              f.sendRate[i][r] = sbw.bandwidth().msgRateMpps();
              System.err.printf(Locale.ROOT, "# round %d/%d, %d B, %s: raw %.2f us, raw poll %.2f us, send %.2f us, "
                  + "write %.2f us, raw %.1f MiB/s, write_bw %.1f MiB/s, send_bw %.3f Mmsg/s; raw shm %.3f us, "
                  + "%.1f MiB/s, %.3f Mmsg/s%n", r + 1, rounds, size, providers.get(k), rawLat[i][r], pollLat[i][r],
                  f.sendLat[i][r], f.writeLat[i][r], rawBw[i][r], f.writeBw[i][r], f.sendRate[i][r], shmLat[i][r],
                  shmBw[i][r], shmRate[i][r]);
            }
          }
        }
      }
      if (client) {
        StringBuilder table = new StringBuilder();
        Baselines base = new Baselines(raw.describe(), rawLat, rawBw, rawRate, shm.describe(), shmLat, shmBw, shmRate);
        table.append(baselines(base));
        for (int k = 0; k < np; k++) {
          table.append(table(ctxs[k], configs[k], raw.describe(), rawLat, poll ? pollLat : null, rawBw, fig[k]));
          table.append(targets(providers.get(k), base, fig[k]));
        }
        if (np > 1) {
          table.append(versus(fig));
        }
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
      for (AutoCloseable c : opened) {
        c.close();
      }
      opened.clear();
    } finally {
      for (AutoCloseable c : opened) {
        try {
          c.close();
        } catch (Exception e) {
          // already failing: the first error is the one to report
        }
      }
    }
    return 0;
  }

  /**
   * @return like the fabric's rings: {@code /dev/shm/verbs4j-<user>} where {@code /dev/shm}
   *     exists, else the socket directory ({@code verbs.fabric.uds-dir})
   */
  private static Path shmDir(VerbsConfig config) {
    FabricOptions.Key d = FabricOptions.UDS_DIR;
    String udsDir = config.get(ConfigKey.string(d.name(), d.defaultValue(), d.description()));
    Path dir = PrivateDir.of(Files.isDirectory(Path.of("/dev/shm")) ? "/dev/shm" : udsDir);
    PrivateDir.cleanStale(dir);
    return dir;
  }

  /** A stream's {tposted..., time the count arrived} as perftest's bandwidth row (one completion). */
  private static BandwidthStats streamStats(long size, long[] s) {
    int bw = s.length - 1;
    long[] posted = Arrays.copyOf(s, bw);
    long[] completed = new long[bw];
    completed[bw - 1] = s[bw];
    return BandwidthStats.of(size, posted, completed, bw, false);
  }

  /** The two raw baselines' figures: [size][round]. */
  private record Baselines(String netty, double[][] nettyLat, double[][] nettyBw, double[][] nettyRate, String shm,
      double[][] shmLat, double[][] shmBw, double[][] shmRate) {}

  private String baselines(Baselines b) {
    StringBuilder t = new StringBuilder();
    t.append(String.format(Locale.ROOT, "%nraw baselines between the same 2 processes, median of %d rounds; latency "
        + "t_typical RTT/2 in usec, stream BW average in MiB/sec and M msg/sec%n%n", rounds));
    t.append("| path | size | lat | stream MiB/s | stream Mmsg/s |\n|---|---:|---:|---:|---:|\n");
    for (int i = 0; i < sizes.length; i++) {
      t.append(String.format(Locale.ROOT, "| raw Netty %s | %d | %.3f | %.1f | %.3f |%n", b.netty(), sizes[i],
          median(b.nettyLat()[i]), median(b.nettyBw()[i]), median(b.nettyRate()[i])));
      t.append(String.format(Locale.ROOT, "| raw %s | %d | %.3f | %.1f | %.3f |%n", b.shm(), sizes[i],
          median(b.shmLat()[i]), median(b.shmBw()[i]), median(b.shmRate()[i])));
    }
    t.append("\nraw shm: an Agrona one-to-one ring per direction over a mapped file in the private directory, "
        + "copy in and out, spin-then-yield waits.\n");
    return t.toString();
  }

  /** Issue #24's ratios: latency against raw shm, write_bw against both raw streams, the 8 B message rate. */
  private String targets(String provider, Baselines b, Figures f) {
    StringBuilder t = new StringBuilder();
    t.append(String.format(Locale.ROOT, "%n%s against the raw baselines (medians; targets of issue #24: send_lat "
        + "<= 1.5 us and <= 3x raw shm at 8 B, write_bw >= 2x raw Netty and >= 0.4x raw shm at 1 MiB, "
        + "send_bw >= 2 M msg/s at 8 B)%n%n", provider));
    t.append("| size | send_lat / raw shm lat | write_lat / raw shm lat | write_bw / raw Netty stream "
        + "| write_bw / raw shm stream | send_bw Mmsg/s / raw shm Mmsg/s |\n|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < sizes.length; i++) {
      double sl = median(b.shmLat()[i]);
      t.append(String.format(Locale.ROOT, "| %d | %.2f | %.2f | %.2f | %.2f | %.3f |%n", sizes[i],
          median(f.sendLat[i]) / sl, median(f.writeLat[i]) / sl, median(f.writeBw[i]) / median(b.nettyBw()[i]),
          median(f.writeBw[i]) / median(b.shmBw()[i]), median(f.sendRate[i]) / median(b.shmRate()[i])));
    }
    return t.toString();
  }

  /** One provider's figures: [size][round]. */
  private static final class Figures {
    final double[][] sendLat;
    final double[][] writeLat;
    final double[][] writeBw;
    final double[][] sendRate;

    Figures(int sizes, int rounds) {
      sendLat = new double[sizes][rounds];
      writeLat = new double[sizes][rounds];
      writeBw = new double[sizes][rounds];
      sendRate = new double[sizes][rounds];
    }
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
      double[][] rawBw, Figures f) {
    String provider = ctx.device().provider();
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "%n%s (%s fabric, %s) vs raw Netty (%s), median of %d rounds; "
        + "latency t_typical RTT/2 in usec, bandwidth BW average in MiB/sec, send_bw in M msg/sec%n%n", provider,
        config.get(VerbsConfig.FABRIC), ctx.device().name(), rawTransport, rounds));
    b.append("| size | raw lat | raw poll lat | send_lat | ratio | ratio (poll) | write_lat | ratio | ratio (poll) "
        + "| raw BW | write_bw | ratio | send_bw Mmsg/s |\n");
    b.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < sizes.length; i++) {
      double rl = median(rawLat[i]);
      double pl = pollLat == null ? Double.NaN : median(pollLat[i]);
      double sl = median(f.sendLat[i]);
      double wl = median(f.writeLat[i]);
      double rb = median(rawBw[i]);
      double wb = median(f.writeBw[i]);
      b.append(String.format(Locale.ROOT,
          "| %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f | %.1f | %.2f | %.3f |%n", sizes[i], rl,
          pl, sl, sl / rl, sl / pl, wl, wl / rl, wl / pl, rb, wb, wb / rb, median(f.sendRate[i])));
    }
    b.append("\nraw lat: ping-pong between sleeping event loops (Netty's default); raw poll lat: the same with\n"
        + "event loops that poll epoll without sleeping (n/a without native epoll).\n");
    return b.toString();
  }

  /** Each provider after the first against the first: latency ratios (lower is better), rates (higher). */
  private String versus(Figures[] fig) {
    StringBuilder b = new StringBuilder();
    String first = providers.get(0);
    b.append(String.format(Locale.ROOT, "%nagainst %s (medians): send_lat and write_lat as provider / %s, write_bw and "
        + "send_bw message rate as provider / %s%n%n", first, first, first));
    b.append("| provider | size | send_lat ratio | write_lat ratio | write_bw ratio | send_bw rate ratio |\n");
    b.append("|---|---:|---:|---:|---:|---:|\n");
    for (int k = 1; k < fig.length; k++) {
      for (int i = 0; i < sizes.length; i++) {
        b.append(String.format(Locale.ROOT, "| %s | %d | %.2f | %.2f | %.2f | %.2f |%n", providers.get(k), sizes[i],
            median(fig[k].sendLat[i]) / median(fig[0].sendLat[i]),
            median(fig[k].writeLat[i]) / median(fig[0].writeLat[i]),
            median(fig[k].writeBw[i]) / median(fig[0].writeBw[i]),
            median(fig[k].sendRate[i]) / median(fig[0].sendRate[i])));
      }
    }
    return b.toString();
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }
}
