package io.github.verbs4j.ib.engine;

import io.github.verbs4j.verbs.spi.runtime.AgentLock;
import io.github.verbs4j.verbs.spi.runtime.EngineThread;
import io.github.verbs4j.verbs.spi.runtime.IoWait;
import io.github.verbs4j.verbs.spi.runtime.Threading;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who runs a device's agent ({@link IbDevice}), by {@link Threading} mode; every runner takes the
 * agent's {@link AgentLock} first and tells the {@link AckPolicy} who it is.
 *
 * <ul>
 *   <li>an {@link EngineThread} ({@code dedicated}: one per device; {@code shared}: one for the
 *       JVM) — runs the agent when no other thread does and sleeps when all is idle;
 *   <li>an application's post or CQ poll ({@code dedicated}, {@code invoker}) — inside the port's
 *       progress, so the call also does the fabric's socket I/O: in {@code dedicated} mode it runs
 *       the agent for at most {@link #BORROWED_CYCLES} duty cycles if it is free; in {@code
 *       invoker} mode (no thread) until it is idle, arming the running thread if another runs it;
 *   <li>the thread that delivers a packet ({@code dedicated}, {@code shared}: if the agent is free,
 *       instead of handing the packet over; {@code invoker}: as a call would, without ACK holds);
 *   <li>on a crowded host ({@link IbParams#waitInWire}), an application thread that waits for a
 *       completion ({@link #await}): it blocks in the fabric's I/O and runs the agent after each
 *       wake-up, so the frame that ends its wait is read, processed and completed on the one thread
 *       it wakes, instead of waking the fabric's thread, then the engine's or the application's.
 * </ul>
 *
 * A call or delivery that leaves work, or arms a timer due before the thread planned to look,
 * wakes the thread.
 */
final class DeviceRunners {
  private static final Logger LOG = LoggerFactory.getLogger(DeviceRunners.class);
  /** Most duty cycles a call or a delivering thread runs before it leaves the rest to the thread. */
  static final int BORROWED_CYCLES = 16;

  private final IbDevice dev;
  private final PacketPort port;
  private final AgentLock lock;
  private final AckPolicy acks;
  private final Threading mode;
  private final boolean callsRun;
  private EngineThread thread;
  private final IntSupplier callWork = this::runCalled;
  private final IntSupplier untilIdle = this::workUntilIdle;
  private final IntSupplier awaitWork;
  private final boolean waitInWire;
  private final IoWait ioWait;
  // invoker: the thread running the agent in runInvoked, and whether this pass's duty cycles ran
  private Thread invokingThread;
  private boolean workRan;
  // The application thread whose poll drives the fabric's I/O (packets it delivers wait for the
  // poll's own run of the engine); a racy hint: another poller may overwrite it, which only costs
  // that poll the ACK hold.
  private volatile Thread pollingThread;

  DeviceRunners(IbDevice dev, PacketPort port, AgentLock lock, AckPolicy acks, Threading mode) {
    this.dev = dev;
    this.port = port;
    this.lock = lock;
    this.acks = acks;
    this.mode = mode;
    this.callsRun = mode.callsRunAgent();
    this.waitInWire = callsRun && dev.params.waitInWire;
    this.awaitWork = mode == Threading.INVOKER ? this::runAwaitInvoked : callWork;
    this.ioWait = new IoWait(port::awaitWire, awaitWork, this::flushHeldAcks);
    // Without a thread nothing bounds a hold but the callers: runs that are not calls hold none.
    acks.runBy(mode == Threading.INVOKER ? AckPolicy.Run.DELIVERY : AckPolicy.Run.THREAD);
  }

  /** Starts the engine thread (none in {@code invoker} mode). */
  void start() {
    if (mode == Threading.INVOKER || thread != null) {
      return;
    }
    IbParams p = dev.params;
    BackoffIdleStrategy idle = new BackoffIdleStrategy(p.idleSpins, p.idleYields, p.idleMinParkNanos,
        Math.max(p.idleMinParkNanos, p.idleMaxParkNanos));
    long maxSleep = Math.max(p.idleMinParkNanos, p.idleMaxParkNanos);
    // A FastThreadLocalThread: Netty's buffer recycler and pool caches serve it without misses.
    if (mode == Threading.SHARED) {
      thread = EngineThread.joinShared(dev, idle, maxSleep, "verbs4j-engine-shared", DeviceRunners::engineThread);
    } else {
      thread = new EngineThread(idle, maxSleep, "verbs4j-ib-engine-lid" + port.localLid(), DeviceRunners::engineThread,
          dev);
    }
  }

  private static Thread engineThread(Runnable r) {
    Thread t = new FastThreadLocalThread(r);
    t.setDaemon(true);
    return t;
  }

  /** @return whether application calls run the agent and the fabric's I/O */
  boolean callsRun() {
    return callsRun;
  }

  /** @return whether a port timer must wake the agent for its deadlines (no thread looks) */
  boolean needsPortTimer() {
    return thread == null;
  }

  /**
   * A post rang a doorbell: run the agent on the posting thread if calls do and the QP has nothing
   * else in flight (its packet leaves at once; the next poll reads the wire), else wake a runner.
   */
  void onDoorbell(boolean soleOutstanding) {
    if (mode == Threading.INVOKER) {
      runInvoked(AckPolicy.Run.CALL, false);
    } else if (callsRun && soleOutstanding) {
      port.progress(callWork, false);
    } else {
      wakeThread();
    }
  }

  /** A doorbell rung before a new QP state is published: only the thread is woken. */
  void onDeferredDoorbell() {
    wakeThread();
  }

  /** An application's CQ poll. */
  void onPoll() {
    if (mode == Threading.INVOKER) {
      runInvoked(AckPolicy.Run.CALL, true);
    } else if (callsRun) {
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

  /** A packet was queued by the delivering thread. */
  void onPacketQueued() {
    if (pollingThread == Thread.currentThread()) {
      return; // a poll's I/O: the poll runs the engine next, as the application
    }
    if (mode != Threading.INVOKER && lock.tryAcquire()) {
      runBorrowed(AckPolicy.Run.DELIVERY);
      return;
    }
    wake();
  }

  /** Makes sure the agent will run soon (any thread: a packet, a timer, the fabric). */
  void wake() {
    if (mode == Threading.INVOKER) {
      runInvoked(AckPolicy.Run.DELIVERY, true);
    } else {
      wakeThread();
    }
  }

  private void wakeThread() {
    EngineThread t = thread;
    if (t != null) {
      t.wake();
    }
  }

  /**
   * An application thread is about to block until {@code ready} (a completion event): on a crowded
   * host it waits in the fabric's I/O instead and runs the agent after each wake-up, as a call.
   * Held ACKs leave before each block (no other thread would send them soon).
   *
   * @param ready true when the wait is over
   * @param timeoutNanos longest wait
   * @return false if it did not wait (not crowded, or the wire's I/O is another thread's): the
   *     caller blocks its own way
   */
  boolean await(BooleanSupplier ready, long timeoutNanos) {
    if (!waitInWire) {
      return false;
    }
    Thread me = Thread.currentThread();
    pollingThread = me; // packets this thread's I/O delivers wait for its own run of the agent
    try {
      return ioWait.await(ready, timeoutNanos);
    } finally {
      if (pollingThread == me) {
        pollingThread = null;
      }
    }
  }

  /** Before a waiting thread blocks: held ACKs leave now. */
  private void flushHeldAcks() {
    if (acks.any()) {
      acks.requestFlush();
      port.progress(awaitWork, false); // a runner that holds the agent meanwhile flushes them
    }
  }

  private int runAwaitInvoked() {
    runInvoked(AckPolicy.Run.CALL, false);
    return 0;
  }

  /** Runs the agent on the calling thread until idle, as an application's call ({@code invoker}). */
  void runInline() {
    runInvoked(AckPolicy.Run.CALL, true);
  }

  /** A call's run ({@code dedicated}): only if no other thread runs the agent. */
  private int runCalled() {
    if (!lock.tryAcquire()) {
      return 0; // the runner takes the doorbell; a delivering thread wakes the engine thread for it
    }
    return runBorrowed(AckPolicy.Run.CALL);
  }

  /**
   * A call or a delivering thread holds the agent (it took it): at most {@link #BORROWED_CYCLES}
   * duty cycles, then the thread is woken if work is left or a timer now comes due before it
   * planned to look.
   */
  private int runBorrowed(AckPolicy.Run who) {
    boolean wakeThread = false;
    int work = 0;
    acks.runBy(who);
    try {
      int cycles = 0;
      int w;
      while ((w = dev.doWork()) > 0) {
        work += w;
        if (++cycles >= BORROWED_CYCLES) {
          wakeThread = true;
          break;
        }
      }
      wakeThread |= dev.timerDueBeforeThreadLooks();
    } catch (RuntimeException | Error e) {
      LOG.error("engine duty cycle failed ({} thread)", who == AckPolicy.Run.CALL ? "application" : "delivering", e);
    } finally {
      acks.runBy(AckPolicy.Run.THREAD);
      lock.releaseFully();
    }
    if (wakeThread || dev.hasPendingWork()) {
      EngineThread t = thread;
      if (t != null) {
        t.unpark(); // even if it is not asleep yet: it may be about to sleep past this work
      }
    }
    return work;
  }

  /**
   * {@code invoker}: runs the agent on the calling thread until it is idle, unless another thread
   * runs it, in which case that thread is armed to go round once more.
   *
   * @param who an application's call (responders may hold ACKs) or a delivery
   * @param pollWire whether to let the wire deliver first (not for a post: what it sends leaves at
   *     once, and the application's next poll reads the wire — one system call less per message)
   */
  private void runInvoked(AckPolicy.Run who, boolean pollWire) {
    Thread me = Thread.currentThread();
    if (invokingThread == me && !workRan && lock.isHeld()) {
      // A packet the fabric's I/O delivered on this thread before the duty cycles of this pass:
      // they will take it; another pass (another poll of the sockets) would be wasted.
      return;
    }
    if (!lock.acquireOrArm()) {
      return;
    }
    try {
      do {
        acks.runBy(who); // no thread runs the agent in this mode: every run says who it is
        invokingThread = me;
        workRan = false;
        port.progress(untilIdle, pollWire);
        invokingThread = null;
      } while (!lock.release());
    } catch (RuntimeException | Error e) {
      invokingThread = null;
      lock.releaseFully();
      throw e;
    }
  }

  /** Duty cycles until one finds nothing to do (under the agent). */
  private int workUntilIdle() {
    int total = 0;
    int w;
    while ((w = dev.doWork()) > 0) {
      total += w;
    }
    workRan = true;
    return total;
  }

  /** Stops the thread (or leaves the shared one). */
  void close() {
    EngineThread t = thread;
    thread = null;
    if (t != null) {
      t.leave(dev);
    }
  }
}
