package io.github.verbs4j.fabric.netty;

import io.github.verbs4j.fabric.FabricException;
import io.github.verbs4j.fabric.FrameHeader;
import io.github.verbs4j.fabric.ModelledSteps;
import io.github.verbs4j.fabric.coord.CoordinatorClient;
import io.github.verbs4j.fabric.coord.CoordinatorState.StepReport;
import io.github.verbs4j.fabric.coord.CoordinatorState.StepResult;
import io.github.verbs4j.fabric.time.FabricScheduler;
import io.github.verbs4j.fabric.time.FabricTimer;
import io.github.verbs4j.fabric.time.NodeClock;
import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.PriorityQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A netty node's {@link ModelledSteps} ({@code verbs.fabric.mode=deterministic}): the frames the
 * node's sockets bring and the tasks and timers its provider schedules wait here as events ordered
 * by (modelled time, tasks before frames, source node, arrival order), and run on the thread that
 * {@linkplain #step() steps} when the job's clock reaches them.
 *
 * <p>A round of the steps: every process reports its earliest event and how many frames it has
 * sent to peers and received from them; the coordinator adds the reports up ({@link
 * io.github.verbs4j.fabric.coord.CoordinatorState#step}). Sent more than received: frames are
 * still on the wire, so the round is repeated once they are in. Otherwise every process runs its
 * events up to the earliest time of all. No frame a process sends can arrive at or before that
 * instant elsewhere (every hop takes time), so the order of events is the modelled one.
 *
 * <pre>
 *   STEPPING ──leave()──▶ LEFT (still runs its events) ──every process left──▶ RELEASED (delivers at once)
 * </pre>
 */
final class NodeSteps implements ModelledSteps {
  /** How long one round waits for every process (one may compute for long between steps). */
  static final Duration ROUND_TIMEOUT = Duration.ofMinutes(10);
  /** How long frames may stay on the wire before they count as lost (a link cut, a dead peer). */
  static final Duration IN_FLIGHT_TIMEOUT = Duration.ofSeconds(30);

  private enum State { STEPPING, LEFT, RELEASED }

  /** A held frame or a scheduled task. */
  private final class Event implements FabricTimer, Comparable<Event> {
    final long time;
    final int src; // 0 for tasks: they run before frames of the same instant
    final long seq;
    final FrameHeader header;
    final ByteBuf payload;
    final int transitAt; // a transit frame: its header's offset in payload; else -1
    final Runnable task;
    boolean cancelled;

    Event(long time, int src, FrameHeader header, ByteBuf payload, int transitAt, Runnable task) {
      this.time = time;
      this.src = src;
      this.seq = nextSeq++;
      this.header = header;
      this.payload = payload;
      this.transitAt = transitAt;
      this.task = task;
    }

    @Override
    public int compareTo(Event o) {
      int c = Long.compare(time, o.time);
      if (c == 0) {
        c = Integer.compare(src, o.src);
      }
      return c != 0 ? c : Long.compare(seq, o.seq);
    }

    @Override
    public boolean cancel() {
      synchronized (NodeSteps.this) {
        boolean was = !cancelled;
        cancelled = true;
        return was;
      }
    }
  }

  private final NodeClock clock;
  private final Supplier<CoordinatorClient> coordinator;
  private final BiConsumer<FrameHeader, ByteBuf> deliver;
  private final Transit transit;
  private final Consumer<Runnable> runTask;
  private final FabricScheduler afterRelease;
  private final PriorityQueue<Event> queue = new PriorityQueue<>();
  private final Object roundLock = new Object();
  private long nextSeq;
  private long sent;
  private long received;
  private long round;
  private State state = State.STEPPING;
  private volatile Thread runner;

  /** Models a transit frame's hops in this process at its time, then forwards or delivers it. */
  interface Transit {
    /**
     * @param h the frame's header (updated to the arrival here when it ends here)
     * @param frame the whole frame, its header at {@code at}
     * @param at the header's offset
     * @return true if the frame ends here (its header skipped): it is then held until its arrival
     */
    boolean pass(FrameHeader h, ByteBuf frame, int at);
  }

  /**
   * @param clock the node's modelled clock
   * @param coordinator the job's coordinator (connected when the node has joined)
   * @param deliver delivers a frame with its header to the node's receiver
   * @param transit models and passes on a transit frame
   * @param runTask runs a provider's task as the node's fabric thread
   * @param afterRelease the node's own scheduler, used once every process has left
   */
  NodeSteps(NodeClock clock, Supplier<CoordinatorClient> coordinator, BiConsumer<FrameHeader, ByteBuf> deliver,
      Transit transit, Consumer<Runnable> runTask, FabricScheduler afterRelease) {
    this.clock = clock;
    this.coordinator = coordinator;
    this.deliver = deliver;
    this.transit = transit;
    this.runTask = runTask;
    this.afterRelease = afterRelease;
  }

  /** A frame the node handed to its transport for a peer. */
  synchronized void sent() {
    sent++;
  }

  /**
   * A frame for this node, off a socket or sent to itself: held until its instant (delivered at
   * once after the release).
   *
   * @param h its header (copied)
   * @param payload its payload (ownership passes)
   * @param fromPeer whether it came from a peer (counted against the peers' sends)
   */
  void hold(FrameHeader h, ByteBuf payload, boolean fromPeer) {
    synchronized (this) {
      if (fromPeer) {
        received++;
      }
      if (state != State.RELEASED) {
        queue.add(new Event(h.arrivalTimeNanos(), h.src(), copy(h), payload, -1, null));
        return;
      }
    }
    deliver.accept(h, payload);
  }

  /**
   * A transit frame off a socket, whose next hops this process models: held until it reaches the
   * first of them, so frames sharing a link here take it in modelled-time order.
   *
   * @param h its header (copied)
   * @param frame the whole frame (ownership passes)
   * @param at the header's offset in {@code frame}
   */
  void holdTransit(FrameHeader h, ByteBuf frame, int at) {
    synchronized (this) {
      received++;
      if (state != State.RELEASED) {
        queue.add(new Event(h.arrivalTimeNanos(), h.src(), copy(h), frame, at, null));
        return;
      }
    }
    FrameHeader c = copy(h);
    if (transit.pass(c, frame, at)) {
      deliver.accept(c, frame);
    }
  }

  private static FrameHeader copy(FrameHeader h) {
    return new FrameHeader().set(h.flags(), h.hops(), h.src(), h.dst(), h.tag(), h.length(), h.sendTimeNanos(),
        h.arrivalTimeNanos());
  }

  /** @return the scheduler the provider sees: its tasks and timers are events here */
  FabricScheduler scheduler() {
    return new FabricScheduler() {
      @Override
      public FabricTimer schedule(long delayNanos, Runnable task) {
        if (delayNanos < 0) {
          throw new IllegalArgumentException("schedule delayNanos=" + delayNanos + " must not be negative");
        }
        synchronized (NodeSteps.this) {
          if (state != State.RELEASED) {
            Event e = new Event(clock.nowNanos() + delayNanos, 0, null, null, -1, task);
            queue.add(e);
            return e;
          }
        }
        return afterRelease.schedule(delayNanos, task);
      }

      @Override
      public void execute(Runnable task) {
        schedule(0, task);
      }

      @Override
      public boolean inFabricThread() {
        return runner == Thread.currentThread() || afterRelease.inFabricThread();
      }
    };
  }

  @Override
  public void step() {
    rounds(false);
  }

  @Override
  public void barrier() {
    rounds(true);
  }

  /**
   * Rounds until this thread may go on: after running the events of the job's next instant (a
   * step), or in the round that finds every process at the barrier.
   */
  private void rounds(boolean atBarrier) {
    synchronized (roundLock) { // one round at a time per process, whichever of its threads waits
      roundsLocked(atBarrier);
    }
  }

  private void roundsLocked(boolean atBarrier) {
    long inFlightSince = 0;
    while (true) {
      StepReport mine;
      synchronized (this) {
        if (state == State.RELEASED) {
          return;
        }
        Event first;
        while ((first = queue.peek()) != null && first.cancelled) {
          queue.poll(); // a cancelled timer (an ACK came) is no instant of the job: no round for it
        }
        mine = new StepReport(first == null ? Long.MAX_VALUE : first.time, sent, received, state == State.LEFT, atBarrier);
      }
      StepResult all = coordinator.get().step(round++, mine, ROUND_TIMEOUT);
      if (all.allLeft()) {
        release();
        return;
      }
      if (all.allAtBarrier()) {
        return;
      }
      if (all.sent() != all.received()) {
        long now = System.nanoTime();
        if (inFlightSince == 0) {
          inFlightSince = now;
        } else if (now - inFlightSince > IN_FLIGHT_TIMEOUT.toNanos()) {
          throw new FabricException("modelled-time steps: " + (all.sent() - all.received()) + " frame(s) sent but not received for "
              + IN_FLIGHT_TIMEOUT.toSeconds() + " s (lost on a cut link or to a dead peer): the job's clock cannot move");
        }
        LockSupport.parkNanos(20_000); // frames on the wire: ask again once they are in
        continue;
      }
      if (all.next() == Long.MAX_VALUE) {
        if (mine.left()) {
          release(); // the others fail below; nothing is left to acknowledge for them
          return;
        }
        throw new FabricException("modelled-time steps: every process waits and no frame, task or timer is pending "
            + "anywhere (round " + (round - 1) + ", modelled time " + clock.nowNanos() + " ns" + (atBarrier
            ? ", this process in a barrier the others have not reached" : "") + "): the ranks wait for each other forever");
      }
      runUntil(all.next());
      if (!atBarrier) {
        return;
      }
    }
  }

  @Override
  public void leave() {
    synchronized (this) {
      if (state != State.STEPPING) {
        return;
      }
      state = State.LEFT;
    }
    while (true) {
      synchronized (this) {
        if (state == State.RELEASED) {
          return;
        }
      }
      rounds(false);
    }
  }

  /** Runs the held events up to {@code t} on this thread, in order. */
  private void runUntil(long t) {
    runner = Thread.currentThread();
    try {
      while (true) {
        Event e;
        synchronized (this) {
          e = queue.peek();
          if (e == null || e.time > t) {
            return;
          }
          queue.poll();
          if (e.cancelled) {
            continue;
          }
        }
        if (e.task != null) {
          clock.advanceTo(e.time);
          runTask.accept(e.task);
        } else if (e.transitAt < 0) {
          deliver.accept(e.header, e.payload);
        } else if (transit.pass(e.header, e.payload, e.transitAt)) {
          hold(e.header, e.payload, false); // ends here: delivered at its arrival
        } else {
          sent(); // forwarded to the process of its next link, which counts it in
        }
      }
    } finally {
      runner = null;
    }
  }

  /** Every process has left: what is still held is dropped, and frames are delivered at once from now on. */
  private void release() {
    synchronized (this) {
      state = State.RELEASED;
      for (Event e : queue) {
        if (e.payload != null) {
          e.payload.release();
        }
      }
      queue.clear();
    }
  }

  /** The node closes: drops what is held. */
  void close() {
    release();
  }
}
