package io.github.verbs4j.ib.engine;

import io.github.verbs4j.ib.wire.Bth;
import io.github.verbs4j.ib.wire.Icrc;
import io.github.verbs4j.ib.wire.Opcode;
import io.github.verbs4j.ib.wire.Opcode.Transport;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.VerbsException;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.spi.AbstractProtectionDomain;
import io.github.verbs4j.verbs.spi.ReceiveQueue;
import io.github.verbs4j.verbs.spi.RecvWqe;
import io.github.verbs4j.verbs.spi.SoftCompletionQueue;
import io.github.verbs4j.verbs.spi.SoftSharedReceiveQueue;
import io.github.verbs4j.verbs.spi.runtime.AgentLock;
import io.github.verbs4j.verbs.spi.runtime.RuntimeAgent;
import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.Queue;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The simulated HCA: an agent ({@link RuntimeAgent}) whose {@link #doWork()} runs one duty cycle
 * — take received frames and hand each packet to its QP's responder or completer, look at QPs
 * whose doorbell rang, fire expired timers, let every QP with pending work run its requester,
 * completer and responder, and end the cycle's ACK holds. The clock is read once per cycle. The
 * agent does not know which thread runs it: {@link DeviceRunners} does (by {@code
 * verbs.threading}), each runner under the agent's {@link AgentLock}.
 *
 * <p>Its pieces: {@link FrameSplitter} (frames into packets), {@link Transmitter} (packets out,
 * claim/commit, trains), {@link TimerList}, {@link WakeTimer} (when the port must run it next),
 * {@link AckPolicy}; the QP table and the port upcalls are here.
 *
 * <p>Locks: the agent (one runner at a time), then per QP its private QP lock ({@link
 * QpOwner#lock()}), then CQ and SRQ monitors. The verbs layer takes a QP monitor but never the agent, so there is no cycle.
 */
public final class IbDevice implements PacketPort.Receiver, FrameSplitter.Sink, RuntimeAgent, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(IbDevice.class);
  /** The first QP number handed out (0 and 1 are the special QPs). */
  public static final int FIRST_QPN = 0x100;

  final PacketPort port;
  final IbParams params;
  final IbCounters counters = new IbCounters();
  // Bounded many-producer, single-consumer queues (JCTools' MpscArrayQueue through Netty, which
  // picks a variant this JVM allows); Agrona's ManyToOneConcurrentArrayQueue would need
  // --add-exports java.base/jdk.internal.misc in every JVM that opens a device.
  private final Queue<ByteBuf> inbound;
  private final ReceiveTimeline received;
  private final Queue<EngineQp> doorbells;
  private final QpTable qps;

  // The pieces, and engine-only state (under the agent).
  final Transmitter tx;
  final FrameSplitter frames;
  final TimerList timers = new TimerList(this);
  final AckPolicy acks;
  final Packet rx = new Packet();
  private final Icrc icrc = new Icrc();
  final WorkCompletion wc = new WorkCompletion();
  final RecvWqe recvScratch = new RecvWqe();
  final ByteBuffer atomicScratch = ByteBuffer.allocateDirect(8).order(ByteOrder.LITTLE_ENDIAN);
  long now;
  private EngineQp[] dirty = new EngineQp[64];
  private int dirtyCount;
  private EngineQp[] running = new EngineQp[64];
  private final BitSet deadLids = new BitSet();
  private final ArrayDeque<Integer> peerDownQueue = new ArrayDeque<>();
  private volatile boolean peerDownPending;
  private final LongSupplier clock;

  // Runners and wake-up.
  private final AgentLock lock = new AgentLock();
  private final DeviceRunners runners;
  private volatile boolean closed;
  /** When the engine thread will look again at the latest (port clock; set when it runs the agent). */
  private long threadLooksBy = Long.MAX_VALUE;
  private final WakeTimer wakeTimer;
  /**
   * Modelled time: a duty cycle runs that began with work queued or took some. One that found
   * nothing (an application's CQ poll, an idle thread's look) does not keep the clock's timers
   * waiting, however often it runs: what arrives meanwhile is queued, and visible, until taken.
   */
  private volatile boolean working;

  /**
   * @param port the wire
   * @param params limits and engine parameters
   */
  public IbDevice(PacketPort port, IbParams params) {
    this.port = port;
    this.params = params;
    this.inbound = PlatformDependent.newFixedMpscQueue(Math.max(2, params.inboundQueue));
    this.received = new ReceiveTimeline(port.modelledTime(), port::nowNanos, inbound);
    this.doorbells = PlatformDependent.newFixedMpscQueue(Math.max(64, params.device.maxQp()));
    this.qps = new QpTable(params.device.maxQp());
    this.tx = new Transmitter(port, params, counters);
    this.frames = new FrameSplitter(this, counters);
    // An ACK hold ends at a wall-time whim (which thread runs the cycle, when the caller goes
    // idle); in modelled time every ACK leaves at once, so figures do not depend on it.
    this.acks = new AckPolicy(port.modelledTime() ? 0 : params.ackDelayNanos);
    this.clock = port::nowNanos;
    this.runners = new DeviceRunners(this, port, lock, acks, params.threading);
    this.wakeTimer = new WakeTimer(port, timers, runners);
    port.bind(this);
    port.busyProbe(this::busy);
    if (params.threading.callsRunAgent() && params.ackDelayNanos > 0 && port.onCallersIdle(this::flushHeldAcks)) {
      acks.callersIdleKnown();
    }
  }

  /** Starts the engine thread (none in {@code invoker} mode). */
  public void start() {
    runners.start();
  }

  /** @return the parameters */
  public IbParams params() {
    return params;
  }

  /** @return the event counters */
  public IbCounters counters() {
    return counters;
  }

  /** @return the port */
  public PacketPort port() {
    return port;
  }

  @Override
  public String roleName() {
    return "ib-hca-lid" + port.localLid();
  }

  @Override
  public AgentLock lock() {
    return lock;
  }

  // ------------------------------------------------------------------ QPs

  /**
   * Reserves a QP number.
   *
   * @return the QP number
   * @throws VerbsException ENOMEM if {@code max_qp} QPs exist (the SPI counts QPs first, so only a
   *     QP created around it gets here)
   */
  public int allocateQpn() {
    return qps.allocate();
  }

  /** @param qpn a number from {@link #allocateQpn} that will not be attached after all */
  public void releaseQpn(int qpn) {
    qps.release(qpn);
  }

  /**
   * Creates the engine context of a QP with a reserved number.
   *
   * @param qpn the reserved number
   * @param owner the verbs QP (its {@link QpOwner#lock()} is the QP lock)
   * @param type QP type
   * @param pd the PD
   * @param memory key and address lookup
   * @param sendCq send CQ or null (DCT)
   * @param recvCq receive CQ or null (DCI)
   * @param rq the receive queue or null (SRQ, DCI, DCT)
   * @param srq the SRQ or null
   * @param cap actual capacities
   * @param sqSigAll every WR signaled
   * @param dctKey the DC access key (DCT)
   * @return the context, registered for packets
   */
  public EngineQp attach(int qpn, QpOwner owner, QpType type, AbstractProtectionDomain pd, MemoryDirectory memory,
      SoftCompletionQueue sendCq, SoftCompletionQueue recvCq, ReceiveQueue rq, SoftSharedReceiveQueue srq, QpCap cap,
      boolean sqSigAll, long dctKey) {
    EngineQp qp = new EngineQp(this, qpn, owner, type, pd, memory, sendCq, recvCq, rq, srq, cap, sqSigAll, dctKey);
    qps.attach(qp);
    return qp;
  }

  void detach(EngineQp qp) {
    qps.detach(qp);
  }

  /** @param qp a QP whose doorbell rang (an application thread: a post) */
  void doorbell(EngineQp qp) {
    if (qp.doorbellQueued.compareAndSet(false, true)) {
      if (!doorbells.offer(qp)) {
        qp.doorbellQueued.set(false);
        LOG.warn("doorbell queue full; QP 0x{} will be looked at by the next duty cycle", Integer.toHexString(qp.qpn));
      }
    }
    runners.onDoorbell(qp.soleOutstanding());
  }

  /**
   * A doorbell rung under the QP lock before a new state is published (modify): queued only, so
   * that no engine work runs inline on a state about to change; a later post, poll or packet runs
   * it, or the engine thread.
   */
  void doorbellDeferred(EngineQp qp) {
    if (qp.doorbellQueued.compareAndSet(false, true) && !doorbells.offer(qp)) {
      qp.doorbellQueued.set(false);
    }
    runners.onDeferredDoorbell();
  }

  /**
   * An application's CQ poll: runs the agent (and the fabric's I/O) on the polling thread when
   * the threading mode lets calls run it.
   */
  public void onPoll() {
    runners.onPoll();
  }

  /**
   * An application thread is about to block until {@code ready}: on a crowded host it waits in the
   * fabric's I/O and runs the agent itself ({@link IbParams#waitInWire}).
   *
   * @param ready true when the wait is over
   * @param timeoutNanos longest wait
   * @return false if it did not wait: the caller blocks its own way
   */
  public boolean awaitProgress(java.util.function.BooleanSupplier ready, long timeoutNanos) {
    return runners.await(ready, timeoutNanos);
  }

  /** Ends an application thread's {@link #awaitProgress} (any thread: a completion event was queued). */
  public void wakeAwaiting() {
    port.wakeAwaiting();
  }

  /** @return whether application threads drive the agent and the fabric's progress */
  public boolean callsDrive() {
    return runners.callsRun();
  }

  /**
   * Runs the agent on the calling thread until it is idle, as an application's call, unless
   * another thread runs it ({@code invoker} mode; tests).
   */
  public void runInline() {
    runners.runInline();
  }

  boolean isDead(int lid) {
    return deadLids.get(lid);
  }

  // ------------------------------------------------------------------ port upcalls

  @Override
  public void onPacket(int slid, ByteBuf packet, long arrival) {
    if (closed || !received.offer(packet, arrival)) {
      counters.incConcurrent(IbCounters.Counter.DROP_INBOUND_FULL);
      port.taken(packet);
      packet.release();
      return;
    }
    runners.onPacketQueued();
  }

  /**
   * Queues a received packet without running the agent: the next duty cycle takes it together
   * with whatever else is queued (batch delivery; tests use it to put several packets in one
   * cycle).
   *
   * @param packet the packet; the device owns it
   * @return false if the inbound queue was full (the packet was released)
   */
  public boolean enqueue(ByteBuf packet) {
    if (closed || !received.offer(packet, Long.MIN_VALUE)) {
      counters.incConcurrent(IbCounters.Counter.DROP_INBOUND_FULL);
      packet.release();
      return false;
    }
    return true;
  }

  @Override
  public void onPeerDown(int lid) {
    synchronized (peerDownQueue) {
      peerDownQueue.add(lid);
    }
    peerDownPending = true;
    runners.wake();
  }

  @Override
  public void onWritable(int dlid) {
    runners.wake();
  }

  // ------------------------------------------------------------------ the agent

  /**
   * One duty cycle. Runs under the agent: call it only through a runner, or from a test that owns
   * the device.
   *
   * @return work done (0 = idle)
   */
  @Override
  public int doWork() {
    working = hasPendingWork() || dirtyCount > 0; // before anything is taken from the queues
    port.beginBatch();
    try {
      return dutyCycle();
    } finally {
      port.endBatch();
      working = false;
    }
  }

  @Override
  public long untilDeadlineNanos() {
    long until = timers.any() ? Math.max(0, timers.nextDeadline() - now) : Long.MAX_VALUE;
    if (acks.any()) {
      until = Math.min(until, Math.max(0, acks.deadline() - now));
    }
    // Asked by a thread runner after its run: its plan, against which other runners' timers are
    // checked (timerDueBeforeThreadLooks).
    threadLooksBy = until == Long.MAX_VALUE ? Long.MAX_VALUE : now + until;
    return until;
  }

  /**
   * Whether a timer is due before the engine thread planned to look (under the agent, after a
   * call's or delivery's run): a thread never sleeps longer than {@code idleMaxParkNanos}, so a
   * later deadline (a 67 ms retransmit timer armed by every post) is seen in time without a
   * wake-up per post.
   */
  boolean timerDueBeforeThreadLooks() {
    return timers.any() && timers.nextDeadline() - threadLooksBy < 0
        && timers.nextDeadline() - now < params.idleMaxParkNanos;
  }

  @Override
  public boolean hasPendingWork() {
    return !inbound.isEmpty() || !doorbells.isEmpty() || peerDownPending || wakeTimer.fired() || closed
        || acks.flushRequested();
  }

  /**
   * A modelled clock's busy probe (the fabric thread): the HCA has work in hand — a duty cycle
   * with work running ({@link #working}), anything queued for one — or a reply is on its way: a
   * requester waits for an ACK on a wire that loses nothing, from a peer that lives, so its
   * retransmission deadline is not the next event. Should that reply never come (a frame the fabric dropped for back-pressure), the claim
   * lapses after {@link WakeTimer#AWAIT_WALL_LIMIT_NANOS} of wall time without a duty cycle doing work.
   */
  private boolean busy() {
    if (wakeTimer.awaitsReply() && !port.mayLose()) {
      return true;
    }
    return working || !inbound.isEmpty() || !doorbells.isEmpty() || peerDownPending || wakeTimer.fired()
        || acks.flushRequested();
  }

  private int dutyCycle() {
    long t = port.nowNanos();
    now = t;
    tx.takeSent();
    int work = 0;
    wakeTimer.cycleStarts();
    if (peerDownPending) {
      work += handlePeerDown(t);
    }
    int budget = params.receiveBudget;
    int received = 0;
    while (received < budget) {
      ByteBuf b = this.received.poll();
      if (b == null) {
        break;
      }
      working = true;
      port.taken(b);
      try {
        received += frames.receiveFrame(b, this.received.arrival(t));
      } finally {
        b.release();
      }
    }
    work += received;
    EngineQp q;
    while ((q = doorbells.poll()) != null) {
      working = true;
      q.doorbellQueued.set(false);
      markDirty(q);
      work++;
    }
    if (timers.due(t)) {
      working = true;
      // A response already queued is not lost: read what arrived before judging a timeout, so a
      // busy host (a receive budget spent, an engine run late) never declares a live peer dead.
      int heard = receiveQueued(t);
      received += heard;
      work += heard;
      work += timers.runTimers(t);
    }
    work += progressDirty(t);
    if (received > 0 && inbound.isEmpty()) {
      port.receiverCaughtUp(); // peers' timers learn that this HCA took what reached it (AckWait)
    }
    if (acks.pending()) {
      acks.endOfCycle(t, tx.sent(), clock);
    }
    if (work > 0) {
      wakeTimer.worked();
    }
    wakeTimer.plan(t, closed);
    return work;
  }

  /** Receives the frames queued now (a bounded count: later arrivals wait for the next cycle). */
  private int receiveQueued(long t) {
    int received = 0;
    for (int n = inbound.size(); n > 0; n--) {
      ByteBuf b = this.received.poll();
      if (b == null) {
        break;
      }
      port.taken(b);
      try {
        received += frames.receiveFrame(b, this.received.arrival(t));
      } finally {
        b.release();
      }
    }
    return received;
  }

  /**
   * Asks the agent to send every held ACK now (any thread): the application is about to block, or
   * stopped calling, so no answer is coming soon.
   */
  public void flushHeldAcks() {
    if (params.ackDelayNanos > 0) {
      acks.requestFlush();
      runners.wake();
    }
  }

  /** Arms (or moves earlier) the device's next deadline for {@code qp} (under the QP lock). */
  void armTimer(EngineQp qp, long deadline) {
    timers.arm(qp, deadline);
  }

  @Override
  public void packet(ByteBuf b, int at, int len, ByteBuffer view, int delta, long t) {
    try {
      receivePacket(b, at, len, view, delta, t);
    } finally {
      received.end();
      tx.answering(Long.MIN_VALUE);
    }
  }

  /**
   * Stamps a completion made while a received packet is processed with the time that packet's
   * work ended (modelled time); otherwise the CQ stamps it with the clock when it is pushed.
   */
  void stamp(WorkCompletion w) {
    long c = rxNow();
    if (c != Long.MIN_VALUE) {
      w.timestampNanos(c);
    }
  }

  /** @return while a received packet is processed (modelled time), when its work ends; else Long.MIN_VALUE */
  long rxNow() {
    return received.current();
  }

  private void receivePacket(ByteBuf b, int at, int len, ByteBuffer view, int delta, long t) {
    Packet p = rx;
    int r = p.parse(b, at, len, view, delta, icrc);
    if (r != Packet.OK) {
      counters.inc(r == Packet.BAD_CRC ? IbCounters.Counter.CRC_DROPS : IbCounters.Counter.DROP_MALFORMED);
      return;
    }
    counters.inc(IbCounters.Counter.PACKETS_RECEIVED);
    counters.add(IbCounters.Counter.BYTES_RECEIVED, p.length);
    if (port.modelledTime()) {
      // t is the packet's arrival: its work ends on the receive pipeline, which the clock never lags
      t = received.begin(t, params.packetWorkNanos(p.payloadLength));
      port.advanceTo(t);
      tx.answering(t);
    }
    if (p.pkey != Bth.DEFAULT_PKEY) {
      counters.inc(IbCounters.Counter.DROP_BAD_PKEY);
      return;
    }
    EngineQp qp = qps.lookup(p.destQp);
    if (LOG.isTraceEnabled()) {
      LOG.trace("rx lid {} <- {} qp 0x{} {} psn 0x{} qp state {}", port.localLid(), p.slid, Integer.toHexString(p.destQp),
          p.opcode, Integer.toHexString(p.psn), qp == null ? "none" : qp.owner.state());
    }
    if (qp == null) {
      counters.inc(IbCounters.Counter.DROP_UNKNOWN_QP);
      return;
    }
    if (!transportMatches(qp.type, p.opcode)) {
      counters.inc(IbCounters.Counter.DROP_BAD_TRANSPORT);
      return;
    }
    synchronized (qp.lock) {
      if (qp.destroyed) {
        counters.inc(IbCounters.Counter.DROP_UNKNOWN_QP);
        return;
      }
      try {
        qp.receive(p, t);
      } catch (RuntimeException e) {
        fault(qp, e);
      }
    }
    markDirty(qp);
  }

  private static boolean transportMatches(QpType type, Opcode op) {
    Transport t = op.transport();
    return switch (type) {
      case RC -> t == Transport.RC || t == Transport.SRQ_FC; // seed-002 stop/resend requests
      case UC -> t == Transport.UC;
      case UD -> t == Transport.UD;
      case DCI -> t == Transport.DC && op.is(Opcode.Flag.ACK) || t == Transport.SRQ_FC;
      case DCT -> t == Transport.DC && op.is(Opcode.Flag.REQ);
      default -> false;
    };
  }

  void fault(EngineQp qp, RuntimeException e) {
    counters.inc(IbCounters.Counter.ENGINE_FAULTS);
    LOG.error("engine fault on QP 0x{}; the QP goes to ERR", Integer.toHexString(qp.qpn), e);
    try {
      qp.fault();
    } catch (RuntimeException again) {
      e.addSuppressed(again);
      LOG.error("could not move QP 0x{} to ERR", Integer.toHexString(qp.qpn), again);
    }
  }

  void markDirty(EngineQp qp) {
    if (qp.dirty) {
      return;
    }
    qp.dirty = true;
    dirty = put(dirty, dirtyCount++, qp);
  }

  /** @return {@code list} with {@code qp} at {@code index}, grown (doubled) if it was full */
  static EngineQp[] put(EngineQp[] list, int index, EngineQp qp) {
    EngineQp[] l = index == list.length ? java.util.Arrays.copyOf(list, index * 2) : list;
    l[index] = qp;
    return l;
  }

  private int progressDirty(long t) {
    int n = dirtyCount;
    if (n == 0) {
      return 0;
    }
    EngineQp[] list = dirty;
    dirty = running.length >= list.length ? running : new EngineQp[list.length];
    running = list;
    dirtyCount = 0;
    int work = 0;
    for (int i = 0; i < n; i++) {
      EngineQp qp = list[i];
      list[i] = null;
      qp.dirty = false;
      boolean more;
      synchronized (qp.lock) {
        try {
          work += qp.progress(t);
        } catch (RuntimeException e) {
          fault(qp, e);
        }
        more = qp.wantsMore();
      }
      if (more) {
        markDirty(qp);
      }
    }
    return work;
  }

  private int handlePeerDown(long t) {
    peerDownPending = false;
    int work = 0;
    while (true) {
      Integer lid;
      synchronized (peerDownQueue) {
        lid = peerDownQueue.poll();
      }
      if (lid == null) {
        return work;
      }
      deadLids.set(lid);
      int high = qps.high(); // not all max_qp entries: a thousand peers closing visit each device's table
      for (int i = 0; i < high; i++) {
        EngineQp qp = qps.at(i);
        if (qp != null) {
          synchronized (qp.lock) {
            qp.peerDown(lid, t);
          }
          markDirty(qp);
          work++;
        }
      }
    }
  }

  /** Makes sure the agent will run soon (any thread; a packet, a timer, the fabric). */
  void wake() {
    runners.wake();
  }

  // ------------------------------------------------------------------ lifecycle

  /** Stops the engine thread and drops queued packets. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }

    closed = true;
    runners.close();
    wakeTimer.cancel();
    ByteBuf b;
    while ((b = inbound.poll()) != null) {
      b.release();
    }
  }
}
