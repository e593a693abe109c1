package io.github.verbs4j.fabric.bench;

import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.netty.Transports;
import io.github.verbs4j.fabric.testing.ChildJvm;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Frame ping-pong latency and one-way streaming bandwidth between two JVM processes over the netty
 * fabric, and raw Netty (length prefix, same transport, allocator, water marks, copy/composite
 * policy) moving the same payloads in the same run, batches interleaved (raw, fabric, raw, ...).
 *
 * <pre>
 * mvn -q -pl sim-fabric test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * java -Dio.netty.leakDetection.level=disabled -cp sim-fabric/target/test-classes:sim-fabric/target/classes:$(cat sim-fabric/target/cp.txt) \
 *   io.github.verbs4j.fabric.bench.FabricBench [--transports tcp,uds,shm] [--batches 5] [--batch-ms 400] [--sizes 8,64,4096,65536,1048576] [--out file]
 * </pre>
 *
 * Ping-pong is driven from the event loops (each reply sends the next ping), one-way latency = round
 * trip / 2, median per batch. Streaming: the sender waits for writability (spin, yield, park) and
 * ends with a marker the receiver answers; bandwidth = payload bytes / time. Prints a Markdown
 * table: median of batch medians with the min..max of the batch medians. {@code shm}: the fabric
 * with {@code verbs.fabric.shm=required} (frames in shared-memory rings), against raw Netty over UDS;
 * {@code tls}: the fabric over TCP with {@code verbs.fabric.tls=on}, against raw Netty over plain TCP.
 */
public final class FabricBench {
  static int[] sizes = {8, 64, 4096, 65536, 1 << 20};
  static final int TAG_PING = 1;
  static final int TAG_DATA = 2;
  static final int TAG_END = 3;

  private FabricBench() {}

