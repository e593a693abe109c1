package io.github.verbs4j.examples.srqfc;

import io.github.verbs4j.examples.common.JobChannel;
import io.github.verbs4j.examples.srqfc.NpbTrace.Op;
import io.github.verbs4j.verbs.AsyncEvent;
import io.github.verbs4j.verbs.AsyncEventType;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.DeviceOptions;
import io.github.verbs4j.verbs.PortCounter;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.config.VerbsConfig;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;

/**
 * Replays one rank's NPB trace in its own process (or thread), with its own ib context: the
 * one-process-per-rank counterpart of {@link NpbReplay} for {@code verbs4j run -n P srq-fc npb}. The
 * ranks exchange QP numbers and LIDs through the job's key-value store and run the same MPI layer
 * ({@link NpbMpi}) in modelled time ({@code verbs.time=modelled}); rank 0 sums the events and
 * takes the run time as the latest end of all ranks' application timelines minus their common
 * start.
 *
 * <p>Each process keeps its application's time apart from its device's clock ({@link NpbMpi#time}):
 * a computation moves the application's time, a Waitall ends at the completion times of what it
 * waited for. With no single event loop a computation must still take wall time, or arrivals would
 * never find its receives held: a process spends {@code pace} wall nanoseconds a modelled one and
 * meanwhile brings its device's clock up to its application's progress ({@link
 * Context#advanceClockTo}: never past an arrival that already moved it), so that the device's
 * timers fire in modelled-time order while the host computes; it looks only for stops
 * (stop-resend: it takes its completions back at once, as {@link NpbReplay} does). A waiting
 * process looks at its CQ every {@link #LOOK_NANOS} of wall time. With {@link
 * NpbReplay.Mechanism#RNR} a refill thread waits for SRQ_LIMIT_REACHED, sleeps t_int, takes every
 * completion at the event's time + t_int, sleeps t_setev and re-arms the limit (both sleeps times
 * {@code pace}). The figures still depend on how the processes' threads interleave in wall time
 * (docs/srq-flow-control.md says by how much, and why).
 */
final class NpbProcess {
  /** Wall time between two looks of a waiting process at its CQ. */
  static final long LOOK_NANOS = 20_000;
  /** A rank that waits this long in wall time for one Waitall has lost a peer. */
  static final Duration STUCK = Duration.ofSeconds(120);

  private NpbProcess() {}

  /**
   * Opens this rank's context for replays with one mechanism (a rank joins a netty job once, so
   * every run of a command shares it).
   *
   * @param base this rank's configuration (fabric, coordinator, rank and size of the job)
   * @param m the mechanism
   * @param tPollNanos the device's SRQ poll interval (stop-resend)
   * @param meters the registry the context reports to (the stop counters)
   * @return the context: ib, modelled time
   */
  static Context open(VerbsConfig base, NpbReplay.Mechanism m, long tPollNanos, MeterRegistry meters) {
    VerbsConfig cfg = base.with("verbs.provider", "ib").with("verbs.time", "modelled")
        .with("verbs.ib.srq-flow-control", m == NpbReplay.Mechanism.STOP_RESEND ? "stop-resend" : "rnr")
        .with("verbs.ib.srq-poll-ns", Long.toString(tPollNanos));
    return Verbs.open(cfg, DeviceOptions.none().with(MeterRegistry.class, meters));
  }

  /**
   * Runs this rank's part of one replay; every rank of the job calls it with the same arguments.
   *
   * @param s the settings ({@code s.procs()} = the job's size; the mechanism the context's)
   * @param ctx this rank's context, from {@link #open}
   * @param meters its registry
   * @param namespace the job channel's namespace of this run, the same on every rank and new per run
   * @param pace wall nanoseconds slept per modelled nanosecond of computation (and of the refill
   *     thread's t_int and t_setev)
   * @return on rank 0 the run's totals; on other ranks this rank's own figures
   */
  static NpbReplay.Result run(NpbReplay.Setup s, Context ctx, MeterRegistry meters, String namespace, double pace)
      throws Exception {
    return run(s, rank -> NpbTrace.step(s.bench(), s.procs(), rank, s.gflops()), ctx, meters, namespace, pace);
  }

