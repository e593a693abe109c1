package io.github.verbs4j.ib.engine;

import io.github.verbs4j.ib.wire.Bth;
import io.github.verbs4j.ib.wire.Icrc;
import io.github.verbs4j.ib.wire.Lrh;
import io.github.verbs4j.ib.wire.Opcode;
import io.github.verbs4j.ib.wire.Opcode.Transport;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.spi.AbstractProtectionDomain;
import io.github.verbs4j.verbs.spi.ReceiveQueue;
import io.github.verbs4j.verbs.spi.RecvWqe;
import io.github.verbs4j.verbs.spi.SoftCompletionQueue;
import io.github.verbs4j.verbs.spi.SoftSharedReceiveQueue;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The simulated HCA: an agent (Agrona's {@code Agent}) whose {@link #doWork()} runs one duty
 * cycle — take received packets and hand each to its QP's responder or completer, look at QPs
 * whose doorbell rang, fire expired timers, and let every QP with pending work run its requester,
 * completer and responder. The clock is read once per cycle.
 *
 * <p>Threading ({@link IbParams.Threading}): by default one engine thread runs the agent, with a
 * spin-yield-park idle strategy that never parks past the next timer; producers (posts, packet
 * arrivals) unpark it only when it is parked. In {@code CALLER} mode there is no thread: the thread
 * that rings a doorbell, delivers a packet, polls a CQ or fires a timer runs the agent until it is
 * idle, under a try-lock that makes sure two threads never run it at once — with the fabric's
 * deterministic mode this gives fully reproducible runs.
 *
 * <p>Locks: the agent (one runner at a time), then per QP the owner's monitor, then CQ and SRQ
 * monitors. The verbs layer takes a QP monitor but never the agent, so there is no cycle.
 */
public final class IbDevice implements PacketPort.Receiver, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(IbDevice.class);
  /** The first QP number handed out (0 and 1 are the special QPs). */
  public static final int FIRST_QPN = 0x100;
  private static final int IDLE = 0;
  private static final int BUSY = 1;
  private static final int ARMED = 2;

  final PacketPort port;
  final IbParams params;
  final IbCounters counters = new IbCounters();
  private final MpscArrayQueue<ByteBuf> inbound;
  private final MpscArrayQueue<EngineQp> doorbells;
  private final AtomicReferenceArray<EngineQp> table;
  private final boolean[] reserved;
  private int nextIndex;

  // Engine-only state (under the agent).
  final Packet rx = new Packet();
  /** Smallest payload {@link #newPacket(Opcode, int, int)} builds in a train (smaller ones are cheap to copy). */
  static final int IN_TRAIN_PAYLOAD = 1024;
  /** Where the packet {@link #newPacket} last returned starts in its buffer. */
  int txBase;
  private boolean txInTrain;
  final Icrc icrc = new Icrc();
  final WorkCompletion wc = new WorkCompletion();
  final RecvWqe recvScratch = new RecvWqe();
  private final PacketPool packets;
  final ByteBuffer atomicScratch = ByteBuffer.allocateDirect(8).order(ByteOrder.LITTLE_ENDIAN);
  private ByteBuffer copyScratch = ByteBuffer.allocateDirect(8192);
  // receiveFrame, a frame in several read buffers: where each buffer's view began, and its length
  private int[] partPos = new int[8];
  private int[] partLen = new int[8];
  long now;
  private EngineQp[] dirty = new EngineQp[64];
  private int dirtyCount;
  private EngineQp[] running = new EngineQp[64];
  private EngineQp[] timed = new EngineQp[16];
  private int timedCount;
  private boolean anyTimer;
  // ACK holds (Responder): the QPs whose responder holds one, the earliest deadline among them,
  // whether this duty cycle sent a packet and whether it runs on an application's thread (engine
  // only); a request to send every held ACK now (any thread); whether the port tells us when the
  // application stops calling (CALLER mode holds need that).
  private EngineQp[] ackHolders = new EngineQp[16];
  private int ackHolderCount;
  private long ackDeadline;
  private boolean newHolds;
  private boolean sentThisCycle;
  private boolean appDriven;
  private volatile boolean flushHeldAcks;
  private final boolean callersIdleKnown;
  private long nextDeadline;
  private final BitSet deadLids = new BitSet();
  private final ArrayDeque<Integer> peerDownQueue = new ArrayDeque<>();
  private volatile boolean peerDownPending;

  // Agent and wake-up.
  private final AtomicInteger agent = new AtomicInteger();
  private final BackoffIdleStrategy idle;
  private final BooleanSupplier parkGate = this::readyToPark;
  private volatile Thread engineThread;
  private volatile boolean parked;
  private volatile boolean closed;
  private boolean wakeScheduled;
  private long wakeDeadline;
  private PacketPort.Timer wakeTimer;
  private volatile boolean wakeFired;
  private final Runnable wakeTask = this::onWakeTimer;
  private final java.util.function.IntSupplier untilIdle = this::workUntilIdle;
  // CALLER mode: the thread running the agent (runInline), and whether this pass's duty cycles ran.
  private Thread agentThread;
  private boolean workRan;
  // DEDICATED with inline delivery: a delivering thread runs the agent (deliveryRun, under the
  // agent); the engine thread plans to wake by engineDeadline (port clock, under the agent).
  private final boolean inlineDelivery;
  // DEDICATED with inline calls: an application's post or poll runs the agent (see IbParams).
  private final boolean inlineCalls;
  private final java.util.function.IntSupplier callWork = this::runCalled;
  // The application thread whose poll is driving the fabric's I/O (packets it delivers wait for the
  // poll's own run of the engine); a racy hint: another poller may overwrite it, which only costs
  // that poll the ACK hold.
  private volatile Thread pollingThread;
  // Other threads may run the agent, so the engine thread takes it too (inline delivery or calls).
  private final boolean shared;
  private boolean deliveryRun;
  private long engineDeadline = Long.MAX_VALUE;
  /** Most duty cycles a delivering thread runs before it leaves the rest to the engine thread. */
  static final int DELIVERY_CYCLES = 16;

  /**
   * @param port the wire
   * @param params limits and engine parameters
   */
  public IbDevice(PacketPort port, IbParams params) {
    this.port = port;
    this.params = params;
    this.inbound = new MpscArrayQueue<>(params.inboundQueue);
    this.doorbells = new MpscArrayQueue<>(Math.max(64, params.maxQp));
    this.table = new AtomicReferenceArray<>(params.maxQp);
    this.reserved = new boolean[params.maxQp];
    this.packets = new PacketPool(port.alloc(), PacketPool.MAX_SMALL, PacketPool.MAX_LARGE);
    this.inlineDelivery = params.threading == IbParams.Threading.DEDICATED && params.inlineDelivery;
    this.inlineCalls = params.threading == IbParams.Threading.DEDICATED && params.inlineCalls;
    this.shared = inlineDelivery || inlineCalls;
    this.idle = new BackoffIdleStrategy(params.idleSpins, params.idleYields, params.idleMinParkNanos,
        params.idleMaxParkNanos);
    port.bind(this);
    callersIdleKnown = (params.threading == IbParams.Threading.CALLER || inlineCalls) && params.ackDelayNanos > 0
        && port.onCallersIdle(this::flushHeldAcks);
  }

  /** Starts the engine thread ({@code DEDICATED} mode; does nothing in {@code CALLER} mode). */
  public void start() {
    if (params.threading != IbParams.Threading.DEDICATED || engineThread != null) {
      return;
    }
    // A FastThreadLocalThread: Netty's buffer recycler and pool caches serve it without misses
    // (on plain threads each packet buffer's wrapper object is new).
    Thread t = new io.netty.util.concurrent.FastThreadLocalThread(this::runLoop, "verbs4j-ib-engine-lid" + port.localLid());
    t.setDaemon(true);
    engineThread = t;
    t.start();
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

  /** @return the agent's role name */
  public String roleName() {
    return "ib-hca-lid" + port.localLid();
  }

  // ------------------------------------------------------------------ QPs

  /**
   * Reserves a QP number.
   *
   * @return the QP number
   * @throws IllegalStateException if {@code maxQp} QPs exist
   */
  public synchronized int allocateQpn() {
    int n = reserved.length;
    for (int i = 0; i < n; i++) {
      int idx = (nextIndex + i) % n;
      if (!reserved[idx]) {
        reserved[idx] = true;
        nextIndex = (idx + 1) % n; // rotate, so a stale packet rarely meets a reused number
        return FIRST_QPN + idx;
      }
    }
    throw new IllegalStateException("max_qp=" + n + " QPs exist");
  }

  /** @param qpn a number from {@link #allocateQpn} that will not be attached after all */
  public synchronized void releaseQpn(int qpn) {
    int idx = qpn - FIRST_QPN;
    if (table.get(idx) == null) {
      reserved[idx] = false;
    }
  }

  /**
   * Creates the engine context of a QP with a reserved number.
   *
   * @param qpn the reserved number
   * @param owner the verbs QP (its monitor is the QP lock)
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
    table.set(qpn - FIRST_QPN, qp);
    return qp;
  }

  synchronized void detach(EngineQp qp) {
    int idx = qp.qpn - FIRST_QPN;
    if (table.get(idx) == qp) {
      table.set(idx, null);
      reserved[idx] = false;
    }
  }

  private EngineQp lookup(int qpn) {
    int idx = qpn - FIRST_QPN;
    if (idx < 0 || idx >= reserved.length) {
      return null;
    }
    EngineQp qp = table.get(idx);
    return qp != null && qp.qpn == qpn ? qp : null;
  }

  /** @param qp a QP whose doorbell rang (an application thread: a post) */
  void doorbell(EngineQp qp) {
    if (qp.doorbellQueued.compareAndSet(false, true)) {
      if (!doorbells.offer(qp)) {
        qp.doorbellQueued.set(false);
        LOG.warn("doorbell queue full; QP 0x{} will be looked at by the next duty cycle", Integer.toHexString(qp.qpn));
      }
    }
    if (inlineCalls && qp.soleOutstanding()) {
      port.progress(callWork, false);
    } else {
      wake(true);
    }
  }

  /**
   * An application's CQ poll: in {@code CALLER} mode it runs the agent (and the fabric's I/O) until
   * idle; in {@code DEDICATED} mode with inline calls it lets the fabric deliver what arrived and
   * runs the agent if no other thread is running it; else nothing (the engine thread works).
   */
  public void onPoll() {
    if (params.threading == IbParams.Threading.CALLER) {
      runInline(true, true);
    } else if (inlineCalls) {
      Thread me = Thread.currentThread();
      pollingThread = me;
      try {
        port.progress(callWork, true);
      } finally {
        if (pollingThread == me) {
          pollingThread = null;
        }
      }
    }
  }

  /** @return whether application threads drive the agent and the fabric's progress (CALLER, inline calls) */
  public boolean callsDrive() {
    return params.threading == IbParams.Threading.CALLER || inlineCalls;
  }

  /**
   * A doorbell rung under the QP lock before a new state is published (modify): queued only, so
   * that no engine work runs inline on a state about to change; a later post, poll or packet runs
   * it in {@code CALLER} mode, the engine thread in {@code DEDICATED} mode.
   */
  void doorbellDeferred(EngineQp qp) {
    if (qp.doorbellQueued.compareAndSet(false, true) && !doorbells.offer(qp)) {
      qp.doorbellQueued.set(false);
    }
    if (params.threading != IbParams.Threading.CALLER && parked) {
      Thread t = engineThread;
      if (t != null) {
        LockSupport.unpark(t);
      }
    }
  }

  boolean isDead(int lid) {
    return deadLids.get(lid);
  }

  // ------------------------------------------------------------------ port upcalls

  @Override
  public void onPacket(int slid, ByteBuf packet) {
    if (closed || !inbound.offer(packet)) {
      counters.incConcurrent(IbCounters.Counter.DROP_INBOUND_FULL);
      packet.release();
      return;
    }
    if (pollingThread == Thread.currentThread()) {
      return; // a poll's I/O: the poll runs the engine next, as the application (its ACKs may wait for a reply)
    }
    if (inlineDelivery && agent.compareAndSet(IDLE, BUSY)) {
      runBorrowed(false);
      return;
    }
    wake();
  }

  /** Inline calls: runs the agent on the application's thread if no other thread runs it. */
  private int runCalled() {
    if (!agent.compareAndSet(IDLE, BUSY)) {
      return 0; // the runner takes the doorbell; a delivering thread wakes the engine thread for it
    }
    return runBorrowed(true);
  }

  /**
   * {@code DEDICATED} with inline delivery or inline calls: the thread that delivered a packet, or
   * an application thread in a verbs call, runs the agent (it took it from {@code IDLE}) for at
   * most {@link #DELIVERY_CYCLES} duty cycles, instead of waking the engine thread for it — no
   * thread hand-off between the wire, the application and the engine. The engine thread is woken
   * when work is left, or when a timer now comes due before the time it planned to wake.
   *
   * @param app whether an application's verbs call runs it (its responders may hold ACKs when the
   *     fabric says when callers stop: {@link #mayHoldAck})
   * @return work done
   */
  private int runBorrowed(boolean app) {
    boolean more = false;
    boolean earlier = false;
    int work = 0;
    deliveryRun = true;
    appDriven = app;
    try {
      int cycles = 0;
      int w;
      while ((w = doWork()) > 0) {
        work += w;
        if (++cycles >= DELIVERY_CYCLES) {
          more = true;
          break;
        }
      }
      // Wake the engine thread only for a timer due before it would look anyway: it never parks
      // longer than idleMaxParkNanos, so a later deadline (a 67 ms retransmit timer armed by
      // every post) is seen in time without a wake-up per post.
      earlier = anyTimer && nextDeadline - engineDeadline < 0 && nextDeadline - now < params.idleMaxParkNanos;
    } catch (RuntimeException | Error e) {
      LOG.error("engine duty cycle failed ({} thread)", app ? "application" : "delivering", e);
    } finally {
      deliveryRun = false;
      appDriven = false;
      agent.set(IDLE);
    }
    if (more || earlier || !inbound.isEmpty() || !doorbells.isEmpty()) {
      Thread t = engineThread;
      if (t != null) {
        LockSupport.unpark(t);
      }
    }
    return work;
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
    if (closed || !inbound.offer(packet)) {
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
    wake();
  }

  @Override
  public void onWritable(int dlid) {
    wake();
  }

  // ------------------------------------------------------------------ the agent

  /**
   * One duty cycle. Runs under the agent: call it only through the engine thread, {@link
   * #runInline()}, or from a test that owns the device.
   *
   * @return work done (0 = idle)
   */
  public int doWork() {
    port.beginBatch();
    try {
      return dutyCycle();
    } finally {
      port.endBatch();
    }
  }

  private int dutyCycle() {
    long t = port.nowNanos();
    now = t;
    sentThisCycle = false;
    int work = 0;
    if (wakeFired) {
      wakeFired = false;
      wakeScheduled = false;
    }
    if (peerDownPending) {
      work += handlePeerDown(t);
    }
    int budget = params.receiveBudget;
    int received = 0;
    while (received < budget) {
      ByteBuf b = inbound.poll();
      if (b == null) {
        break;
      }
      try {
        received += receiveFrame(b, t);
      } finally {
        b.release();
      }
    }
    work += received;
    EngineQp q;
    while ((q = doorbells.poll()) != null) {
      q.doorbellQueued.set(false);
      markDirty(q);
      work++;
    }
    if (anyTimer && t - nextDeadline >= 0) {
      work += runTimers(t);
    }
    work += progressDirty(t);
    if (ackHolderCount > 0 || flushHeldAcks) {
      releaseAcks(t);
    }
    scheduleWake(t);
    return work;
  }

  /**
   * Whether a responder may hold an ACK now: always on the engine thread; in {@code CALLER} mode,
   * and with inline calls, only when an application thread runs the agent (it returns to the application, which may
   * answer at once) — not when the fabric's thread delivers packets nobody is waiting for — and
   * the port says when the application stops calling ({@link PacketPort#onCallersIdle}: then the
   * held ACKs leave, {@link #flushHeldAcks}). A port timer per hold would cost more than the
   * frame a hold saves.
   */
  boolean mayHoldAck() {
    if (params.threading != IbParams.Threading.CALLER && !deliveryRun) {
      return true; // the engine thread: its deadline covers its holds
    }
    // A delivering thread's deadline would not; an application's call may hold (CALLER mode or
    // inline calls): the fabric flushes held ACKs when calls stop.
    return appDriven && callersIdleKnown;
  }

  /**
   * A responder holds an ACK until this device sends a packet or until its deadline, which runs
   * from the end of this duty cycle (under the QP lock, engine only).
   */
  void holdAck(EngineQp qp) {
    newHolds = true;
    if (!qp.inAckHolders) {
      qp.inAckHolders = true;
      ackHolders = put(ackHolders, ackHolderCount++, qp);
    }
  }

  /**
   * End of a duty cycle: if it sent a packet, held ACKs leave now and join the frames being built;
   * a hold whose time ran out leaves alone; ACKs no longer held (another response sent them) leave
   * the list.
   */
  private void releaseAcks(long t) {
    boolean release = sentThisCycle;
    boolean flush = flushHeldAcks;
    if (flush) {
      flushHeldAcks = false;
    }
    long end = 0;
    if (newHolds) {
      newHolds = false;
      end = port.nowNanos();
    }
    long earliest = 0;
    int w = 0;
    for (int i = 0; i < ackHolderCount; i++) {
      EngineQp qp = ackHolders[i];
      boolean keep;
      synchronized (qp.owner) {
        Responder r = qp.responder;
        if (!qp.destroyed && r.ackHeld()) {
          if (release) {
            r.releaseHeldAck();
          } else if (flush) {
            r.expireHeldAck();
          } else {
            r.startHold(end);
            if (t - r.ackDeadline() >= 0) {
              r.expireHeldAck();
            }
          }
        }
        keep = !qp.destroyed && r.ackHeld();
        if (keep) {
          long d = r.ackDeadline();
          if (w == 0 || d - earliest < 0) {
            earliest = d;
          }
        } else {
          qp.inAckHolders = false;
        }
      }
      if (keep) {
        ackHolders[w++] = qp;
      }
    }
    for (int i = w; i < ackHolderCount; i++) {
      ackHolders[i] = null;
    }
    ackHolderCount = w;
    ackDeadline = earliest;
  }

  /**
   * Asks the agent to send every held ACK now (any thread): the application is about to block, or
   * stopped calling, so no answer is coming soon.
   */
  public void flushHeldAcks() {
    if (params.ackDelayNanos > 0) {
      flushHeldAcks = true;
      wake();
    }
  }

  /**
   * One frame from the port: a packet, or a train of packets back to back (each as long as its LRH
   * says; a length that does not fit ends the train and the rest is dropped as malformed). One
   * buffer view serves the ICRC and payload reads of all its packets. A frame that spanned socket
   * reads is a slice of several buffers: each packet that lies in one of them is read through a
   * view of that buffer, and only a packet cut by a buffer boundary is read through the frame (its
   * payload copied once to scratch), instead of copying the whole frame into one buffer first.
   *
   * @return the packets taken (at least 1)
   */
  private int receiveFrame(ByteBuf frame, long t) {
    int at = frame.readerIndex();
    int end = frame.writerIndex();
    ByteBuffer view = null;
    int delta = 0;
    ByteBuffer[] parts = null;
    if (end > at) {
      if (frame.nioBufferCount() == 1) {
        view = viewOf(frame, at, end - at);
        delta = view.position() - at;
      } else {
        parts = frame.nioBuffers(at, end - at);
        if (parts.length == 1) {
          view = parts[0];
          delta = view.position() - at;
          parts = null;
        } else {
          // The views' positions and limits move as packets are read: keep where each began.
          if (partPos.length < parts.length) {
            partPos = new int[parts.length * 2];
            partLen = new int[parts.length * 2];
          }
          for (int i = 0; i < parts.length; i++) {
            partPos[i] = parts[i].position();
            partLen[i] = parts[i].remaining();
          }
        }
      }
    }
    int first = Lrh.trainPacketBytes(frame, at, end);
    if (parts == null && (first == end - at || first < 0)) {
      receive(frame, at, end - at, view, delta, t); // one packet (a bad one is counted by parse)
      return 1;
    }
    if (first < 0) {
      first = end - at; // one bad packet: parse counts it
    }
    int n = 0;
    int len = first;
    int part = 0;
    int partStart = at; // the frame index where parts[part] begins
    while (true) {
      if (parts != null) {
        while (at >= partStart + partLen[part]) {
          partStart += partLen[part];
          part++;
        }
        boolean whole = at + len <= partStart + partLen[part];
        view = whole ? parts[part] : null;
        delta = whole ? partPos[part] - partStart : 0;
      }
      receive(frame, at, len, view, delta, t);
      at += len;
      n++;
      if (at >= end) {
        return n;
      }
      len = Lrh.trainPacketBytes(frame, at, end);
      if (len < 0) {
        counters.inc(IbCounters.Counter.DROP_MALFORMED);
        return n;
      }
    }
  }

  /**
   * A view of {@code len} bytes at {@code at} of a frame held in one buffer. A frame is usually a
   * slice of the fabric's read buffer, and a slice makes a new NIO buffer (two objects) for every
   * view; the read buffer keeps one internal view with it (pooled buffers recycle it), so the view
   * comes from there when the slice is a window on it. Only the thread running the agent reads
   * frames, and nothing else takes the read buffer's internal view.
   */
  private static ByteBuffer viewOf(ByteBuf frame, int at, int len) {
    ByteBuf root = frame.unwrap();
    if (root != null && root.nioBufferCount() == 1 && frame.hasMemoryAddress() && root.hasMemoryAddress()) {
      long start = frame.memoryAddress() - root.memoryAddress() + at;
      if (start >= 0 && start + len <= root.capacity()) {
        return root.internalNioBuffer((int) start, len);
      }
    }
    return frame.internalNioBuffer(at, len);
  }

  private void receive(ByteBuf b, int at, int len, ByteBuffer view, int delta, long t) {
    Packet p = rx;
    int r = p.parse(b, at, len, view, delta, icrc);
    if (r != Packet.OK) {
      counters.inc(r == Packet.BAD_CRC ? IbCounters.Counter.CRC_DROPS : IbCounters.Counter.DROP_MALFORMED);
      return;
    }
    counters.inc(IbCounters.Counter.PACKETS_RECEIVED);
    counters.add(IbCounters.Counter.BYTES_RECEIVED, p.length);
    chargePacket(p.payloadLength);
    if (p.pkey != Bth.DEFAULT_PKEY) {
      counters.inc(IbCounters.Counter.DROP_BAD_PKEY);
      return;
    }
    EngineQp qp = lookup(p.destQp);
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
    synchronized (qp.owner) {
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
      case RC -> t == Transport.RC;
      case UC -> t == Transport.UC;
      case UD -> t == Transport.UD;
      case DCI -> t == Transport.DC && op.is(Opcode.Flag.ACK);
      case DCT -> t == Transport.DC && op.is(Opcode.Flag.REQ);
      default -> false;
    };
  }

  private void fault(EngineQp qp, RuntimeException e) {
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
  private static EngineQp[] put(EngineQp[] list, int index, EngineQp qp) {
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
      synchronized (qp.owner) {
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

  /** Arms (or moves earlier) the device's next deadline for {@code qp} (under the QP lock). */
  void armTimer(EngineQp qp, long deadline) {
    if (!qp.inTimerList) {
      qp.inTimerList = true;
      timed = put(timed, timedCount++, qp);
    }
    if (!anyTimer || deadline - nextDeadline < 0) {
      anyTimer = true;
      nextDeadline = deadline;
    }
  }

  private int runTimers(long t) {
    int work = 0;
    int w = 0;
    boolean any = false;
    long next = 0;
    int n = timedCount;
    for (int i = 0; i < n; i++) {
      EngineQp qp = timed[i];
      boolean keep;
      synchronized (qp.owner) {
        try {
          if (qp.fireTimers(t)) {
            work++;
            markDirty(qp);
          }
        } catch (RuntimeException e) {
          fault(qp, e);
        }
        keep = qp.timerArmed();
        if (keep) {
          long d = qp.nextDeadline();
          if (!any || d - next < 0) {
            next = d;
            any = true;
          }
        }
      }
      if (keep) {
        timed[w++] = qp;
      } else {
        qp.inTimerList = false;
      }
    }
    // Timers armed while firing (a retry re-arms) were appended past n.
    for (int i = n; i < timedCount; i++) {
      EngineQp qp = timed[i];
      timed[w++] = qp;
      if (qp.timerArmed()) {
        long d = qp.nextDeadline();
        if (!any || d - next < 0) {
          next = d;
          any = true;
        }
      }
    }
    for (int i = w; i < timedCount; i++) {
      timed[i] = null;
    }
    timedCount = w;
    anyTimer = any;
    nextDeadline = next;
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
      for (int i = 0; i < table.length(); i++) {
        EngineQp qp = table.get(i);
        if (qp != null) {
          synchronized (qp.owner) {
            qp.peerDown(lid, t);
          }
          markDirty(qp);
          work++;
        }
      }
    }
  }

  /** Needs a port timer to wake the agent (no engine thread, or a clock that only moves with events). */
  private void scheduleWake(long t) {
    if (!anyTimer || closed) {
      return;
    }
    if (params.threading != IbParams.Threading.CALLER && !port.modelledTime()) {
      return;
    }
    if (wakeScheduled && nextDeadline - wakeDeadline >= 0) {
      return;
    }
    if (wakeScheduled && wakeTimer != null) {
      wakeTimer.cancel();
    }
    wakeScheduled = true;
    wakeDeadline = nextDeadline;
    wakeTimer = port.schedule(Math.max(0, nextDeadline - t), wakeTask);
  }

  private void onWakeTimer() {
    wakeFired = true;
    wake();
  }

  /** Makes sure the agent will run soon (any thread; a packet, a timer, the fabric). */
  void wake() {
    wake(false);
  }

  /**
   * Makes sure the agent will run soon.
   *
   * @param app whether an application thread calls (a verbs call, which returns to the
   *     application afterwards)
   */
  private void wake(boolean app) {
    if (params.threading == IbParams.Threading.CALLER) {
      runInline(app, !app);
    } else if (parked) {
      Thread t = engineThread;
      if (t != null) {
        LockSupport.unpark(t);
      }
    }
  }

  /**
   * Runs the agent on the calling thread until it is idle, unless another thread is running it,
   * in which case that thread is told to go round once more ({@code CALLER} mode). For verbs calls
   * (a poll): the agent runs as the application's, so responders may hold ACKs.
   */
  public void runInline() {
    runInline(true, true);
  }

  /**
   * @param app whether an application's verbs call runs it
   * @param pollWire whether to let the wire deliver first (not for a post: what it sends leaves at
   *     once, and the application's next poll reads the wire — one system call less per message)
   */
  private void runInline(boolean app, boolean pollWire) {
    Thread me = Thread.currentThread();
    while (true) {
      int s = agent.get();
      if (s == IDLE) {
        if (agent.compareAndSet(IDLE, BUSY)) {
          break;
        }
      } else if (s == BUSY) {
        if (agentThread == me && !workRan) {
          // A packet the fabric's I/O delivered on this thread before the duty cycles of this
          // pass: they will take it; another pass (another poll of the sockets) would be wasted.
          return;
        }
        if (agent.compareAndSet(BUSY, ARMED)) {
          return;
        }
      } else {
        return;
      }
    }
    appDriven = app;
    try {
      while (true) {
        agent.set(BUSY);
        agentThread = me;
        workRan = false;
        port.progress(untilIdle, pollWire);
        agentThread = null;
        if (agent.compareAndSet(BUSY, IDLE)) {
          return;
        }
      }
    } catch (RuntimeException | Error e) {
      agentThread = null;
      agent.set(IDLE);
      throw e;
    }
  }

  /** Duty cycles until one finds nothing to do (under the agent). */
  private int workUntilIdle() {
    int total = 0;
    int w;
    while ((w = doWork()) > 0) {
      total += w;
    }
    workRan = true;
    return total;
  }

  private boolean readyToPark() {
    parked = true;
    if (!inbound.isEmpty() || !doorbells.isEmpty() || peerDownPending || wakeFired || closed) {
      parked = false;
      return false;
    }
    return true;
  }

  private void runLoop() {
    while (!closed) {
      int work = 0;
      long until = Long.MAX_VALUE;
      // With inline delivery a delivering thread may hold the agent; then this thread idles (the
      // other runs until idle and wakes it if work is left).
      if (!shared || agent.compareAndSet(IDLE, BUSY)) {
        try {
          work = doWork();
        } catch (RuntimeException | Error e) {
          LOG.error("engine duty cycle failed", e);
        }
        until = anyTimer ? Math.max(0, nextDeadline - now) : Long.MAX_VALUE;
        if (ackHolderCount > 0) {
          until = Math.min(until, Math.max(0, ackDeadline - now));
        }
        engineDeadline = until == Long.MAX_VALUE ? Long.MAX_VALUE : now + until;
        if (shared) {
          agent.set(IDLE);
        }
      }
      idle.idle(work, until, parkGate);
      parked = false;
    }
  }

  // ------------------------------------------------------------------ packets out

  /**
   * A buffer for one packet of {@code op} with {@code payload} bytes; headers are written at their
   * absolute offsets (the packet starts at index 0), the payload at {@code op.headerLength()}.
   */
  ByteBuf newPacket(Opcode op, int payload) {
    txBase = 0;
    txInTrain = false;
    return packets.allocate(op.headerLength() + payload + Bth.padFor(payload) + Icrc.LENGTH);
  }

  /**
   * {@link #newPacket(Opcode, int)} for a packet to {@code dlid}: one with at least {@link
   * #IN_TRAIN_PAYLOAD} bytes of payload is built straight in the port's train to that LID when the
   * port builds one ({@link PacketPort#trainRoom}), so its payload is copied once, from memory into
   * the frame. The packet starts at {@link #txBase} of the returned buffer; give it to {@link
   * #send(ByteBuf, int, Opcode, int, int, int, int, boolean, boolean, int)} or {@link #discard}.
   */
  ByteBuf newPacket(Opcode op, int payload, int dlid) {
    if (payload >= IN_TRAIN_PAYLOAD) {
      int total = op.headerLength() + payload + Bth.padFor(payload) + Icrc.LENGTH;
      ByteBuf train = port.trainRoom(dlid, total);
      if (train != null) {
        txBase = train.writerIndex();
        txInTrain = true;
        train.ensureWritable(total);
        return train;
      }
    }
    return newPacket(op, payload);
  }

  /** Gives up the packet {@link #newPacket} just returned (a train's room is simply not used). */
  void discard(ByteBuf b) {
    if (!txInTrain) {
      b.release();
    }
  }

  /** Writes LRH, BTH, pad and ICRC and hands the packet to the port (which then owns it). */
  void send(ByteBuf b, Opcode op, int dlid, int sl, int destQp, int psn, boolean se, boolean ackReq, int payload) {
    send(b, 0, op, dlid, sl, destQp, psn, se, ackReq, payload);
  }

  /** {@link #send(ByteBuf, Opcode, int, int, int, int, boolean, boolean, int)} of a packet at {@code base}. */
  void send(ByteBuf b, int base, Opcode op, int dlid, int sl, int destQp, int psn, boolean se, boolean ackReq,
      int payload) {
    int hdr = op.headerLength();
    int pad = Bth.padFor(payload);
    int end = base + hdr + payload + pad;
    for (int i = 0; i < pad; i++) {
      b.setByte(base + hdr + payload + i, 0);
    }
    int total = end - base + Icrc.LENGTH;
    boolean withIcrc = params.icrc == IbParams.IcrcMode.ON
        || (params.icrc == IbParams.IcrcMode.AUTO && port.mayCorrupt());
    Lrh.write(b, base, 0, sl, dlid, port.localLid(), total, !withIcrc);
    Bth.write(b, base + Lrh.LENGTH, op.value(), se, pad, Bth.DEFAULT_PKEY, destQp, ackReq, psn);
    if (withIcrc) {
      icrc.write(b, base, end);
    } else {
      b.setInt(end, 0);
    }
    b.writerIndex(base + total);
    if (LOG.isTraceEnabled()) {
      LOG.trace("tx lid {} -> {} qp 0x{} {} psn 0x{}", port.localLid(), dlid, Integer.toHexString(destQp), op,
          Integer.toHexString(psn));
    }
    counters.inc(IbCounters.Counter.PACKETS_SENT);
    counters.add(IbCounters.Counter.BYTES_SENT, total);
    sentThisCycle = true;
    chargePacket(payload);
    if (!port.transmit(dlid, b)) {
      counters.inc(IbCounters.Counter.DROP_PORT_REFUSED);
    }
  }

  private void chargePacket(int payload) {
    if (port.modelledTime()) {
      port.charge(params.modelPacketNanos + payload * 1000L / params.modelDmaMbPerSec);
    }
  }

  /** The payload of a parsed packet as a ByteBuffer (position = first byte), no copy if possible. */
  ByteBuffer payload(Packet p, int len) {
    ByteBuffer v = p.view;
    if (v != null) {
      int pos = p.payloadOffset + p.viewDelta;
      v.limit(pos + len).position(pos);
      return v;
    }
    if (p.buf.nioBufferCount() == 1) {
      return p.buf.internalNioBuffer(p.payloadOffset, len);
    }
    return copyToScratch(p.buf, p.payloadOffset, len);
  }

  ByteBuffer copyToScratch(ByteBuf src, int at, int len) {
    if (copyScratch.capacity() < len) {
      copyScratch = ByteBuffer.allocateDirect(Integer.highestOneBit(len) << 1);
    }
    ByteBuffer s = copyScratch;
    s.clear().limit(len);
    src.getBytes(at, s);
    s.flip();
    return s;
  }

  // ------------------------------------------------------------------ lifecycle

  /** Stops the engine thread and drops queued packets. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }

    closed = true;
    Thread t = engineThread;
    if (t != null) {
      LockSupport.unpark(t);
      try {
        t.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (wakeTimer != null) {
      wakeTimer.cancel();
    }
    ByteBuf b;
    while ((b = inbound.poll()) != null) {
      b.release();
    }
  }
}
