package io.github.verbs4j.examples.memmodel;

import io.github.verbs4j.examples.common.DurationConverter;
import io.github.verbs4j.examples.mp.ConnectionOptions;
import io.github.verbs4j.examples.mp.HybridStats;
import io.github.verbs4j.examples.mp.LinkStats;
import io.github.verbs4j.examples.mp.MpConfig;
import io.github.verbs4j.examples.mp.MpException;
import io.github.verbs4j.examples.mp.MpFootprint;
import io.github.verbs4j.examples.mp.Request;
import io.github.verbs4j.examples.mp.VerbsCommunicator;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.DeviceOptions;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.config.VerbsConfig;
import io.github.verbs4j.verbs.spi.MemoryAccount;
import io.github.verbs4j.verbs.spi.MemoryComponent;
import io.github.verbs4j.verbs.spi.runtime.HostShare;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code verbs4j mp-memory}: runs N ranks of the message-passing layer as threads of this JVM on
 * the local fabric with one connection strategy and one workload, reads every rank's {@code
 * verbs4j.memory.bytes{component}} meters after the workload (before the communicator closes, once
 * closed links have been destroyed), and
 * prints them per component next to {@link MpFootprint}'s prediction for the same n. Started by
 * {@code verbs4j run -n N mp-memory ...} instead, each process is one rank on the job's fabric
 * (netty) and rank 0 prints the same table, the ranks' meters combined by allreduce.
 */
@Command(name = "mp-memory", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Per-rank memory of the message-passing layer, measured from the verbs4j.memory.bytes meters of "
        + "N in-JVM ranks (local fabric) after a workload, next to the prediction for the same n. Under "
        + "'verbs4j run -n N' each process is one rank (netty fabric) and rank 0 prints the table.",
        "Rings default to the seed-003 baseline: 16 slots of 4 KiB per peer."})
public final class MpMemoryCommand implements Callable<Integer> {
  /** Workloads. */
  enum Pattern {
    /** Every rank sends to and receives from every other (n - 1 shifts). */
    ALL_TO_ALL,
    /** Every rank exchanges with its two ring neighbours. */
    NEIGHBOUR
  }

  @Spec
  CommandSpec spec;

  @Option(names = "--ranks", paramLabel = "N", defaultValue = "16", description = "Ranks in this JVM (default: ${DEFAULT-VALUE}); under verbs4j run, the job's size.")
  int ranks;

  @Option(names = "--provider", paramLabel = "NAME", defaultValue = "ib",
      description = "verbs provider: ib or tca (default: ${DEFAULT-VALUE}).")
  String provider;