  /**
   * @param args see the class comment; {@code --child} runs the echo/sink side
   * @throws Exception on failure
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      a.put(args[i], args[i + 1]);
    }
    if (a.containsKey("--child")) {
      child(a.get("--child"), a.get("--coord"));
      return;
    }
    List<String> transports = List.of(a.getOrDefault("--transports", "tcp,uds").split(","));
    int batches = Integer.parseInt(a.getOrDefault("--batches", "5"));
    if (a.containsKey("--sizes")) {
      sizes = Arrays.stream(a.get("--sizes").split(",")).mapToInt(Integer::parseInt).toArray();
    }
    long batchMs = Long.parseLong(a.getOrDefault("--batch-ms", "400"));
    StringBuilder out = new StringBuilder();
    out.append("java ").append(System.getProperty("java.version")).append(", ").append(Runtime.getRuntime().availableProcessors())
        .append(" CPUs, batches=").append(batches).append(", batch-ms=").append(batchMs).append('\n');
    for (String t : transports) {
      out.append(run(t, batches, batchMs));
    }
    System.out.println(out);
    if (a.containsKey("--out")) {
      Files.writeString(Path.of(a.get("--out")), out.toString());
    }
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static FabricOptions options(String transport, String coord, int rank) {
    return FabricOptions.from(Map.of("verbs.fabric", "netty", "verbs.coordinator", coord, "verbs.rank", Integer.toString(rank),
        "verbs.size", "2", "verbs.fabric.transport", transport.equals("shm") ? "uds" : transport.equals("tls") ? "tcp" : transport,
        "verbs.fabric.shm", transport.equals("shm") ? "required" : "off", "verbs.fabric.tls", transport.equals("tls") ? "on" : "off",
        "verbs.fabric.join-timeout-ms", "60000"), Map.of());
  }

  // ---------------------------------------------------------------- child (echo + sink)

  private static void child(String transport, String coord) throws Exception {
    Transports t = Transports.choose("auto");
    boolean uds = transport.equals("uds") || transport.equals("shm"); // shm: its raw baseline is Netty over UDS
    FabricNode node = Fabric.open(options(transport, coord, 1), new SimpleMeterRegistry());
    long[] frames = new long[1];
    CountDownLatch quit = new CountDownLatch(1);
    node.setReceiver((h, p) -> {
      switch (h.tag()) {
        case TAG_PING -> node.send(h.src(), TAG_PING, p);
        case TAG_DATA -> {
          frames[0]++;
          p.release();
        }
        case TAG_END -> {
          p.release();
          node.send(h.src(), TAG_END, node.alloc().directBuffer(8).writeLong(frames[0]));
          frames[0] = 0;
        }
        default -> {
          p.release();
          quit.countDown();
        }
      }
    });
    MultiThreadIoEventLoopGroup g = RawNetty.group(t, "raw-child");
    SocketAddress echoAddr;
    SocketAddress sinkAddr;
    String echoSpec;
    String sinkSpec;
    if (uds) {
      String base = System.getProperty("java.io.tmpdir") + "/verbs4j-bench-" + ProcessHandle.current().pid();
      echoSpec = base + "-echo.sock";
      sinkSpec = base + "-sink.sock";
      Files.deleteIfExists(Path.of(echoSpec));
      Files.deleteIfExists(Path.of(sinkSpec));
      echoAddr = t.udsAddress(echoSpec);
      sinkAddr = t.udsAddress(sinkSpec);
    } else {
      echoAddr = new InetSocketAddress("127.0.0.1", 0);
      sinkAddr = new InetSocketAddress("127.0.0.1", 0);
      echoSpec = null;
      sinkSpec = null;
    }
    Channel echo = RawNetty.serve(t, g, uds, echoAddr, RawNetty.Echo::new);
    Channel sink = RawNetty.serve(t, g, uds, sinkAddr, RawNetty.Sink::new);
    node.job().kvPut("raw/echo", (uds ? echoSpec : Integer.toString(((InetSocketAddress) echo.localAddress()).getPort())).getBytes(StandardCharsets.UTF_8));
    node.job().kvPut("raw/sink", (uds ? sinkSpec : Integer.toString(((InetSocketAddress) sink.localAddress()).getPort())).getBytes(StandardCharsets.UTF_8));
    quit.await(30, TimeUnit.MINUTES);
    echo.close();
    sink.close();
    g.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    node.close();
    if (uds) {
      Files.deleteIfExists(Path.of(echoSpec));
      Files.deleteIfExists(Path.of(sinkSpec));
    }
  }

  // ---------------------------------------------------------------- driver

  /** Ping-pong state shared by the fabric and raw drivers: records round trips, sends the next ping. */
  private abstract static class PingPong {
    long[] rtt = new long[1];
    int n;
    int target;
    long sent;
    ByteBuf payload;
    volatile CountDownLatch done;

    abstract void ping(ByteBuf p);

    void start(ByteBuf p, int iterations) {
      payload = p;
      target = iterations;
      if (rtt.length < iterations) {
        rtt = new long[iterations];
      }
      n = 0;
      done = new CountDownLatch(1);
      sent = System.nanoTime();
      ping(p.retainedDuplicate());
    }

    void pong(ByteBuf reply) {
      long now = System.nanoTime();
      reply.release();
      rtt[n++] = now - sent;
      if (n < target) {
        sent = System.nanoTime();
        ping(payload.retainedDuplicate());
      } else {
        done.countDown();
      }
    }
  }