  /**
   * {@link #run(NpbReplay.Setup, Context, MeterRegistry, String, double)} with another trace.
   *
   * @param trace a rank's operations for one step, by rank
   */
  static NpbReplay.Result run(NpbReplay.Setup s, IntFunction<List<Op>> trace, Context ctx, MeterRegistry meters,
      String namespace, double pace) throws Exception {
    JobChannel ch = new JobChannel(ctx.job(), namespace, STUCK);
    if (ch.size() != s.procs()) {
      throw new IllegalArgumentException("--procs=" + s.procs() + " must equal the job's size, " + ch.size()
          + " ranks (verbs4j run -n " + s.procs() + ")");
    }
    int rank = ch.rank();
    try (NpbMpi mpi = new NpbMpi(s, rank, trace.apply(rank), ctx, meters)) {
      long stops0 = (long) mpi.stopsSent();
      long naks0 = ctx.queryPortCounters(1).get(PortCounter.SEND_RNR_ERR);
      mpi.createQps();
      for (int peer : mpi.peers()) {
        ch.publish("qpn-to-" + peer, Integer.toString(mpi.qpNum(peer)));
      }
      ch.publish("lid", Integer.toString(ctx.queryPort(1).lid()));
      for (int peer : mpi.peers()) {
        mpi.connect(peer, Integer.parseInt(ch.lookup("qpn-to-" + rank, peer)), Integer.parseInt(ch.lookup("lid", peer)));
      }
      ch.barrier();
      ch.publish("clock", Long.toString(ctx.nowNanos()));
      long start = 0;
      for (int r = 0; r < ch.size(); r++) {
        start = Math.max(start, Long.parseLong(ch.lookup("clock", r)));
      }
      mpi.time.waitedUntil(start);
      mpi.time.beforePost();
      ch.barrier();
      Refill refill = s.mechanism() == NpbReplay.Mechanism.RNR ? new Refill(mpi, pace) : null;
      long wall = System.nanoTime();
      long end;
      try {
        end = replay(mpi, pace, refill);
      } finally {
        if (refill != null) {
          refill.stop();
        }
      }
      wall = System.nanoTime() - wall;
      long naks = ctx.queryPortCounters(1).get(PortCounter.SEND_RNR_ERR) - naks0;
      long stops = (long) mpi.stopsSent() - stops0;
      long limits = refill == null ? 0 : refill.events;
      ch.publish("result", end + "," + stops + "," + naks + "," + limits + "," + mpi.pieces);
      long heap = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
      NpbReplay.Result mine = new NpbReplay.Result(end - start, stops, naks, limits, mpi.pieces, wall,
          heap, NpbReplay.residentBytes());
      NpbReplay.Result total = rank == 0 ? gather(ch, start, mine) : mine;
      ch.barrier(); // every rank's sends are acknowledged and its receives matched: close together
      return total;
    }
  }

  private static NpbReplay.Result gather(JobChannel ch, long start, NpbReplay.Result mine) {
    long end = start;
    long stops = 0;
    long naks = 0;
    long limits = 0;
    long pieces = 0;
    for (int r = 0; r < ch.size(); r++) {
      String[] f = ch.lookup("result", r).split(",");
      end = Math.max(end, Long.parseLong(f[0]));
      stops += Long.parseLong(f[1]);
      naks += Long.parseLong(f[2]);
      limits += Long.parseLong(f[3]);
      pieces += Long.parseLong(f[4]);
    }
    return new NpbReplay.Result(end - start, stops, naks, limits, pieces, mine.wallNanos(), mine.heapBytes(),
        mine.residentBytes());
  }

