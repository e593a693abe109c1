package io.github.verbs4j.tca.verbs;

import io.github.verbs4j.tca.peach2.HostScheduler;
import io.github.verbs4j.tca.peach2.Peach2Board;
import io.github.verbs4j.verbs.spi.runtime.AgentLock;
import io.github.verbs4j.verbs.spi.runtime.RuntimeAgent;
import io.netty.util.collection.IntObjectHashMap;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The context's software proxy (seed 000 §3.3) as a runtime agent: one duty cycle polls the
 * receive rings of every peer, hands each packet to its QP's {@link Responder} or {@link
 * Requester}, applies the peers' write-backs (which acknowledge RC messages), starts posted work,
 * runs the timers and moves queued packets as credits allow. {@link #doWork()} does not know which thread runs it: {@link ProxyRunners} decides
 * ({@code verbs.threading}), and every runner holds {@link #lock()} while it runs. A write landing
 * in this node's memory (the board's write hook), a post, a poll and the timers make it run.
 *
 * <p>The clock is the board's (wall or modelled), read once per duty cycle. All engine state of
 * the context's QPs is touched under each QP's lock ({@code TcaQueuePair.lock()}); the channels only under the agent's lock.
 */
final class Proxy implements Channel.Sink, RuntimeAgent {
  private static final Logger LOG = LoggerFactory.getLogger(Proxy.class);
  private static final int POLL_BUDGET = 256;
  /**
   * How soon to look again while packets wait for credits: only a safety net, since the peer's
   * credit write lands in this node's memory and wakes the agent. Longer than an engine thread's
   * longest park, so that waiting for credits parks the thread instead of yielding it in a loop
   * (which took a core from the threads that carry the credits).
   */
  private static final long CREDIT_WAIT_NS = 10_000_000;

  private final TcaContext ctx;
  private final Peach2Board board;
  private final Channel[] channels;
  private final AgentLock lock = new AgentLock();
  private final LongSupplier clock;
  private final ConcurrentHashMap<Integer, TcaQueuePair> qps = new ConcurrentHashMap<>();
  /** Copies for the duty cycle, replaced on attach/detach: lookups and iteration allocate nothing. */
  private volatile TcaQueuePair[] qpArray = new TcaQueuePair[0];
  private volatile IntObjectHashMap<TcaQueuePair> byQpn = new IntObjectHashMap<>();
  private final Packet header = new Packet();
  /** Where a packet that wraps the high-bandwidth ring is put together. */
  private final ByteBuffer scratch = ByteBuffer.allocateDirect(Layout.HB_BYTES).order(ByteOrder.LITTLE_ENDIAN);
  private final ProxyRunners runners;
  /** Work was signalled (a landed write, a post, a modify, a timer) since the last duty cycle began. */
  private volatile boolean pending = true;
  private volatile boolean closed;
  private long now;
  // the wake-up timer on the board's scheduler (under the agent)
  private final HostScheduler.Timer wakeTimer;
  private boolean wakeArmed;
  private long wakeDeadline;
  /** The wake-up timer fired (set on the scheduler's thread; the next duty cycle forgets the timer). */
  private volatile boolean wakeFired;
  /**
   * A duty cycle runs that began with work signalled. One that began with none (a CQ poll's, an
   * idle thread's look) finds only what a landed write, a post or a timer signals meanwhile, and
   * those set {@link #pending}: so it does not keep the clock's timers waiting, however often an
   * application polls.
   */
  private volatile boolean working;
  /** A requester waits for an ACK (set by the duty cycle). */
  private volatile boolean awaitingReply;
  private volatile long lastWorkWallNanos;
  /** How long a claimed reply keeps the clock's timers waiting without a duty cycle doing work. */
  private static final long AWAIT_WALL_LIMIT_NANOS = 10_000_000_000L;

  Proxy(TcaContext ctx, Peach2Board board, ByteBuffer areas, int llMax, ProxyRunners.Factory runners) {
    this.ctx = ctx;
    this.board = board;
    this.clock = board.clock()::nowNanos;
    int n = board.window().nodes();
    this.channels = new Channel[n + 1];
    for (int p = 1; p <= n; p++) {
      channels[p] = new Channel(board, ctx.costs(), p, areas, (p - 1) * Layout.AREA, llMax);
    }
    this.runners = runners.create(this, board.link());
    this.wakeTimer = board.link().scheduler().timer(this::onWakeTimer);
  }

  void start() {
    board.setWriteHook(this::landed);
    board.clock().busyProbe(this::busy);
    runners.start();
  }

  /**
   * Modelled time: whether this host has work in hand, so that no timer is the next event — a
   * write landed that the agent has not read, a signalled duty cycle running or due, or a reply certainly on
   * its way (a requester waits for an ACK over a link that loses nothing: on netty the peer's work
   * in hand is invisible). The claim lapses after {@link #AWAIT_WALL_LIMIT_NANOS} of wall time
   * without a duty cycle doing work, so a reply that never comes still times out.
   */
  private boolean busy() {
    if (pending || wakeFired || working) {
      return true;
    }
    return awaitingReply && !board.link().seesPeers() && !board.dataLink().holdsFramesAhead()
        && System.nanoTime() - lastWorkWallNanos < AWAIT_WALL_LIMIT_NANOS && !board.link().mayLose();
  }

  @Override
  public AgentLock lock() {
    return lock;
  }

  @Override
  public String roleName() {
    return "tca-proxy-" + board.nodeId();
  }

  // ================================================================ signals (any thread)

  /** A write landed in this node's memory (the board's write hook: a delivering thread). */
  private void landed() {
    pending = true;
    runners.onDelivery();
  }

  /** A post queued work. */
  void posted() {
    pending = true;
    runners.onPost();
  }

  /** A modify changed a QP: the agent looks at it soon. */
  void wake() {
    pending = true;
    runners.onChange();
  }

  /** An application's CQ poll. */
  void polled() {
    runners.onPoll();
  }

  /** The application is about to block: the fabric's own thread takes its I/O. */
  void beforeBlocking() {
    board.link().yieldProgress();
  }

  /** See {@link ProxyRunners#await}. */
  boolean awaitProgress(BooleanSupplier ready, long timeoutNanos) {
    return runners.await(ready, timeoutNanos);
  }

  /** A completion event was queued: ends an application thread's {@link #awaitProgress}. */
  void wakeAwaiting() {
    board.link().wakeAwaiting();
  }

  private void onWakeTimer() {
    wakeFired = true;
    pending = true;
    runners.onTimer();
  }

  // ================================================================ QP table

  synchronized void attach(TcaQueuePair qp) {
    qps.put(qp.qpNum(), qp);
    publish();
  }

  synchronized void detach(TcaQueuePair qp) {
    qps.remove(qp.qpNum(), qp);
    publish();
  }

  private void publish() {
    IntObjectHashMap<TcaQueuePair> m = new IntObjectHashMap<>(Math.max(8, qps.size() * 2));
    for (TcaQueuePair q : qps.values()) {
      m.put(q.qpNum(), q);
    }
    byQpn = m;
    qpArray = qps.values().toArray(new TcaQueuePair[0]);
  }

  /**
   * @param node a node id (a LID)
   * @return the channel to it, or null if no such node exists in the sub-cluster
   */
  Channel channel(int node) {
    return node >= 1 && node < channels.length ? channels[node] : null;
  }

  /** @return the clock now (a fresh reading, for work that took long within a cycle) */
  long clockNanos() {
    return clock.getAsLong();
  }

  // ================================================================ the agent

  @Override
  public int doWork() {
    working = pending || wakeFired; // before pending is cleared: never a moment with neither set
    try {
      return dutyCycle();
    } finally {
      working = false;
    }
  }

  private int dutyCycle() {
    pending = false;
    if (wakeFired) {
      wakeFired = false;
      wakeArmed = false;
    }
    long t = clock.getAsLong();
    now = t;
    int work = 0;
    boolean caughtUp = true;
    for (int p = 1; p < channels.length; p++) {
      int n = channels[p].poll(header, scratch, this, POLL_BUDGET);
      if (n > 0) {
        ctx.counters().packetsReceived(n);
        work += n;
        caughtUp &= n < POLL_BUDGET;
      }
    }
    if (work > 0 && caughtUp) {
      board.link().receiverCaughtUp(); // peers' timers learn that this proxy took what reached it (AckWait)
    }
    boolean awaiting = false;
    for (TcaQueuePair qp : qpArray) {
      synchronized (qp.lock()) {
        if (!qp.destroyed && qp.requester.progress(t)) {
          work++;
        }
        awaiting |= !qp.destroyed && qp.requester.awaitsAck();
      }
    }
    awaitingReply = awaiting;
    if (work > 0) {
      lastWorkWallNanos = System.nanoTime();
    }
    for (int p = 1; p < channels.length; p++) {
      Channel ch = channels[p];
      if (ch.hasQueued()) {
        int n = ch.flush();
        ctx.counters().packetsSent(n);
        work += n;
      }
    }
    scheduleWake(clock.getAsLong()); // a WQE started at its post time may have moved the clock
    return work;
  }

  /** @return the nearest deadline of the QPs' timers and the credit wait, or Long.MAX_VALUE */
  private long nextDeadline(long t) {
    long deadline = Long.MAX_VALUE;
    for (TcaQueuePair qp : qpArray) {
      synchronized (qp.lock()) {
        deadline = Math.min(deadline, qp.requester.nextDeadline());
      }
    }
    for (int p = 1; p < channels.length; p++) {
      if (channels[p].hasQueued()) {
        deadline = Math.min(deadline, t + CREDIT_WAIT_NS);
      }
    }
    return deadline;
  }

  @Override
  public long untilDeadlineNanos() {
    long d = nextDeadline(now);
    return d == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(0, d - now);
  }

  @Override
  public boolean hasPendingWork() {
    return pending || closed;
  }

  /** A timer on the board's scheduler, when no thread looks at the deadlines or the clock moves only with events. */
  private void scheduleWake(long t) {
    if (closed || (!runners.needsTimer() && !board.clock().isModelled())) {
      return;
    }
    long next = nextDeadline(t);
    boolean modelled = board.clock().isModelled();
    if (wakeArmed && wakeDeadline - t > 0
        && (next == wakeDeadline || (!modelled && next != Long.MAX_VALUE && next - wakeDeadline >= 0))) {
      return; // a timer due no later is set and has not come due
    }
    if (wakeArmed) {
      // on a modelled clock a timer left at a deadline nothing waits for any more would be the
      // next event and move the clock there: it must carry exactly the current deadline
      wakeTimer.cancel();
      wakeArmed = false;
    }
    if (next == Long.MAX_VALUE) {
      return;
    }
    wakeDeadline = next;
    wakeArmed = true;
    wakeTimer.arm(Math.max(0, next - t));
  }

  @Override
  public void onPacket(Channel ch, Packet p, ByteBuffer payload, int at) {
    if (LOG.isTraceEnabled()) {
      LOG.trace("node {} rx from {}: {}", board.nodeId(), ch.peer, p);
    }
    TcaQueuePair qp = byQpn.get(p.dstQpn);
    if (qp == null) {
      ctx.counters().dropped(1);
      ch.discarded(p);
      return;
    }
    synchronized (qp.lock()) {
      if (qp.destroyed) {
        ctx.counters().dropped(1);
        ch.discarded(p);
      } else if (p.isRequest()) {
        qp.responder.onRequest(ch, p, payload, at);
      } else {
        qp.requester.onResponse(ch, p, payload, at, now);
      }
    }
  }

  @Override
  public void onDelivered(Channel ch, int qpn, int psn, int seq) {
    TcaQueuePair qp = byQpn.get(qpn);
    if (qp == null) {
      return;
    }
    synchronized (qp.lock()) {
      if (!qp.destroyed) {
        qp.requester.delivered(ch, psn, seq, now);
      }
    }
  }

  /** Stops the runners and returns the channels' pool memory. */
  void close() {
    closed = true;
    board.setWriteHook(null);
    runners.close();
    // no runner is inside a duty cycle from here on (the engine thread left it; calls see closed)
    while (!lock.tryAcquire()) {
      Thread.onSpinWait();
    }
    try {
      if (wakeArmed) {
        wakeTimer.cancel();
        wakeArmed = false;
      }
      for (int p = 1; p < channels.length; p++) {
        channels[p].release();
      }
    } finally {
      lock.releaseFully();
    }
  }

  /** @return whether {@link #close()} began (runners stop running the agent) */
  boolean isClosed() {
    return closed;
  }

  /** For diagnostics. */
  @Override
  public String toString() {
    return "Proxy{node=" + board.nodeId() + ", qps=" + qps.size() + '}';
  }
}