  private static String run(String transport, int batches, long batchMs) throws Exception {
    Transports t = Transports.choose("auto");
    boolean uds = transport.equals("uds") || transport.equals("shm"); // shm: its raw baseline is Netty over UDS
    String coord = "embedded:127.0.0.1:" + freePort();
    ChildJvm.Builder cb = ChildJvm.builder(FabricBench.class).name("bench-" + transport)
        .property("io.netty.leakDetection.level", "disabled").fastStartup(false)
        .args("--child", transport, "--coord", coord);
    System.getProperties().forEach((k, v) -> {
      if (k.toString().startsWith("verbs4j.")) {
        cb.property(k.toString(), v.toString());
      }
    });
    try (ChildJvm child = cb.start()) {
      FabricNode node = Fabric.open(options(transport, coord, 0), new SimpleMeterRegistry());
      MultiThreadIoEventLoopGroup g = RawNetty.group(t, "raw-driver");
      try {
        String echoSpec = new String(node.job().kvGet("raw/echo", Duration.ofSeconds(60)), StandardCharsets.UTF_8);
        String sinkSpec = new String(node.job().kvGet("raw/sink", Duration.ofSeconds(60)), StandardCharsets.UTF_8);
        SocketAddress echoAddr = uds ? t.udsAddress(echoSpec) : new InetSocketAddress("127.0.0.1", Integer.parseInt(echoSpec));
        SocketAddress sinkAddr = uds ? t.udsAddress(sinkSpec) : new InetSocketAddress("127.0.0.1", Integer.parseInt(sinkSpec));

        PingPong fabricPp = new PingPong() {
          @Override
          void ping(ByteBuf p) {
            node.send(2, TAG_PING, p);
          }
        };
        long[] endCount = new long[1];
        CountDownLatch[] endLatch = new CountDownLatch[1];
        node.setReceiver((h, p) -> {
          if (h.tag() == TAG_PING) {
            fabricPp.pong(p);
          } else {
            endCount[0] = p.readLong();
            p.release();
            endLatch[0].countDown();
          }
        });
        Channel[] rawEcho = new Channel[1];
        RawNetty.Outbox[] rawEchoOut = new RawNetty.Outbox[1];
        PingPong rawPp = new PingPong() {
          @Override
          void ping(ByteBuf p) {
            rawEchoOut[0].send(p);
          }
        };
        rawEcho[0] = RawNetty.connect(t, g, uds, echoAddr, new ChannelInboundHandlerAdapter() {
          @Override
          public void channelRead(ChannelHandlerContext ctx, Object msg) {
            rawPp.pong((ByteBuf) msg);
          }
        });
        rawEchoOut[0] = new RawNetty.Outbox(rawEcho[0]);
        long[] rawEnd = new long[1];
        CountDownLatch[] rawEndLatch = new CountDownLatch[1];
        Channel rawSink = RawNetty.connect(t, g, uds, sinkAddr, new ChannelInboundHandlerAdapter() {
          @Override
          public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            rawEnd[0] = b.readLong();
            b.release();
            rawEndLatch[0].countDown();
          }
        });
        RawNetty.Outbox rawSinkOut = new RawNetty.Outbox(rawSink);

        StringBuilder sb = new StringBuilder();
        sb.append("\n### ").append(transport).append(" (").append(t.name()).append(")\n\n");
        sb.append("| size | raw latency µs | fabric latency µs | ratio | raw GB/s [Mmsg/s] | fabric GB/s [Mmsg/s] | ratio |\n");
        sb.append("|---:|---:|---:|---:|---:|---:|---:|\n");
        for (int size : sizes) {
          ByteBuf payload = node.alloc().directBuffer(size).writeZero(size);
          double[][] lat = new double[2][batches];
          double[][] bw = new double[2][batches];
          int iters = Math.max(50, (int) Math.min(20_000, batchMs * 1000 / (2 * (20 + size / 1000))));
          // warm-up of both paths
          for (int w = 0; w < 3; w++) {
            latency(rawPp, payload, iters);
            latency(fabricPp, payload, iters);
          }
          int frames = (int) Math.max(200, Math.min(200_000, (512L << 20) / size));
          streamFabric(node, payload, Math.min(frames, 20_000), endCount, endLatch);
          streamRaw(rawSink, rawSinkOut, payload, Math.min(frames, 20_000), rawEnd, rawEndLatch);
          for (int b = 0; b < batches; b++) {
            lat[0][b] = latency(rawPp, payload, iters);
            lat[1][b] = latency(fabricPp, payload, iters);
            bw[0][b] = streamRaw(rawSink, rawSinkOut, payload, frames, rawEnd, rawEndLatch) * size;
            bw[1][b] = streamFabric(node, payload, frames, endCount, endLatch) * size;
          }
          payload.release();
          String row = String.format(Locale.ROOT, "| %s | %s | %s | %.2f | %s | %s | %.2f |%n", label(size), range(lat[0], 1e-3),
              range(lat[1], 1e-3), median(lat[1]) / median(lat[0]), rate(bw[0], size), rate(bw[1], size),
              median(bw[1]) / median(bw[0]));
          System.err.print(transport + " " + row);
          sb.append(row);
        }
        node.send(2, 9, node.alloc().buffer(1).writeByte(0));
        rawEcho[0].close();
        rawSink.close();
        return sb.toString();
      } finally {
        g.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        node.close();
      }
    }
  }

  private static String label(int size) {
    return size >= 1 << 20 ? (size >> 20) + " MiB" : size >= 1024 ? (size >> 10) + " KiB" : size + " B";
  }

  /** @return median one-way latency of a batch, ns */
  private static double latency(PingPong pp, ByteBuf payload, int iters) throws InterruptedException {
    pp.start(payload, iters);
    if (!pp.done.await(120, TimeUnit.SECONDS)) {
      throw new IllegalStateException("ping-pong stalled at " + pp.n + "/" + iters);
    }
    long[] r = Arrays.copyOf(pp.rtt, iters);
    Arrays.sort(r);
    return r[iters / 2] / 2.0;
  }

  private static void idle(int i) {
    if (i < 100) {
      Thread.onSpinWait();
    } else if (i < 200) {
      Thread.yield();
    } else {
      LockSupport.parkNanos(20_000);
    }
  }

  /** @return frames per second */
  private static double streamFabric(FabricNode node, ByteBuf payload, int frames, long[] count, CountDownLatch[] latch)
      throws InterruptedException {
    latch[0] = new CountDownLatch(1);
    long start = System.nanoTime();
    for (int i = 0; i < frames; i++) {
      for (int k = 0; !node.isWritable(2); k++) {
        idle(k);
      }
      node.send(2, TAG_DATA, payload.retainedDuplicate());
    }
    node.send(2, TAG_END, node.alloc().directBuffer(0));
    if (!latch[0].await(120, TimeUnit.SECONDS) || count[0] != frames) {
      throw new IllegalStateException("fabric stream: receiver counted " + count[0] + " of " + frames);
    }
    return frames * 1e9 / (System.nanoTime() - start);
  }

  /** @return frames per second */
  private static double streamRaw(Channel ch, RawNetty.Outbox out, ByteBuf payload, int frames, long[] count,
      CountDownLatch[] latch) throws InterruptedException {
    latch[0] = new CountDownLatch(1);
    long start = System.nanoTime();
    for (int i = 0; i < frames; i++) {
      for (int k = 0; !ch.isWritable(); k++) {
        idle(k);
      }
      out.send(payload.retainedDuplicate());
    }
    out.send(RawNetty.ALLOC.directBuffer(0));
    if (!latch[0].await(120, TimeUnit.SECONDS) || count[0] != frames) {
      throw new IllegalStateException("raw stream: receiver counted " + count[0] + " of " + frames);
    }
    return frames * 1e9 / (System.nanoTime() - start);
  }

  private static double median(double[] v) {
    double[] c = v.clone();
    Arrays.sort(c);
    return c[c.length / 2];
  }

  private static String range(double[] v, double scale) {
    double[] c = v.clone();
    Arrays.sort(c);
    return String.format(Locale.ROOT, "%.2f (%.2f–%.2f)", c[c.length / 2] * scale, c[0] * scale, c[c.length - 1] * scale);
  }

  private static String rate(double[] bytesPerSec, int size) {
    double m = median(bytesPerSec);
    double[] c = bytesPerSec.clone();
    Arrays.sort(c);
    String s = String.format(Locale.ROOT, "%.3f (%.3f–%.3f)", m / 1e9, c[0] / 1e9, c[c.length - 1] / 1e9);
    if (size <= 4096) {
      s += String.format(Locale.ROOT, " [%.2f M/s]", m / size / 1e6);
    }
    return s;
  }
}
