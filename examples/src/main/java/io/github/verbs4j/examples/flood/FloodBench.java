package io.github.verbs4j.examples.flood;

import io.github.verbs4j.examples.common.OwnThreads;
import io.github.verbs4j.fabric.auth.Handshake;
import io.github.verbs4j.fabric.auth.JobSecret;
import io.github.verbs4j.fabric.coord.Coordinator;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.DeviceOptions;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.Mtu;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import io.github.verbs4j.verbs.config.VerbsConfig;
import io.github.verbs4j.verbs.Access;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.Arrays;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code verbs4j flood-bench}: the round trip of an 8-byte RC ping-pong between two {@code ib}
 * nodes over the netty fabric, in one run, without and with a flood of malformed frames written
 * into node B by a member of the job over a data connection of its own (authenticated as node A,
 * so every frame names a valid source). The ping-pong's p99 before, during and after the flood,
 * and the ratio the issue #23 target is about (within 3×).
 *
 * <p>It also checks what a test would: no connection died (every completion SUCCESS, the QPs still
 * RTS), every flood frame was counted on arrival by reason ({@code malformed} or {@code
 * bad_version}), none reached B's engine ({@code verbs4j.ib.drops} for malformed packets, unknown
 * QPs, bad ICRC and a full inbound queue stay 0). Exit 1 if a check fails.
 */
@Command(name = "flood-bench", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"8 B RC ping-pong round trips (ib over netty, two nodes in this JVM) without and with a "
        + "flood of malformed frames into one node; p50/p99 of each, and checks that the flood was dropped "
        + "on arrival.", "Example: ./verbs4j flood-bench --flood 100000"})
