package io.github.verbs4j.examples.srqfc;

import io.github.verbs4j.examples.srqfc.NpbTrace.Op;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.local.LocalFabric;
import io.github.verbs4j.fabric.local.LocalNode;
import io.github.verbs4j.fabric.time.NodeClock;
import io.github.verbs4j.verbs.AsyncEvent;
import io.github.verbs4j.verbs.AsyncEventType;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.DeviceOptions;
import io.github.verbs4j.verbs.PortCounter;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.config.VerbsConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Replays an NPB trace ({@link NpbTrace}) on P ib contexts of one <b>deterministic</b> in-JVM
 * fabric ({@code verbs.fabric.mode=deterministic}, modelled time, invoker threading): every
 * packet, ACK, stop, resend, RNR NAK and device timer is an event of one single-threaded loop in
 * modelled-time order, and the processes' own work (computation, the MVAPICH refill thread) is
 * placed between those events by this driver.
 *
 * <p>MPI layer: {@link NpbMpi} (shared with the one-process-per-rank driver, {@link NpbProcess}). A
 * process takes its completions only inside MPI calls; while it computes, arriving messages hold
 * their receives.
 *
 * <ul>
 *   <li>{@link Mechanism#STOP_RESEND}: {@code verbs.ib.srq-flow-control=stop-resend}; the device
 *       stops a sender that finds the SRQ empty and polls the SRQ every t_poll; receives come back
 *       when the process next calls MPI. No interrupt, no thread.
 *   <li>{@link Mechanism#RNR}: {@code rnr} mode with MVAPICH's refill thread: the SRQ limit is armed
 *       at eq. (1) of the paper — the receives that arrive in t_int + t_setev at the link's
 *       bandwidth, at most depth - 1 — and SRQ_LIMIT_REACHED wakes the thread after t_int; it takes
 *       every completion off the CQ (into the MPI layer's unexpected queue), reposts those
 *       receives, re-arms the limit and is done t_setev later. A sender that finds the SRQ empty
 *       is RNR NAKed and retries after min_rnr_timer (code 1, 10 µs; rnr_retry 7, unlimited).
 * </ul>
 *
 * <p>The driver advances the fabric in slices of {@link #SLICE_NANOS} of modelled time and lets a
 * waiting process look at its CQ after each slice in which its node did something: the MPI
 * progress loop's resolution. Processes whose computation ends inside a slice are woken at that
 * exact time; with nothing in flight the driver goes straight to the next such time.
 */
final class NpbReplay {
  /** How an SRQ that runs dry is handled. */
  enum Mechanism { RNR, STOP_RESEND }

  /** Modelled time between two looks of a waiting process at its CQ. */
  static final long SLICE_NANOS = 50;
  /** Bytes per receive (seed 002 §4.2.1: a fixed 32 KB buffer per message). */
  static final int BUFFER = 32 * 1024;
  /** Receives backed by memory of their own; further ones share it (nothing reads the data). */
  static final int MEMORY_SLOTS = 64;
  /** min_rnr_timer code 1: 0.01 ms (IBA table 45), the shortest non-zero RNR wait. */
  static final int MIN_RNR_TIMER = 1;
  /**
   * The link's data rate for the limit of eq. (1), bytes per microsecond: the ib model's default
   * link (12,500 MB/s, docs/modelled-time.md).
   */
  static final long LINK_BYTES_PER_US = 12_500;

  /**
   * One run's settings.
   *
   * @param bench BT or SP
   * @param procs P
   * @param steps time steps replayed
   * @param depth SRQ receives per process
   * @param mechanism flow control
   * @param gflops each process's sustained rate
   * @param tPollNanos the device's SRQ poll interval (stop-resend)
   * @param tIntNanos interrupt to refill thread (rnr)
   * @param tSetevNanos re-arming the limit (rnr)
   */
  record Setup(NpbBench bench, int procs, int steps, int depth, Mechanism mechanism, double gflops, long tPollNanos,
      long tIntNanos, long tSetevNanos) {}

  /**
   * What a run measured.
   *
   * @param runNanos modelled time from the start to the last process's last operation
   * @param stops stop requests sent (stop-resend)
   * @param rnrNaks RNR NAKs sent
   * @param limitEvents SRQ_LIMIT_REACHED events taken by refill threads
   * @param pieces SENDs (32-KiB pieces) in the run
   * @param wallNanos wall time of the replay (without opening the contexts)
   * @param heapBytes heap in use with every context open, after a GC
   * @param residentBytes the JVM's resident set then (Linux {@code VmRSS}; -1 elsewhere)
   */
  record Result(long runNanos, long stops, long rnrNaks, long limitEvents, long pieces, long wallNanos, long heapBytes,
      long residentBytes) {}

  /** @return the process's resident set size from /proc/self/status, or -1 */
  static long residentBytes() {
    try {
      for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (java.io.IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  private NpbReplay() {}

  /**
   * @param s the settings
   * @return the measurements
   */
  static Result run(Setup s) throws Exception {
    if (s.depth() < 1) {
      throw new IllegalArgumentException("depth=" + s.depth() + " must be at least 1");
    }
    if (s.steps() < 1) {
      throw new IllegalArgumentException("steps=" + s.steps() + " must be at least 1");
    }
    NpbTrace.cells(s.procs());
    String job = "npb-" + UUID.randomUUID();
    List<Rank> ranks = new ArrayList<>();
    try {
      for (int r = 0; r < s.procs(); r++) {
        ranks.add(new Rank(s, r, NpbTrace.step(s.bench(), s.procs(), r, s.gflops()), job));
      }
      for (Rank r : ranks) {
        r.mpi.createQps();
      }
      for (Rank r : ranks) {
        r.connect(ranks);
      }
      LocalFabric fabric = ((LocalNode) fabricNode(ranks.get(0).ctx)).fabric();
      fabric.runUntilIdle();
      System.gc();
      long heap = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
      long rss = residentBytes();
      long wall = System.nanoTime();
      long start = 0;
      for (Rank r : ranks) {
        start = Math.max(start, r.ctx.nowNanos());
      }
      long end = drive(s, ranks, fabric, start);
      wall = System.nanoTime() - wall;
      long stops = 0;
      long naks = 0;
      long limits = 0;
      long pieces = 0;
      for (Rank r : ranks) {
        stops += (long) r.mpi.stopsSent();
        naks += r.ctx.queryPortCounters(1).get(PortCounter.SEND_RNR_ERR);
        limits += r.limitEvents;
        pieces += r.mpi.pieces;
      }
      return new Result(end - start, stops, naks, limits, pieces, wall, heap, rss);
    } finally {
      for (Rank r : ranks) {
        r.close();
      }
    }
  }

  /** Runs the processes and the fabric together; returns the modelled time the last one ended. */
  private static long drive(Setup s, List<Rank> ranks, LocalFabric fabric, long start) {
    long now = start;
    for (Rank r : ranks) {
      r.progress(now);
    }
    int done = 0;
    long quietSince = now;
    while (done < ranks.size()) {
      long timed = Long.MAX_VALUE;
      for (Rank r : ranks) {
        timed = Math.min(timed, r.nextTimed());
      }
      // nothing in flight: no process can see anything before the next timed step
      long next = fabric.pending() == 0 && timed != Long.MAX_VALUE ? Math.max(now, timed) : Math.min(now + SLICE_NANOS, timed);
      boolean events = fabric.runUntil(next) > 0;
      now = next;
      done = 0;
      boolean moved = events;
      for (Rank r : ranks) {
        moved |= r.turn(now);
        done += r.finished ? 1 : 0;
      }
      if (!moved && fabric.pending() > 0) {
        // a quiet slice: go straight to the loop's next event (a timer further out), but not past
        // the next timed step of a process, for which a marker event is put on the loop
        now = jump(ranks, fabric, now);
        done = 0;
        for (Rank r : ranks) {
          moved |= r.turn(now);
          done += r.finished ? 1 : 0;
        }
      }
      if (moved) {
        quietSince = now;
      } else if (fabric.pending() == 0 && now - quietSince > 1_000_000_000L) {
        throw new IllegalStateException("the replay is stuck at " + now + " ns: " + stuck(ranks));
      }
    }
    long end = start;
    for (Rank r : ranks) {
      end = Math.max(end, r.finishedAt);
    }
    return end;
  }

  /** Runs the loop's next event (and all others at its time); @return the new time */
  private static long jump(List<Rank> ranks, LocalFabric fabric, long now) {
    Rank first = null;
    for (Rank r : ranks) {
      if (first == null || r.nextTimed() < first.nextTimed()) {
        first = r;
      }
    }
    long timed = first.nextTimed();
    if (timed != Long.MAX_VALUE && first.marker != timed) {
      first.marker = timed;
      fabricNode(first.ctx).scheduler().schedule(Math.max(0, timed - first.ctx.nowNanos()), () -> { });
    }
    fabric.step();
    long t = Math.max(now, fabric.now());
    fabric.runUntil(t);
    return t;
  }

  private static String stuck(List<Rank> ranks) {
    StringBuilder b = new StringBuilder();
    for (Rank r : ranks) {
      if (!r.finished) {
        b.append(' ').append(r.mpi.where());
      }
    }
    return b.toString();
  }

  private static Context open(String job, int rank, Setup s, MeterRegistry meters) {
    Map<String, String> m = new HashMap<>();
    m.put("verbs.provider", "ib");
    m.put("verbs.fabric", "local");
    m.put("verbs.fabric.mode", "deterministic");
    m.put("verbs.fabric.name", job);
    m.put("verbs.ib.job", job);
    m.put("verbs.rank", Integer.toString(rank));
    m.put("verbs.size", Integer.toString(s.procs()));
    m.put("verbs.time", "modelled");
    m.put("verbs.threading", "invoker");
    m.put("verbs.ib.srq-flow-control", s.mechanism() == Mechanism.STOP_RESEND ? "stop-resend" : "rnr");
    m.put("verbs.ib.srq-poll-ns", Long.toString(s.tPollNanos()));
    return Verbs.open(VerbsConfig.of(m), DeviceOptions.none().with(MeterRegistry.class, meters));
  }

  /**
   * The ib context's fabric node: the driver runs the deterministic loop and watches each node's
   * activity. The examples compile against the API only, so the provider's public {@code
   * fabricNode()} is reached by reflection.
   */
  static FabricNode fabricNode(Context ctx) {
    return io.github.verbs4j.examples.common.FabricNodes.of(ctx).orElseThrow(
        () -> new IllegalStateException("verbs.provider=ib has no fabricNode(): " + ctx.getClass()));
  }

  /** One process: its context, its MPI layer ({@link NpbMpi}) and the driver's view of it. */
  private static final class Rank implements AutoCloseable {
    final int id;
    final Setup s;
    final Context ctx;
    final NodeClock clock;
    final NpbMpi mpi;
    long limitEvents;
    long lastActivity = -1;
    long wakeAt = Long.MAX_VALUE;
    long refillAt = Long.MAX_VALUE;
    long rearmAt = Long.MAX_VALUE;
    boolean computing;
    boolean finished;
    double seenStops;
    long marker = -1;
    long finishedAt;

    Rank(Setup s, int id, List<Op> ops, String job) {
      this.s = s;
      this.id = id;
      MeterRegistry meters = new SimpleMeterRegistry();
      this.ctx = open(job, id, s, meters);
      this.clock = fabricNode(ctx).clock();
      this.mpi = new NpbMpi(s, id, ops, ctx, meters);
    }

    void connect(List<Rank> all) {
      for (int peer : mpi.peers()) {
        Rank p = all.get(peer);
        mpi.connect(peer, p.mpi.qpNum(id), p.ctx.queryPort(1).lid());
      }
    }

    /** @return the next modelled time this process (or its refill thread) acts on its own */
    long nextTimed() {
      return Math.min(computing ? wakeAt : Long.MAX_VALUE, Math.min(refillAt, rearmAt));
    }

    /**
     * After a slice: the refill thread's steps that are due, the limit event, and the process's
     * next MPI call if its computation ended or (waiting) its node did something.
     *
     * @return whether anything happened
     */
    boolean turn(long now) {
      if (finished) {
        return false;
      }
      long a = clock.activity();
      boolean active = a != lastActivity;
      lastActivity = a;
      boolean moved = false;
      if (active && s.mechanism() == Mechanism.RNR) {
        Optional<AsyncEvent> ev;
        while ((ev = ctx.pollAsyncEvent(Duration.ZERO)).isPresent()) {
          if (ev.get().type() != AsyncEventType.SRQ_LIMIT_REACHED) {
            throw new IllegalStateException("rank " + id + ": async event " + ev.get());
          }
          limitEvents++;
          refillAt = Math.min(refillAt, now + s.tIntNanos());
        }
      }
      if (active && s.mechanism() == Mechanism.STOP_RESEND && mpi.stopsSent() > seenStops) {
        // the receiving process's poll (seed 002 fig. 3) sees that its device stopped a sender:
        // it takes the completions into the MPI layer and posts their receives back, for the
        // device's next SRQ poll to find
        seenStops = mpi.stopsSent();
        at(now);
        mpi.drain();
        moved = true;
      }
      if (refillAt <= now) {
        // the refill thread: every completion into the MPI layer, every receive back
        refillAt = Long.MAX_VALUE;
        at(now);
        mpi.drain();
        rearmAt = now + s.tSetevNanos();
        moved = true;
        active = true;
      }
      if (rearmAt <= now) {
        rearmAt = Long.MAX_VALUE;
        at(now);
        mpi.armLimit();
        moved = true;
      }
      if (computing ? wakeAt <= now : active) {
        progress(now);
        moved = true;
      }
      return moved;
    }

    /** Moves the node's clock to the process's time (its computation, or the driver's slice). */
    private void at(long now) {
      long behind = now - ctx.nowNanos();
      if (behind > 0) {
        ctx.chargeNanos(behind);
      }
    }

    /**
     * Runs the trace from where it stopped until it computes, waits or ends. The process looks at
     * its CQ at the loop's time: its application's time is the loop's whenever it acts here (its
     * computation ends exactly at {@link #wakeAt}, its waits at the slice it sees their end in).
     */
    void progress(long now) {
      computing = false;
      at(now);
      mpi.time.waitedUntil(now);
      mpi.drain();
      long next = mpi.advance();
      if (next > 0) {
        computing = true;
        wakeAt = mpi.time.nowNanos();
      } else if (next == NpbMpi.DONE) {
        finished = true;
        finishedAt = mpi.time.nowNanos();
      }
    }

    @Override
    public void close() {
      mpi.close();
      ctx.close();
    }
  }
}