  @Option(names = "--pattern", paramLabel = "P", defaultValue = "ALL_TO_ALL",
      description = "Workload: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  Pattern pattern;

  @Option(names = "--rounds", paramLabel = "R", defaultValue = "1", description = "Rounds (default: ${DEFAULT-VALUE}).")
  int rounds;

  @Option(names = "--size", paramLabel = "BYTES", defaultValue = "1024",
      description = "Message size (default: ${DEFAULT-VALUE}).")
  int size;

  @Option(names = "--slots", paramLabel = "N", defaultValue = "16",
      description = "Eager slots per link and direction (default: ${DEFAULT-VALUE}).")
  int slots;

  @Option(names = "--eager-limit", paramLabel = "BYTES", defaultValue = "4056",
      description = "Eager limit; a slot is this + a 40-byte header, rounded to 64 (default: ${DEFAULT-VALUE}: "
          + "4 KiB slots).")
  int eagerLimit;

  @Option(names = "--time", paramLabel = "CLOCK", defaultValue = "wall",
      description = "verbs.time: wall or modelled (default: ${DEFAULT-VALUE}).")
  String time;

  @Option(names = "--threading", paramLabel = "MODE", defaultValue = "dedicated",
      description = "verbs.threading of the ranks' devices: dedicated (an engine thread per rank), shared (one "
          + "engine thread for all ranks: use it for hundreds of ranks) or invoker (default: ${DEFAULT-VALUE}).")
  String threading;

  @Option(names = "--kvs", paramLabel = "PLACEMENT",
      description = "verbs.fabric.kvs of the job: root (the coordinator holds every key-value pair) or hashed (each "
          + "pair at the rank its key hashes to, seed 003 §3.7; default: the job's setting, else root).")
  String kvs;

  @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "10m", converter = DurationConverter.class,
      description = "Longest wait for one message before the run fails with every rank's counters, e.g. 60s "
          + "(default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Mixin
  ConnectionOptions connections = new ConnectionOptions();

  @Option(names = "--sweep", paramLabel = "N,N,...", split = ",",
      description = "Instead of one run: run each of --strategies at each of these rank counts (ascending, at least "
          + "two), one after another in this JVM, and print measured against predicted per run, the growth exponent "
          + "fitted from the measured points, and a log-log chart (--chart). --connections is then ignored; "
          + "--gamma and --shared-receive (default 256) apply.")
  List<Integer> sweep;

  @Option(names = "--strategies", paramLabel = "S,S,...", split = ",",
      defaultValue = "BASELINE,ON_DEMAND,ON_DEMAND_SHARED,DC",
      description = "With --sweep: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  List<MpSweep.Kind> strategies;

  @Option(names = "--chart", paramLabel = "FILE.png", defaultValue = "mp-memory.png",
      description = "With --sweep: the chart to write (default: ${DEFAULT-VALUE}).")
  Path chart;

  /**
   * One rank's meters and links ({@code rings}: the hybrid's rings given for RDMA over DC) and its
   * share of the job's key-value store.
   */
  private record RankResult(Map<MemoryComponent, Long> bytes, LinkStats links, int rings, long elapsedNanos,
      KvsUsage kvs) {
    /** @return the model at the links (and rings) this rank held */
    Map<MemoryComponent, Long> atLinks(int n, int peers, MpConfig mp) {
      return mp.strategy().switches() ? MpFootprint.predictHybrid(n, peers, mp, links.open(), rings)
          : MpFootprint.predict(n, peers, mp, links.open(), links.spares());
    }
  }

  @Override
  public Integer call() throws Exception {
    if (ranks < 2 || ranks > 4096) {
      throw new ParameterException(spec.commandLine(), "--ranks=" + ranks + " must be between 2 and 4096");
    }
    if (rounds < 1 || size < 0) {
      throw new ParameterException(spec.commandLine(), "--rounds=" + rounds + " must be at least 1 and --size="
          + size + " at least 0");
    }
    MpConfig mp;
    try {
      mp = connections.apply(MpConfig.defaults().withSlots(slots).withEagerLimit(eagerLimit)
          .withTimeout(timeout));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    VerbsConfig env = VerbsConfig.load();
    if (env.getLong(VerbsConfig.SIZE) > 0) {
      if (sweep != null) {
        throw new ParameterException(spec.commandLine(), "--sweep runs its ranks in this JVM; under verbs4j run "
            + "(verbs.size=" + env.getLong(VerbsConfig.SIZE) + ") every process is one rank: leave --sweep out");
      }
      return jobRank(mp, env);
    }
    if (sweep != null) {
      return sweep(mp);
    }
    long wall0 = System.nanoTime();
    List<RankResult> results = runRanks(mp, ranks);
    long wall = System.nanoTime() - wall0;
    Runtime rt = Runtime.getRuntime();
    long heap = rt.totalMemory() - rt.freeMemory();
    int peers = peers(ranks);
    MpMemoryTotals totals = new MpMemoryTotals();
    for (RankResult r : results) {
      totals.add(r.bytes(), r.atLinks(ranks, peers, mp), r.links(), r.rings(), r.elapsedNanos(), heap)
          .kvs(r.kvs());
    }
    print(spec.commandLine().getOut(), mp, totals, MpFootprint.predict(ranks, peers, mp), "local fabric", wall,
        "JVM heap in use after it");
    return 0;
  }

  /**
   * This process is one rank of a job started by {@code verbs4j run -n N mp-memory ...} (the
   * launcher sets {@code verbs.rank} and {@code verbs.size}): runs the workload with the job's
   * fabric, combines every rank's meters by allreduce and prints the table on rank 0.
   */
  private Integer jobRank(MpConfig mp, VerbsConfig env) {
    int size = (int) env.getLong(VerbsConfig.SIZE);
    if (size < 2) {
      throw new ParameterException(spec.commandLine(), "verbs.size=" + size + ": mp-memory needs at least 2 ranks");
    }
    if (spec.commandLine().getParseResult().hasMatchedOption("--ranks") && ranks != size) {
      throw new ParameterException(spec.commandLine(), "--ranks=" + ranks + " differs from the job's size "
          + size + " (verbs.size): in a job started by verbs4j run every process is one rank");
    }
    // options given override the job's settings (verbs4j run --provider, -Dverbs.time=...); defaults do not
    VerbsConfig cfg = env;
    if (spec.commandLine().getParseResult().hasMatchedOption("--provider")) {
      cfg = cfg.with(VerbsConfig.PROVIDER.name(), provider);
    }
    if (spec.commandLine().getParseResult().hasMatchedOption("--time")) {
      cfg = cfg.with(VerbsConfig.TIME.name(), time);
    }
    if (spec.commandLine().getParseResult().hasMatchedOption("--threading")) {
      cfg = cfg.with(VerbsConfig.THREADING.name(), threading);
    }
    if (kvs != null) {
      cfg = cfg.with("verbs.fabric.kvs", kvs);
    }
    ranks = size;
    time = cfg.get(VerbsConfig.TIME);
    steps = new AtomicIntegerArray(size);
    long wall0 = System.nanoTime();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (Context ctx = Verbs.open(cfg, DeviceOptions.none().with(MeterRegistry.class, registry))) {
      HostShare host = new HostShare(size, Runtime.getRuntime().availableProcessors());
      try (VerbsCommunicator comm = VerbsCommunicator.open(ctx, mp, host)) {
        RankResult r;
        try {
          r = measure(ctx, comm, registry);
        } catch (MpException e) {
          reportStall(comm, e); // this rank's side only: the peer is another process
          throw e;
        }
        Runtime rt = Runtime.getRuntime();
        int peers = peers(size);
        MpMemoryTotals totals = new MpMemoryTotals().add(r.bytes(), r.atLinks(size, peers, mp), r.links(),
            r.rings(), r.elapsedNanos(), rt.totalMemory() - rt.freeMemory()).kvs(r.kvs());
        totals.allreduce(comm);
        if (comm.rank() == 0) {
          provider = ctx.device().provider();
          print(spec.commandLine().getOut(), mp, totals, MpFootprint.predict(size, peers, mp),
              cfg.get(VerbsConfig.FABRIC) + " fabric, one process per rank", System.nanoTime() - wall0,
              "most JVM heap in use after it in one process");
        }
      }
    }
    return 0;
  }

  private int peers(int n) {
    return pattern == Pattern.ALL_TO_ALL ? n - 1 : neighbourPeers(n);
  }

  private Integer sweep(MpConfig base) throws Exception {
    for (int i = 0; i < sweep.size(); i++) {
      int n = sweep.get(i);
      if (n < 2 || n > 4096 || i > 0 && n <= sweep.get(i - 1)) {
        throw new ParameterException(spec.commandLine(), "--sweep=" + sweep
            + " must list rank counts between 2 and 4096 in ascending order");
      }
    }
    if (sweep.size() < 2 || strategies.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "--sweep=" + sweep + " needs at least two rank counts and "
          + "--strategies at least one strategy");
    }
    if (!chart.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".png")) {
      throw new ParameterException(spec.commandLine(), "--chart=" + chart + " must name a .png file");
    }
    int pool = base.sharedReceive() > 0 ? base.sharedReceive() : MpConfig.DEFAULT_DC_POOL;
    PrintWriter out = spec.commandLine().getOut();
    out.printf(Locale.ROOT, "mp-memory sweep: %s, %d round(s) of %d B, ib local fabric in one JVM, %s time, "
        + "%d slots x %d B per direction per link%n", pattern.name().toLowerCase(Locale.ROOT).replace('_', '-'),
        rounds, size, time, base.slots(), (40 + base.eagerLimit() + 63) / 64 * 64);
    out.flush();
    List<MpSweep.Point> points = new ArrayList<>();
    for (MpSweep.Kind k : MpSweep.Kind.values()) {
      if (!strategies.contains(k)) {
        continue;
      }
      MpConfig mp = k.config(base, pool);
      for (int n : sweep) {
        System.gc(); // the previous run's rings are direct buffers, freed when collected
        long wall0 = System.nanoTime();
        List<RankResult> results = runRanks(mp, n);
        long wall = System.nanoTime() - wall0;
        long measured = 0;
        long links = 0;
        long elapsed = 0;
        long atLinks = 0;
        for (RankResult r : results) {
          measured += r.bytes().values().stream().mapToLong(Long::longValue).sum();
          links += r.links().open();
          elapsed = Math.max(elapsed, r.elapsedNanos());
          atLinks += r.atLinks(n, peers(n), mp).values().stream()
              .mapToLong(Long::longValue).sum();
        }
        long predicted = MpFootprint.predict(n, peers(n), mp).values().stream().mapToLong(Long::longValue).sum();
        MpSweep.Point p = new MpSweep.Point(k, k.label(mp), n, measured / n, predicted, atLinks / n, (double) links / n, elapsed,
            wall);
        points.add(p);
        out.printf(Locale.ROOT, "  %s at %d ranks: %,d B/rank measured, %,d predicted (%.0f ms)%n", p.label(), n,
            p.measured(), p.predicted(), wall / 1e6);
        out.flush();
      }
    }
    out.println();
    MpSweep.print(out, points);
    MpSweep.render(points, String.format(Locale.ROOT, "Message-passing layer: bytes per rank, %s, %d B messages "
        + "(measured: points; MpFootprint: dashed)", pattern.name().toLowerCase(Locale.ROOT).replace('_', '-'), size),
        chart);
    out.println("Chart written to " + chart);
    out.flush();
    return 0;
  }

  /** @return rank 0's partners in the ring exchange and in the dissemination barriers (r ± 2^k) */
  static int neighbourPeers(int n) {
    java.util.Set<Integer> s = new java.util.HashSet<>();
    for (int k = 1; k < n; k <<= 1) {
      s.add(k % n);
      s.add((n - k) % n);
    }
    s.remove(0);
    return s.size();
  }

  private List<RankResult> runRanks(MpConfig mp, int ranks) throws Exception {
    String fabric = "mp-memory-" + UUID.randomUUID();
    ExecutorService pool = Executors.newFixedThreadPool(ranks);
    List<Context> contexts = Collections.synchronizedList(new ArrayList<>());
    List<MeterRegistry> registries = Collections.synchronizedList(new ArrayList<>());
    steps = new AtomicIntegerArray(ranks);
    comms = new AtomicReferenceArray<>(ranks);
    Exception failure = null;
    List<RankResult> out = new ArrayList<>(Collections.nCopies(ranks, null));
    try {
      // results in the order ranks finish: a rank that fails while others wait for it is reported at once
      CompletionService<Map.Entry<Integer, RankResult>> done = new ExecutorCompletionService<>(pool);
      for (int r = 0; r < ranks; r++) {
        VerbsConfig cfg = VerbsConfig.of(Map.of("verbs.provider", provider, "verbs.fabric", "local",
            "verbs.fabric.name", fabric, "verbs.rank", Integer.toString(r), "verbs.size", Integer.toString(ranks),
            "verbs.time", time, "verbs.threading", threading, "verbs.fabric.kvs", kvs == null ? "root" : kvs));
        done.submit(() -> {
          SimpleMeterRegistry registry = new SimpleMeterRegistry();
          registries.add(registry);
          Context ctx = Verbs.open(cfg, DeviceOptions.none().with(MeterRegistry.class, registry));
          contexts.add(ctx);
          return Map.entry(ctx.job().rank(), rank(ctx, mp, registry));
        });
      }
      long deadline = System.nanoTime() + RUN_LIMIT.toNanos();
      for (int finished = 0; finished < ranks; finished++) {
        Future<Map.Entry<Integer, RankResult>> f = done.poll(Math.max(0, deadline - System.nanoTime()),
            TimeUnit.NANOSECONDS);
        if (f == null) {
          throw new TimeoutException((ranks - finished) + " of " + ranks + " ranks did not finish within " + RUN_LIMIT);
        }
        Map.Entry<Integer, RankResult> e = f.get();
        out.set(e.getKey(), e.getValue());
      }
    } catch (ExecutionException e) {
      failure = e.getCause() instanceof Exception ex ? ex : e;
    } catch (Exception e) {
      failure = e;
    }
    if (failure != null) {
      printCounters(registries);
    }
    pool.shutdownNow();
    // after a failure other ranks may still open or use their contexts: let them stop first
    pool.awaitTermination(30, TimeUnit.SECONDS);
    List<Context> opened;
    synchronized (contexts) {
      opened = new ArrayList<>(contexts);
    }
    for (Context c : opened) { // one after another, as the local transport needs
      try {
        c.close();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e); // a failed rank's context may still hold objects: its failure is the one to report
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
    return out;
  }

  /** How long the ranks of one run may take together. */
  private static final Duration RUN_LIMIT = Duration.ofMinutes(30);

  private static final Set<String> COUNTED_TAGS = Set.of("kind", "direction", "reason");

  /** After a failure: the devices' counters summed over the ranks, to say what the transport saw. */
  private void printCounters(List<MeterRegistry> registries) {
    SortedMap<String, Double> sums = new TreeMap<>();
    synchronized (registries) {
      for (MeterRegistry reg : registries) {
        for (Meter m : reg.getMeters()) {
          String name = m.getId().getName();
          if (name.contains(".memory.") || name.contains(".link.")) {
            continue; // gauges of objects and per-link figures: not events
          }
          // summed over devices, ports and fabrics: only the tags that say what was counted stay
          String key = name + m.getId().getTags().stream().filter(t -> COUNTED_TAGS.contains(t.getKey()))
              .map(t -> "," + t.getKey() + "=" + t.getValue()).reduce("", String::concat);
          for (Measurement x : m.measure()) {
            sums.merge(key, x.getValue(), Double::sum);
          }
        }
      }
    }
    PrintWriter err = spec.commandLine().getErr();
    int lo = Integer.MAX_VALUE;
    int hi = 0;
    for (int i = 0; i < steps.length(); i++) {
      lo = Math.min(lo, steps.get(i));
      hi = Math.max(hi, steps.get(i));
    }
    err.println("mp-memory: workload steps reached by the ranks: " + lo + " .. " + hi);
    err.println("mp-memory: the devices' counters summed over " + registries.size() + " ranks at the failure:");
    sums.forEach((k, v) -> {
      if (v != 0) {
        err.printf(Locale.ROOT, "  %s %,.0f%n", k, v);
      }
    });
    err.flush();
  }

  /** Each rank's step of the workload (for the report of a failure). */
  private AtomicIntegerArray steps;

  private RankResult rank(Context ctx, MpConfig mp, MeterRegistry registry) {
    HostShare host = new HostShare(ctx.job().size(), Runtime.getRuntime().availableProcessors());
    try (VerbsCommunicator comm = VerbsCommunicator.open(ctx, mp, host)) {
      int me = comm.rank();
      if (me < comms.length()) {
        comms.set(me, comm);
      }
      try {
        return measure(ctx, comm, registry);
      } catch (MpException e) {
        reportStall(comm, e);
        throw e;
      } finally {
        if (me < comms.length()) {
          comms.set(me, null);
        }
      }
    }
  }

  /** The ranks' communicators while they run (in this JVM), for {@link #reportStall}. */
  private AtomicReferenceArray<VerbsCommunicator> comms = new AtomicReferenceArray<>(0);
  private final AtomicBoolean stallReported = new AtomicBoolean();

  /**
   * After the first failure of a rank: the on-demand handshake states of that rank and, when a wait
   * timed out, of the peer it waited for (read from the peer's thread's objects while it waits: a
   * snapshot, not atomic).
   */
  private void reportStall(VerbsCommunicator comm, MpException e) {
    String states = comm.connectionStates(e.peer());
    if (states.isEmpty() || !stallReported.compareAndSet(false, true)) {
      return;
    }
    PrintWriter err = spec.commandLine().getErr();
    err.println("mp-memory: rank " + comm.rank() + " failed: " + e.getMessage().lines().findFirst().orElse(""));
    err.println("mp-memory: rank " + comm.rank() + "'s connections: " + states);
    int peer = e.peer();
    VerbsCommunicator other = peer >= 0 && peer < comms.length() ? comms.get(peer) : null;
    if (other != null) {
      try {
        err.println("mp-memory: rank " + peer + "'s connections (the peer it waited for): "
            + other.connectionStates(comm.rank()));
      } catch (RuntimeException x) { // the peer's thread changed them while they were read
        err.println("mp-memory: rank " + peer + "'s connections could not be read: " + x);
      }
    }
    err.flush();
  }

  /**
   * Runs the workload on {@code comm} and reads this rank's meters once closed links are gone, and
   * its share of the job's key-value store (rank 0 also the coordinator's).
   */
  private RankResult measure(Context ctx, VerbsCommunicator comm, MeterRegistry registry) {
    int me = comm.rank();
    int n = comm.size();
    ByteBuffer out = ByteBuffer.allocate(size);
    ByteBuffer in = ByteBuffer.allocate(size);
    comm.barrier();
    long t0 = comm.nowNanos();
    for (int round = 0; round < rounds; round++) {
      if (pattern == Pattern.ALL_TO_ALL) {
        for (int k = 1; k < n; k++) {
          steps.set(me, k);
          exchange(comm, out, in, (me + k) % n, (me - k + n) % n, k);
        }
      } else {
        exchange(comm, out, in, (me + 1) % n, (me - 1 + n) % n, 1);
        if (n > 2) {
          exchange(comm, out, in, (me - 1 + n) % n, (me + 1) % n, 2);
        }
      }
    }
    comm.barrier();
    long elapsed = comm.nowNanos() - t0;
    comm.releaseClosedLinks(Duration.ofSeconds(10));
    Map<MemoryComponent, Long> bytes = new EnumMap<>(MemoryComponent.class);
    for (MemoryComponent c : MemoryComponent.values()) {
      Gauge g = registry.find(MemoryAccount.METER).tag("component", c.tag()).gauge();
      bytes.put(c, g == null ? 0L : (long) g.value());
    }
    HybridStats hs = comm.hybridStats();
    return new RankResult(bytes, comm.linkStats(), hs == null ? 0 : hs.ringsGiven(), elapsed,
        KvsUsage.of(ctx, me == 0));
  }

  private static void exchange(VerbsCommunicator comm, ByteBuffer out, ByteBuffer in, int to, int from, int tag) {
    Request r = comm.irecv(in, from, tag);
    Request s = comm.isend(out, to, tag);
    comm.waitAll(r, s);
  }

  private void print(PrintWriter out, MpConfig mp, MpMemoryTotals t, Map<MemoryComponent, Long> predicted,
      String where, long wallNanos, String heapLabel) {
    out.printf(Locale.ROOT, "mp-memory: %d ranks on %s (%s, %s time), %s%s, %s, %d round(s) of %d B%n",
        ranks, provider, where, time, mp.strategy().name().toLowerCase(Locale.ROOT),
        mp.strategy() == MpConfig.Strategy.ON_DEMAND ? " gamma " + mp.gamma()
            : mp.strategy() == MpConfig.Strategy.DC ? " (" + mp.dcInitiators() + " DCIs)"
            : mp.strategy().switches() ? " (" + mp.dcInitiators() + " DCIs, RC after "
                + mp.hybrid().threshold() + " messages from a source, at most " + mp.hybrid().rcLinks() + " RC links"
                + (mp.strategy() == MpConfig.Strategy.SHARED ? " per node of " + mp.hybrid().ppn() + " ranks" : "")
                + ")"
            : "",
        pattern.name().toLowerCase(Locale.ROOT).replace('_', '-'), rounds, size);
    out.printf(Locale.ROOT, "rings: %d slots x %d B per direction per link%n", mp.slots(),
        (40 + mp.eagerLimit() + 63) / 64 * 64);
    out.printf(Locale.ROOT, "%-12s %14s %14s %14s %14s %7s %14s %7s%n", "component", "mean/rank", "min", "max",
        "predicted", "ratio", "at links held", "ratio");
    long totalMean = 0;
    long totalPredicted = 0;
    long totalAtLinks = 0;
    for (MemoryComponent c : MemoryComponent.values()) {
      long mean = t.mean(c);
      long p = predicted.getOrDefault(c, 0L);
      long q = t.meanAtLinks(c);
      if (t.max(c) == 0 && p == 0) {
        continue;
      }
      totalMean += mean;
      totalPredicted += p;
      totalAtLinks += q;
      out.printf(Locale.ROOT, "%-12s %,14d %,14d %,14d %,14d %7s %,14d %7s%n", c.tag(), mean, t.min(c), t.max(c), p,
          ratio(mean, p), q, ratio(mean, q));
    }
    out.printf(Locale.ROOT, "%-12s %,14d %14s %14s %,14d %7s %,14d %7s%n", "total", totalMean, "", "", totalPredicted,
        ratio(totalMean, totalPredicted), totalAtLinks, ratio(totalMean, totalAtLinks));
    out.println("(predicted: links = every other rank, or min(peers, gamma) on demand with up to gamma/4 spare rings "
        + "of closed links, or min(peers, rc-links) RC links and a ring for RDMA over DC for every other peer for the "
        + "hybrid; at links held: the same model at each rank's open links (and spares or rings) when measured)");
    out.printf(Locale.ROOT, "%s per rank after the workload: %.1f (most at once on a rank: %d); opened %d, "
        + "closings begun %d (all ranks)%n", mp.strategy().switches() ? "RC links" : "links",
        t.meanOpen(), t.peak(), t.opened(), t.evictions());
    if (mp.strategy().switches()) {
      out.printf(Locale.ROOT, "rings given for RDMA over DC per rank: %.1f%n", t.meanRings());
    }
    if (mp.strategy() == MpConfig.Strategy.SHARED && ranks % mp.hybrid().ppn() == 0) {
      out.printf(Locale.ROOT, "per node of %d ranks (its first rank holds the node's file of rings): measured %,d B, "
          + "predicted %,d B%n", mp.hybrid().ppn(), totalMean * mp.hybrid().ppn(), totalPredicted * mp.hybrid().ppn());
    }
    if (mp.strategy() == MpConfig.Strategy.ON_DEMAND) {
      out.printf(Locale.ROOT, "spare rings per rank: %.1f; rings registered over the run: %d (all ranks; the "
          + "other openings reused a spare)%n", t.meanSpares(), t.ringsAllocated());
    }
    if (t.kvsRanks() > 0) {
      out.printf(Locale.ROOT, "job key-value store (verbs.fabric.kvs=%s): the coordinator holds %,d pairs, %,d B; "
          + "the ranks %,d pairs, %,d B per rank on the mean, %,d B at most (a pair: key + value + 8 B)%n",
          kvs == null ? "root" : kvs, t.coordinatorPairs(), t.coordinatorBytes(), t.kvsPairs(),
          t.kvsBytes() / t.kvsRanks(), t.kvsMax());
    }
    out.printf(Locale.ROOT, "workload time (slowest rank, %s clock): %.3f ms; wall for the whole run: %.0f ms; "
        + "%s: %,d B%n", time, t.elapsedNanos() / 1e6, wallNanos / 1e6, heapLabel, t.heap());
    out.flush();
  }

  private static String ratio(long measured, long predicted) {
    return predicted == 0 ? "-" : String.format(Locale.ROOT, "%.3f", (double) measured / predicted);
  }
}