public final class FloodBench implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--flood", paramLabel = "N", defaultValue = "100000",
      description = "Malformed frames written into node B (default: ${DEFAULT-VALUE}).")
  int flood;

  @Option(names = "--rounds", paramLabel = "N", defaultValue = "1000",
      description = "Round trips measured before each flood, and after the last (default: ${DEFAULT-VALUE}).")
  int rounds;

  @Option(names = "--repeat", paramLabel = "N", defaultValue = "5",
      description = "Floods, each after its quiet rounds, so that rounds with and without a flood share the "
          + "machine's load of the moment (default: ${DEFAULT-VALUE}).")
  int repeat;

  @Option(names = "--warmup", paramLabel = "N", defaultValue = "500",
      description = "Round trips not measured, first (default: ${DEFAULT-VALUE}).")
  int warmup;

  @Option(names = "--threading", paramLabel = "MODE",
      description = "verbs.threading of both nodes: dedicated, shared or invoker (default: the provider's, "
          + "dedicated, whose polls also run the fabric's I/O).")
  String threading;

  /** Round-trip times in nanoseconds. */
  static final class Samples {
    private long[] ns = new long[1024];
    private int n;

    void add(long v) {
      if (n == ns.length) {
        ns = Arrays.copyOf(ns, 2 * n);
      }
      ns[n++] = v;
    }

    void addAll(Samples o) {
      for (int i = 0; i < o.n; i++) {
        add(o.ns[i]);
      }
    }

    int count() {
      return n;
    }

    /** @return the nearest-rank percentile {@code p} (0 &lt; p &le; 100), ns; 0 if empty */
    long percentile(double p) {
      if (n == 0) {
        return 0;
      }
      long[] sorted = Arrays.copyOf(ns, n);
      Arrays.sort(sorted);
      return sorted[Math.max(0, (int) Math.ceil(p / 100 * n) - 1)];
    }
  }

  /** The figures of one run. */
  record Result(Samples before, Samples during, Samples after, long counted, long badVersion, long engineDrops,
      boolean connected, long floodMillis) {
    /** @return p99 during the flood over p99 without it (before and after together) */
    double ratio() {
      Samples quiet = new Samples();
      quiet.addAll(before);
      quiet.addAll(after);
      return (double) during.percentile(99) / Math.max(1, quiet.percentile(99));
    }

    /** @return whether every check held */
    boolean ok(long frames) {
      return connected && counted == frames && engineDrops == 0 && during.count() > 0;
    }
  }

  @Override
  public Integer call() throws Exception {
    if (flood < 1 || rounds < 1 || repeat < 1 || warmup < 0) {
      throw new ParameterException(spec.commandLine(), "--flood=" + flood + ", --rounds=" + rounds + " and --repeat="
          + repeat + " must be at least 1, --warmup=" + warmup + " at least 0");
    }
    Result r = run(flood, repeat, rounds, warmup, threading);
    report(spec.commandLine().getOut(), r, flood, repeat);
    return r.ok((long) flood * repeat) ? 0 : 1;
  }

  static void report(PrintWriter out, Result r, int flood, int repeat) {
    out.printf("flood: %d x %d malformed frames written into node B (%d ms each on average); counted on arrival %d "
        + "(malformed %d, bad_version %d); reached B's engine %d%n", repeat, flood, r.floodMillis() / repeat, r.counted(),
        r.counted() - r.badVersion(), r.badVersion(), r.engineDrops());
    out.printf("%-16s %8s %10s %10s %10s%n", "8 B round trip", "rounds", "p50 us", "p99 us", "max us");
    line(out, "before floods", r.before());
    line(out, "during floods", r.during());
    line(out, "after floods", r.after());
    out.printf("p99 during / p99 without: %.2f (target: within 3)%n", r.ratio());
    out.printf("connections: %s%n", r.connected() ? "all alive, QPs RTS" : "A CONNECTION DIED");
    out.flush();
  }

  private static void line(PrintWriter out, String name, Samples h) {
    out.printf("%-16s %8d %10.1f %10.1f %10.1f%n", name, h.count(), h.percentile(50) / 1000.0,
        h.percentile(99) / 1000.0, h.percentile(100) / 1000.0);
  }

  /**
   * The benchmark: a coordinator and two ib contexts over netty in this JVM, B's data listener on a
   * known TCP port; {@code repeat} times quiet rounds, then rounds for as long as B has not counted
   * the whole flood; quiet rounds again at the end.
   */
  static Result run(int flood, int repeat, int rounds, int warmup, String threading) throws Exception {
    JobSecret secret = JobSecret.generate();
    MeterRegistry registry = new SimpleMeterRegistry();
    int portB = freePort();
    try (Coordinator coord = Coordinator.start("127.0.0.1", 0, Duration.ofSeconds(30), secret)) {
      Map<String, String> base = new HashMap<>();
      base.put("verbs.provider", "ib");
      base.put("verbs.fabric", "netty");
      base.put("verbs.coordinator", "127.0.0.1:" + coord.port());
      base.put("verbs.size", "2");
      base.put("verbs.fabric.join-timeout-ms", "60000");
      if (threading != null) {
        base.put("verbs.threading", threading);
      }
      CompletableFuture<Context> fa = open(base, 0, null, registry);
      CompletableFuture<Context> fb = open(base, 1, portB, registry);
      try (Context a = fa.get(90, TimeUnit.SECONDS); Context b = fb.get(90, TimeUnit.SECONDS)) {
        return pingPong(a, b, secret, portB, flood, repeat, rounds, warmup, registry);
      }
    }
  }

  private static CompletableFuture<Context> open(Map<String, String> base, int rank, Integer dataPort,
      MeterRegistry registry) {
    Map<String, String> m = new HashMap<>(base);
    m.put("verbs.rank", Integer.toString(rank));
    if (dataPort != null) {
      m.put("verbs.fabric.port", dataPort.toString());
    }
    return CompletableFuture.supplyAsync(() -> Verbs.open(VerbsConfig.of(m), DeviceOptions.none().with(MeterRegistry.class,
        registry)), OwnThreads.INSTANCE);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static Result pingPong(Context a, Context b, JobSecret secret, int portB, int flood, int repeat, int rounds,
      int warmup, MeterRegistry registry) throws Exception {
    EnumSet<Access> all = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);
    try (ProtectionDomain pdA = a.allocPd(); ProtectionDomain pdB = b.allocPd();
        CompletionQueue cqA = a.createCq(64, null, 0); CompletionQueue cqB = b.createCq(64, null, 0);
        MemoryRegion ma = pdA.allocateMemory(64, all); MemoryRegion mb = pdB.allocateMemory(64, all)) {
      QpCap cap = QpCap.builder().maxSendWr(16).maxRecvWr(16).build();
      QueuePair qa = pdA.createQp(QpInitAttr.builder(QpType.RC).cq(cqA).cap(cap).build());
      QueuePair qb = pdB.createQp(QpInitAttr.builder(QpType.RC).cq(cqB).cap(cap).build());
      int lidA = a.queryPort(1).lid();
      int lidB = b.queryPort(1).lid();
      try {
        connect(qa, qb, lidB, all);
        connect(qb, qa, lidA, all);
        Rounds pp = new Rounds(qa, qb, cqA, cqB, ma, mb);
        for (int i = 0; i < warmup; i++) {
          pp.round();
        }
        Samples before = new Samples();
        Samples during = new Samples();
        long countedBefore = counted(registry);
        long floodMillis = 0;
        for (int f = 0; f < repeat; f++) {
          for (int i = 0; i < rounds; i++) {
            before.add(pp.round());
          }
          long target = counted(registry) + flood;
          AtomicBoolean writing = new AtomicBoolean(true);
          long t0 = System.nanoTime();
          long seed = 23 + f;
          CompletableFuture<Long> writer = CompletableFuture.supplyAsync(() -> {
            try {
              write(secret, portB, lidA, lidB, flood, seed);
              return (System.nanoTime() - t0) / 1_000_000;
            } catch (IOException e) {
              throw new java.io.UncheckedIOException(e);
            } finally {
              writing.set(false);
            }
          }, OwnThreads.INSTANCE);
          // During: until B has counted every frame (the socket holds what it has not read yet).
          long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
          while ((writing.get() || counted(registry) < target) && System.nanoTime() < deadline) {
            during.add(pp.round());
          }
          floodMillis += writer.get(60, TimeUnit.SECONDS);
        }
        Samples after = new Samples();
        for (int i = 0; i < rounds; i++) {
          after.add(pp.round());
        }
        long counted = counted(registry) - countedBefore;
        boolean connected = pp.errors == 0 && qa.state() == QpState.RTS && qb.state() == QpState.RTS;
        return new Result(before, during, after, counted, count(registry, "verbs4j.fabric.drops", "bad_version"),
            engineDrops(registry), connected, floodMillis);
      } finally {
        qa.close();
        qb.close();
      }
    }
  }

  /** Frames the fabric and the port counted as malformed or with a bad header version (both nodes). */
  private static long counted(MeterRegistry r) {
    return count(r, "verbs4j.fabric.drops", "malformed") + count(r, "verbs4j.fabric.drops", "bad_version");
  }

  /** Packets B's (and A's) engine dropped, for any reason: a flood frame that got through would be one. */
  private static long engineDrops(MeterRegistry r) {
    return count(r, "verbs4j.ib.drops", null) + count(r, "verbs4j.ib.crc.drops", null);
  }

  private static long count(MeterRegistry r, String name, String reason) {
    double n = 0;
    var search = r.find(name);
    if (reason != null) {
      search = search.tag("reason", reason);
    }
    for (FunctionCounter c : search.functionCounters()) {
      n += c.count();
    }
    for (io.micrometer.core.instrument.Counter c : search.counters()) {
      n += c.count();
    }
    return Math.round(n);
  }

  private static void connect(QueuePair q, QueuePair peer, int peerLid, EnumSet<Access> all) {
    q.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(all));
    q.modify(new QpAttr().qpState(QpState.RTR).ahAttr(AhAttr.lid(peerLid)).pathMtu(Mtu.MTU_1024)
        .destQpNum(peer.qpNum()).rqPsn(0).maxDestRdAtomic(1).minRnrTimer(12));
    // timeout 20 (~4.3 s): the machine may be loaded far beyond its cores.
    q.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0).timeout(20).retryCnt(7).rnrRetry(7).maxRdAtomic(1));
  }

  /** The ping-pong: A sends 8 bytes, B answers 8; one round trip timed in wall nanoseconds. */
  private static final class Rounds {
    final QueuePair qa;
    final QueuePair qb;
    final CompletionQueue cqA;
    final CompletionQueue cqB;
    final RecvWr recvA;
    final RecvWr recvB;
    final SendWr sendA;
    final SendWr sendB;
    final WorkCompletion[] wc = WorkCompletion.array(1);
    long errors;

    Rounds(QueuePair qa, QueuePair qb, CompletionQueue cqA, CompletionQueue cqB, MemoryRegion ma, MemoryRegion mb) {
      this.qa = qa;
      this.qb = qb;
      this.cqA = cqA;
      this.cqB = cqB;
      recvA = new RecvWr().wrId(1).sge(ma, 8, 8);
      recvB = new RecvWr().wrId(2).sge(mb, 0, 8);
      sendA = new SendWr().wrId(3).opcode(WrOpcode.SEND).signaled(true).sge(ma, 0, 8);
      sendB = new SendWr().wrId(4).opcode(WrOpcode.SEND).signaled(true).sge(mb, 0, 8);
    }

    long round() {
      long t0 = System.nanoTime();
      qb.postRecv(recvB);
      qa.postRecv(recvA);
      qa.postSend(sendA);
      await(cqB, 1); // B's receive
      qb.postSend(sendB);
      await(cqA, 2); // A's send and receive
      await(cqB, 1); // B's send
      return System.nanoTime() - t0;
    }

    private void await(CompletionQueue cq, int n) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      for (int got = 0; got < n; ) {
        if (cq.poll(wc) == 1) {
          got++;
          if (wc[0].status() != WcStatus.SUCCESS) {
            errors++;
          }
        } else if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException("no completion within 60 s: a connection died");
        } else {
          Thread.onSpinWait();
        }
      }
    }
  }

  /**
   * A member of the job (it holds the secret) opens a data connection of its own to B, proves the
   * secret as node A, and writes the frames in 64 KB batches.
   */
  private static void write(JobSecret secret, int portB, int lidA, int lidB, int flood, long seed) throws IOException {
    try (SocketChannel c = SocketChannel.open(new InetSocketAddress("127.0.0.1", portB))) {
      Handshake h = Handshake.client(secret, Handshake.Kind.DATA, lidA, lidB);
      c.write(ByteBuffer.wrap(h.hello()));
      ByteBuffer challenge = ByteBuffer.allocate(Handshake.CHALLENGE_LENGTH);
      while (challenge.hasRemaining()) {
        if (c.read(challenge) < 0) {
          throw new IOException("node " + lidB + " closed the connection during the handshake");
        }
      }
      c.write(ByteBuffer.wrap(h.answer(challenge.array())));
      MalformedFrames frames = new MalformedFrames(lidA, lidB, 0x123, seed);
      ByteBuf batch = Unpooled.buffer(1 << 16);
      for (int i = 0; i < flood; i++) {
        frames.write(i, batch);
        if (batch.readableBytes() > 60_000 || i == flood - 1) {
          ByteBuffer nio = batch.nioBuffer();
          while (nio.hasRemaining()) {
            c.write(nio);
          }
          batch.clear();
        }
      }
    }
  }
}
