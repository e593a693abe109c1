package io.github.verbs4j.tca.verbs;

import io.github.verbs4j.tca.peach2.Peach2Link;
import io.github.verbs4j.verbs.spi.runtime.AgentLock;
import io.github.verbs4j.verbs.spi.runtime.EngineThread;
import io.github.verbs4j.verbs.spi.runtime.HostShare;
import io.github.verbs4j.verbs.spi.runtime.IdleStrategyKey;
import io.github.verbs4j.verbs.spi.runtime.IoWait;
import io.github.verbs4j.verbs.spi.runtime.Threading;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who runs the context's {@link Proxy}, by {@link Threading} mode (the {@code ib} provider's
 * {@code DeviceRunners} for the tca proxy); every runner takes the agent's {@link AgentLock} first.
 *
 * <ul>
 *   <li>an {@link EngineThread} ({@code dedicated}: one per context; {@code shared}: one for the
 *       JVM) — runs the proxy when no other thread does and sleeps when all is idle;
 *   <li>an application's post or CQ poll ({@code dedicated}, {@code invoker}) — inside the link's
 *       caller progress, so the call also does the fabric's socket I/O: in {@code dedicated} mode at
 *       most {@link #BORROWED_CYCLES} duty cycles if the proxy is free; in {@code invoker} mode (no
 *       thread) until it is idle, arming the running thread if another runs it;
 *   <li>the thread that lands a write in this node's memory ({@code dedicated}, {@code shared}: if
 *       the proxy is free; {@code invoker}: as a call would), and in {@code invoker} mode the board
 *       scheduler's timers;
 *   <li>on a crowded host ({@link HostShare#oversubscribed}, calls running the proxy), an
 *       application thread that waits for a completion ({@link #await}): it blocks in the link's
 *       I/O and runs the proxy after each wake-up, so what ends its wait is read and handled on the
 *       one thread it wakes.
 * </ul>
 */
final class ProxyRunners {
  private static final Logger LOG = LoggerFactory.getLogger(ProxyRunners.class);
  /** Most duty cycles a call or a delivering thread runs before it leaves the rest to the thread. */
  static final int BORROWED_CYCLES = 16;

  /** Makes the runners of a proxy. */
  @FunctionalInterface
  interface Factory {
    ProxyRunners create(Proxy agent, Peach2Link link);
  }

  private final Proxy agent;
  private final Peach2Link link;
  private final AgentLock lock;
  private final Threading mode;
  private final IdleStrategyKey.Backoff idle;
  private EngineThread thread;
  private final IntSupplier borrowed = this::runBorrowedIfFree;
  private final IntSupplier untilIdle = this::workUntilIdle;
  private final Runnable changed = this::onDelivery;
  private final boolean waitInWire;
  private final IoWait ioWait;

  ProxyRunners(Proxy agent, Peach2Link link, Threading mode, IdleStrategyKey.Backoff idle) {
    this.agent = agent;
    this.link = link;
    this.lock = agent.lock();
    this.mode = mode;
    this.idle = idle;
    this.waitInWire = mode.callsRunAgent() && HostShare.current().oversubscribed();
    this.ioWait = new IoWait(link::awaitIo, mode == Threading.INVOKER ? this::runAwaitInvoked : borrowed);
  }

  /**
   * @param mode the threading mode
   * @param idle how an engine thread waits
   * @return a factory of runners in that mode
   */
  static Factory factory(Threading mode, IdleStrategyKey.Backoff idle) {
    return (agent, link) -> new ProxyRunners(agent, link, mode, idle);
  }

  /** Starts the engine thread (none in {@code invoker} mode). */
  void start() {
    if (mode == Threading.INVOKER || thread != null) {
      return;
    }
    long maxPark = Math.max(idle.minParkNanos(), idle.maxParkNanos());
    BackoffIdleStrategy strategy = new BackoffIdleStrategy(idle.spins(), idle.yields(), idle.minParkNanos(), maxPark);
    if (mode == Threading.SHARED) {
      thread = EngineThread.joinShared(agent, strategy, maxPark, "verbs4j-engine-shared", ProxyRunners::engineThread);
    } else {
      thread = new EngineThread(strategy, maxPark, "verbs4j-tca-proxy-" + agent.roleName(),
          ProxyRunners::engineThread, agent);
    }
  }

  private static Thread engineThread(Runnable r) {
    Thread t = new FastThreadLocalThread(r);
    t.setDaemon(true);
    return t;
  }

  /** @return whether application calls run the proxy and the fabric's I/O */
  boolean callsRun() {
    return mode.callsRunAgent();
  }

  /** @return whether the proxy must set board timers for its deadlines (no thread looks) */
  boolean needsTimer() {
    return thread == null;
  }

  /** A post queued work: it leaves from the posting thread when calls run the proxy. */
  void onPost() {
    switch (mode) {
      case INVOKER -> runInvoked(false);
      case DEDICATED -> {
        if (link.progress(borrowed, false) == 0 && lock.isHeld()) {
          wakeThread(); // another thread runs it and may have looked before this post
        }
      }
      case SHARED -> wakeThread();
    }
  }

  /** An application's CQ poll: the fabric's I/O, then the proxy, when calls run it. */
  void onPoll() {
    switch (mode) {
      case INVOKER -> runInvoked(true);
      case DEDICATED -> link.progress(borrowed, true);
      case SHARED -> {
        // the engine thread does everything
      }
    }
  }

  /**
   * An application thread is about to block until {@code ready} (a completion event): on a crowded
   * host it waits in the link's I/O instead and runs the proxy after each wake-up, as a call.
   *
   * @param ready true when the wait is over
   * @param timeoutNanos longest wait
   * @return false if it did not wait (not crowded, or the link's I/O is another thread's): the
   *     caller blocks its own way
   */
  boolean await(BooleanSupplier ready, long timeoutNanos) {
    return waitInWire && ioWait.await(ready, timeoutNanos);
  }

  private int runAwaitInvoked() {
    runInvokedHere();
    return 0;
  }

  /** A write landed (the delivering thread, or this agent's own loopback DMA). */
  void onDelivery() {
    if (mode == Threading.INVOKER) {
      runInvokedHere();
      return;
    }
    if (lock.tryAcquire()) {
      runBorrowed();
      return;
    }
    wakeThread();
  }

  /** A QP changed (a modify, under its lock): runs soon, never inline on the modifying thread. */
  void onChange() {
    if (mode == Threading.INVOKER) {
      link.scheduler().execute(changed);
    } else {
      wakeThread();
    }
  }

  /** A board timer for the proxy's deadlines fired (on the link's thread). */
  void onTimer() {
    if (mode == Threading.INVOKER) {
      runInvokedHere();
    } else {
      EngineThread t = thread;
      if (t != null) {
        t.unpark();
      }
    }
  }

  private void wakeThread() {
    EngineThread t = thread;
    if (t != null) {
      t.wake();
    }
  }

  /** A call's run ({@code dedicated}): only if no other thread runs the proxy. */
  private int runBorrowedIfFree() {
    if (!lock.tryAcquire()) {
      return 0;
    }
    return runBorrowed();
  }

  /** Holds the agent (taken): at most {@link #BORROWED_CYCLES} duty cycles, then wakes the thread if work is left. */
  private int runBorrowed() {
    int work = 0;
    boolean left = false;
    try {
      if (!agent.isClosed()) {
        int cycles = 0;
        int w;
        while ((w = agent.doWork()) > 0) {
          work += w;
          if (++cycles >= BORROWED_CYCLES) {
            left = true;
            break;
          }
        }
        // a deadline sooner than the thread's plan: it must look (it never sleeps past its own plan)
        left |= agent.untilDeadlineNanos() == 0;
      }
    } catch (RuntimeException | Error e) {
      LOG.error("tca proxy duty cycle failed ({})", agent.roleName(), e);
    } finally {
      lock.releaseFully();
    }
    if (left || agent.hasPendingWork()) {
      EngineThread t = thread;
      if (t != null) {
        t.unpark();
      }
    }
    return work;
  }

  /** {@code invoker}, an application call: the link's I/O (if {@code pollWire}) and the proxy until idle. */
  private void runInvoked(boolean pollWire) {
    if (!lock.acquireOrArm()) {
      return; // the running thread goes round once more
    }
    try {
      do {
        link.progress(untilIdle, pollWire);
      } while (!lock.release());
    } catch (RuntimeException | Error e) {
      lock.releaseFully();
      throw e;
    }
  }

  /** {@code invoker}, a delivering thread or a timer: the proxy until idle, on this thread. */
  private void runInvokedHere() {
    if (!lock.acquireOrArm()) {
      return;
    }
    try {
      do {
        workUntilIdle();
      } while (!lock.release());
    } catch (RuntimeException | Error e) {
      lock.releaseFully();
      LOG.error("tca proxy duty cycle failed ({})", agent.roleName(), e);
    }
  }

  /** Duty cycles until one finds nothing to do (under the agent). */
  private int workUntilIdle() {
    if (agent.isClosed()) {
      return 0;
    }
    int total = 0;
    int w;
    while ((w = agent.doWork()) > 0) {
      total += w;
    }
    return total;
  }

  /** Stops the thread (or leaves the shared one): on return it no longer runs the proxy. */
  void close() {
    EngineThread t = thread;
    thread = null;
    if (t != null) {
      t.leave(agent);
    }
  }
}