  /** Runs the trace to its end; @return the application's time when the process finished */
  private static long replay(NpbMpi mpi, double pace, Refill refill) {
    long waitingSince = System.nanoTime();
    while (true) {
      if (refill != null) {
        refill.check();
      }
      long next;
      synchronized (mpi) {
        mpi.drain();
        next = mpi.advance();
      }
      if (next == NpbMpi.DONE) {
        return mpi.time.nowNanos();
      }
      if (next > 0) {
        compute(mpi, next, pace);
        waitingSince = System.nanoTime();
      } else if (System.nanoTime() - waitingSince > STUCK.toNanos()) {
        throw new IllegalStateException("the replay is stuck: " + mpi.where());
      } else {
        LockSupport.parkNanos(LOOK_NANOS);
      }
    }
  }

  /**
   * Spends a computation ({@link NpbMpi#advance} charged it on the application's time already) in
   * wall time, {@code pace} wall nanoseconds a modelled one, so that arrivals meanwhile find the
   * receives held; the device's clock is brought up to the application's progress through it (an
   * arrival that moved it further is not undone, nor added to the computation), so that the
   * device's timers fire when modelled time reaches them; with stop-resend the process answers its
   * device's stops meanwhile.
   */
  private static void compute(NpbMpi mpi, long nanos, double pace) {
    Context ctx = mpi.ctx;
    long from = mpi.time.nowNanos() - nanos;
    long wallFrom = System.nanoTime();
    double seen = mpi.stopsSent();
    long done = 0;
    while (done < nanos) {
      LockSupport.parkNanos(Math.min((long) ((nanos - done) * pace), LOOK_NANOS));
      done = Math.min(nanos, (long) ((System.nanoTime() - wallFrom) / pace));
      ctx.advanceClockTo(from + done);
      if (mpi.s.mechanism() == NpbReplay.Mechanism.STOP_RESEND && mpi.stopsSent() > seen) {
        // seed 002 fig. 3: the process's poll sees its device stopped a sender and posts receives back
        seen = mpi.stopsSent();
        synchronized (mpi) {
          mpi.drain();
        }
      }
    }
  }

  /**
   * MVAPICH's SRQ refill thread: limit event, t_int, every completion taken, t_setev, re-armed. Its
   * steps are at the event's time (the device's clock when the thread takes it) + t_int and
   * + t_setev, as the in-JVM replay places them.
   */
  private static final class Refill implements Runnable {
    private final NpbMpi mpi;
    private final double pace;
    private final Thread thread;
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
    private volatile boolean running = true;
    volatile long events;

    Refill(NpbMpi mpi, double pace) {
      this.mpi = mpi;
      this.pace = pace;
      this.thread = new Thread(this, "npb-refill-" + mpi.id);
      thread.setDaemon(true);
      thread.start();
    }

    @Override
    public void run() {
      try {
        while (running) {
          Optional<AsyncEvent> ev = mpi.ctx.pollAsyncEvent(Duration.ofMillis(20));
          if (ev.isEmpty() || ev.get().srq() != mpi.srq()) {
            continue; // none, or one of an earlier run's SRQ on the same context
          }
          if (ev.get().type() != AsyncEventType.SRQ_LIMIT_REACHED) {
            throw new IllegalStateException("rank " + mpi.id + ": async event " + ev.get());
          }
          events++;
          long at = mpi.ctx.nowNanos() + mpi.s.tIntNanos();
          LockSupport.parkNanos((long) (mpi.s.tIntNanos() * pace));
          synchronized (mpi) {
            mpi.ctx.advanceClockTo(at);
            mpi.drain();
          }
          LockSupport.parkNanos((long) (mpi.s.tSetevNanos() * pace));
          synchronized (mpi) {
            mpi.ctx.advanceClockTo(at + mpi.s.tSetevNanos());
            mpi.armLimit();
          }
        }
      } catch (RuntimeException e) {
        failure.set(e);
      }
    }

    /** Rethrows the thread's failure in the process's thread. */
    void check() {
      RuntimeException e = failure.get();
      if (e != null) {
        throw e;
      }
    }

    void stop() throws InterruptedException {
      running = false;
      thread.join();
      check();
    }
  }
}
