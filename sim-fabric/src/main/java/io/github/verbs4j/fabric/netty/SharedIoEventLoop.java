package io.github.verbs4j.fabric.netty;

import io.github.verbs4j.fabric.CallerProgress;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultChannelPromise;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.util.concurrent.AbstractScheduledEventExecutor;
import io.netty.util.concurrent.DefaultPromise;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.Promise;
import io.netty.util.internal.PlatformDependent;
import io.netty.util.internal.ThreadExecutorMap;
import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Netty event loop that any thread may drive, one at a time ({@code verbs.fabric.progress=caller}).
 * It is the node's {@link CallerProgress}: a thread that calls {@link #progress} becomes the loop's
 * thread for that call: it runs the ready
 * I/O (a non-blocking select), the queued tasks and due timers, and then its own work, during which
 * Netty treats it as the event loop — a frame it sends is written to the socket at once instead of
 * being queued for another thread. A background thread drives the loop, blocking in the selector,
 * whenever no caller has driven it for {@code leaseNanos}; a caller that finds the background thread
 * driving wakes it, and the background thread steps back.
 *
 * <p>A caller that parks between polls does not hold the lease: a call that comes more than {@link
 * #AWAY_NANOS} after {@link #AWAY_AFTER_IDLE_CALLS} calls in a row that found nothing (a back-off
 * idle strategy's spins and yields, then its first park) ends the lease at once, and such callers
 * run only their own work while the background thread drives, blocking in the selector, until a
 * caller calls again within {@link #AWAY_NANOS} or finds something. Otherwise frames that arrive
 * while the caller sleeps (acknowledgements, grants) wait for its next poll, up to the back-off's
 * longest park, and a sender that parks while its window is full starves itself.
 *
 * <p>Why: on a machine with few cores, a message that crosses from an application thread to an
 * event-loop thread and back costs two scheduler wake-ups per direction. When the application polls
 * (as perftest and most RDMA programs do), letting the polling thread do the I/O removes both, the
 * way libfabric's manual progress and UCX's worker progress do; when it stops polling, the
 * background thread keeps the node alive (heartbeats, peers' frames, timers).
 *
 * <p>Thread confinement holds as with any Netty event loop: exactly one thread runs I/O, tasks and
 * timers at any time (the holder of {@link #driver}); taking and giving back the role is a
 * compare-and-set, which orders everything one holder did before everything the next one does.
 * {@link #inEventLoop(Thread)} is true only for the current holder.
 *
 * <p>A caller with nothing to do until input arrives may also wait inside the loop ({@link
 * #awaitIo}): it blocks in the selector as the loop's thread, so the frame that ends its wait wakes
 * it directly and it handles the frame itself — one thread and one scheduler wake-up per message
 * instead of the background thread's wake-up, its hand-off to the caller, and the caller's own.
 * While a caller waits there the background thread does not look at the lease; it checks only every
 * {@link #MAX_BLOCK_NANOS}.
 */
final class SharedIoEventLoop extends AbstractScheduledEventExecutor implements IoEventLoop, CallerProgress {
  private static final Logger LOG = LoggerFactory.getLogger(SharedIoEventLoop.class);
  private static final int RUNNING = 0;
  private static final int SHUTTING_DOWN = 1;
  private static final int TERMINATED = 2;
  /** Tasks run per pass at most, so a task that keeps queueing tasks cannot hold a caller forever. */
  private static final int TASKS_PER_PASS = 4096;
  private volatile IntSupplier extraInput; // pollAlso
  private volatile Runnable extraInputLeft; // pollAlso: the callers stopped reading it
  /** The extra input carries every peer's data: a caller's pass may leave the sockets for a while. */
  private volatile boolean extraCarriesAll;
  /**
   * With every peer on the ring, how often a caller's pass looks at the sockets (doorbells,
   * receipts, frames a wall-time delay fault holds back): a select is a system call, which costs
   * more than the ring's whole round trip on a virtual machine.
   */
  private static final long SOCKET_POLL_NANOS = 50_000;
  private long socketsPolledNanos; // by the driver only
  /** Longest blocking select of the background thread (it re-checks shutdown and callers after). */
  private static final long MAX_BLOCK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  /** How long the background thread waits before trying again when a caller holds the loop. */
  private static final long BUSY_RETRY_NANOS = 50_000;
  /**
   * A caller that polled in vain {@link #AWAY_AFTER_IDLE_CALLS} times and comes back this much later
   * was parked, not polling (a park lasts at least the timer slack, 50 µs on Linux): it does not
   * hold the lease.
   */
  static final long AWAY_NANOS = 40_000;
  /** Empty calls in a row after which a long gap means a park (Agrona's default back-off parks after 15). */
  static final int AWAY_AFTER_IDLE_CALLS = 8;

  private final IoHandler handler;
  private final Queue<Runnable> tasks = PlatformDependent.newMpscQueue();
  private final AtomicReference<Thread> driver = new AtomicReference<>();
  private final AtomicInteger state = new AtomicInteger(RUNNING);
  private final Promise<Void> termination = new DefaultPromise<>(GlobalEventExecutor.INSTANCE);
  private final Thread background;
  private final long leaseNanos;
  private final Context nonBlocking = new Context(false);
  private final Context blocking = new Context(true);
  private final AwaitContext awaiting = new AwaitContext();
  /** A caller drives the loop in {@link #awaitIo} (blocking in the selector). */
  private volatile boolean callerAwaits;
  /** A caller in {@link #awaitIo} waiting for the current driver to step back: unparked when it does. */
  private volatile Thread stepBackWaiter;
  /** When a caller last drove the loop or asked to. */
  private volatile long lastCallerNanos;
  /** A caller found another thread driving: it should step back now (cleared as it does). */
  private volatile boolean callerWaiting;
  /** When a caller's last {@link #progress} call returned, and how many calls in a row handled nothing. */
  private volatile long lastReturnNanos;
  private int idleCalls; // callers only; a race between two callers only blurs the count
  /** The callers park between empty polls: the background thread drives until one polls again. */
  private volatile boolean callersAway;
  private boolean initialized; // by the driver only
  /** Runs when the background thread takes over from callers ({@link #onCallersIdle}). */
  private volatile Runnable takeoverHook;
  private long takeoverSeen; // the lastCallerNanos the hook last ran for (background thread only)
  // How often the background thread took the loop from quiet callers, and how often a caller found
  // another thread driving it (its call then ran its work without the I/O): fabric metrics.
  private final LongAdder takeovers = new LongAdder();
  private final LongAdder callerMisses = new LongAdder();
  private volatile Runnable passEnd; // atPassEnd
  /** Tests only: runs on the background thread just after it took the loop, else null. */
  volatile Runnable afterBackgroundTake;

  /**
   * @param factory the I/O handler (epoll or NIO)
   * @param threadName name of the background thread
   * @param leaseNanos how long after a caller's last drive the background thread stays out
   */
  SharedIoEventLoop(IoHandlerFactory factory, String threadName, long leaseNanos) {
    this.handler = factory.newHandler(this);
    this.leaseNanos = leaseNanos;
    this.lastCallerNanos = System.nanoTime() - leaseNanos;
    this.background = new FastThreadLocalThread(this::backgroundLoop, threadName);
    background.setDaemon(true);
    background.start();
  }

  /**
   * Drives the loop on the calling thread if no other thread is driving it: ready I/O, tasks and
   * due timers, then {@code work}, then the tasks {@code work} queued. If another thread drives it,
   * only {@code work} runs here (a background driver is asked to step back, so the caller's next
   * call usually gets the loop). Re-entrant: a call from inside I/O or a task runs only {@code work}.
   *
   * @param work what to run while this thread is the loop's thread (may be null)
   * @return I/O events and tasks handled plus what {@code work} returned
   */
  @Override
  public int progress(IntSupplier work) {
    return progress(work, true);
  }

  /**
   * {@link #progress(IntSupplier)}, optionally without looking at the sockets first: a caller that
   * only sends (a post) skips the select and runs tasks, due timers and {@code work} as the loop's
   * thread, so its frames still leave at once; its next poll reads what arrived.
   *
   * @param work what to run while this thread is the loop's thread (may be null)
   * @param pollIo whether to run the ready I/O first
   * @return I/O events and tasks handled plus what {@code work} returned
   */
  @Override
  public int progress(IntSupplier work, boolean pollIo) {
    Thread me = Thread.currentThread();
    Thread d = driver.get();
    if (d == me || state.get() != RUNNING) {
      return work == null ? 0 : work.getAsInt();
    }
    long now = System.nanoTime();
    if (idleCalls >= AWAY_AFTER_IDLE_CALLS && now - lastReturnNanos > AWAY_NANOS) {
      if (!callersAway) {
        callersAway = true;
        handOver();
      }
      return returned(work == null ? 0 : work.getAsInt()); // the background thread does the I/O
    }
    callersAway = false;
    lastCallerNanos = now;
    if (d != null || !driver.compareAndSet(null, me)) {
      callerMisses.increment();
      if (!callerWaiting) {
        callerWaiting = true;
        handler.wakeup();
      }
      return returned(work == null ? 0 : work.getAsInt());
    }
    EventExecutor old = ThreadExecutorMap.setCurrentExecutor(this);
    int n = 0;
    try {
      n = pollIo || !initialized ? runIo(nonBlocking) : runTasks();
      if (work != null) {
        n += work.getAsInt();
        n += runTasks();
      }
      return n;
    } finally {
      endPass();
      ThreadExecutorMap.setCurrentExecutor(old);
      releaseDriver();
      returned(n);
    }
  }

  private int returned(int handled) {
    idleCalls = handled == 0 ? idleCalls + 1 : 0;
    lastReturnNanos = System.nanoTime();
    return handled;
  }

  /** Ends the callers' lease now: the background thread and the extra input's reader take over. */
  private void handOver() {
    lastCallerNanos = System.nanoTime() - leaseNanos;
    Runnable left = extraInputLeft;
    if (left != null) {
      left.run();
    }
    LockSupport.unpark(background);
  }

  /**
   * Waits for input as the loop's thread: takes the loop (asking a driving thread to step back and
   * waiting for it, within the timeout), blocks in the selector until I/O, a task or a timer is
   * ready, {@code ready} is true or the timeout passes, handles what is ready and then runs {@code
   * work}. A thread that makes {@code ready} true must call {@link #wakeAwaiting()} afterwards.
   *
   * @param work what to run after the I/O, as the loop's thread (may be null)
   * @param ready checked just before blocking: true means do not block
   * @param timeoutNanos longest block
   * @return false if the loop could not be taken (another thread kept it, or it is shutting down,
   *     or this thread is already inside it): nothing ran, the caller must wait its own way
   */
  @Override
  public boolean awaitIo(IntSupplier work, BooleanSupplier ready, long timeoutNanos) {
    Thread me = Thread.currentThread();
    lastCallerNanos = System.nanoTime();
    if (driver.get() == me || state.get() != RUNNING) {
      return false;
    }
    if (!driver.compareAndSet(null, me)) {
      stepBackWaiter = me;
      callerWaiting = true;
      handler.wakeup();
      if (driver.get() != null) {
        LockSupport.parkNanos(this, timeoutNanos); // the stepping-back driver unparks this thread
      }
      stepBackWaiter = null;
      if (!driver.compareAndSet(null, me)) {
        callerMisses.increment();
        return false;
      }
    }
    EventExecutor old = ThreadExecutorMap.setCurrentExecutor(this);
    callerAwaits = true;
    try {
      awaiting.until(ready, timeoutNanos);
      runIo(awaiting);
      if (work != null) {
        work.getAsInt();
        runTasks();
      }
      return true;
    } finally {
      endPass();
      awaiting.until(null, 0);
      callerAwaits = false;
      lastCallerNanos = System.nanoTime();
      ThreadExecutorMap.setCurrentExecutor(old);
      releaseDriver();
    }
  }

  /** Ends a caller's block in {@link #awaitIo} (any thread; no system call unless one is blocked). */
  @Override
  public void wakeAwaiting() {
    if (callerAwaits) {
      handler.wakeup();
    }
  }

  /**
   * Gives the loop back and unparks a caller of {@link #awaitIo} waiting for it. Driver only. A
   * request to step back is answered here, by the driver it was made to, never when a driver takes
   * the loop: one made just as a driver takes it would be lost, and that driver would block in the
   * selector while the caller waits. A request made after this reaches the next driver (at most one
   * pass that does not block).
   */
  private void releaseDriver() {
    if (callerWaiting) {
      callerWaiting = false; // written only when set: a poll's hand-back stays one volatile write
    }
    driver.set(null);
    Thread w = stepBackWaiter;
    if (w != null) {
      LockSupport.unpark(w);
    }
  }

  /**
   * Sets what runs, as the loop's thread, each time the background thread takes the loop over from
   * callers (their lease ran out, or one yielded): work a caller left for its next call that will
   * not come soon. Any thread.
   *
   * @param hook the task, or null for none
   */
  @Override
  public void onCallersIdle(Runnable hook) {
    takeoverHook = hook;
  }

  /**
   * The callers will not drive the loop for a while (one is about to block): the background thread
   * takes over now rather than after the lease. Any thread.
   */
  @Override
  public void yieldProgress() {
    handOver();
  }

  /** @return passes in which the background thread took the loop over from callers gone quiet */
  LongAdder takeovers() {
    return takeovers;
  }

  /** @return caller progress calls that found another thread driving the loop (no I/O in them) */
  LongAdder callerMisses() {
    return callerMisses;
  }

  /**
   * Sets more input a polling caller's pass reads as the loop's thread, after the sockets: the
   * node's shared-memory ring ({@code verbs.fabric.shm}), so a polling caller reads it itself. A
   * pass that blocks in the selector (the background thread's, a caller's {@link #awaitIo}) does not
   * read it: reading it tells the ring's poller that a caller polls, and the poller would stay out
   * while the ring's frames wait for a selector that they do not wake. Any thread.
   *
   * @param poll reads what arrived and returns how much, or null for none
   * @param left told when the callers stop polling (they park or block), so the input's own reader
   *     need not wait out a lease (may be null)
   */
  void pollAlso(IntSupplier poll, Runnable left) {
    extraInput = poll;
    extraInputLeft = left;
  }

  /**
   * Every peer's data frames now come through the {@link #pollAlso} input (all peers share this
   * host): a polling caller looks at the sockets only every {@link #SOCKET_POLL_NANOS}. Any thread.
   */
  void extraInputCarriesAll() {
    extraCarriesAll = true;
  }

  /**
   * Sets what runs at the end of every pass, as the loop's thread, whoever drove it: the outbox
   * flushes there what the pass wrote ({@code Outbox.flushOwed}). Set once, before the first pass.
   */
  void atPassEnd(Runnable r) {
    passEnd = r;
  }

  private void endPass() {
    Runnable r = passEnd;
    if (r != null) {
      try {
        r.run();
      } catch (Throwable t) {
        LOG.warn("end of pass failed", t);
      }
    }
  }

  /** One pass: I/O (blocking or not, per the context), then tasks and due timers. Driver only. */
  private int runIo(IoHandlerContext c) {
    if (!initialized) {
      initialized = true;
      handler.initialize();
    }
    IntSupplier more = c == nonBlocking ? extraInput : null;
    int n = more == null || !extraCarriesAll || socketsDue() ? handler.run(c) : 0;
    if (more != null) {
      n += more.getAsInt();
    }
    return n + runTasks();
  }

  private boolean socketsDue() {
    long now = System.nanoTime();
    if (now - socketsPolledNanos < SOCKET_POLL_NANOS) {
      return false;
    }
    socketsPolledNanos = now;
    return true;
  }

  /**
   * Runs the tasks queued before this call (at most {@link #TASKS_PER_PASS}); a task they queue
   * waits for the next pass, after the sockets. Netty continues a read it cut short (the channel's
   * reads per turn were used up with bytes still waiting) as such a task: run in the same pass, one
   * connection's backlog (a flood of 100,000 frames) was read whole before the other connections
   * were looked at again.
   */
  private int runTasks() {
    fetchFromScheduledTaskQueue(tasks);
    int due = Math.min(TASKS_PER_PASS, tasks.size());
    int n = 0;
    Runnable t;
    while (n < due && (t = tasks.poll()) != null) {
      safeExecute(t);
      n++;
    }
    return n;
  }

  private void backgroundLoop() {
    Thread me = Thread.currentThread();
    while (true) {
      int s = state.get();
      if (s == TERMINATED) {
        return;
      }
      if (s == RUNNING && (callerAwaits || stepBackWaiter != null)) {
        // a caller blocks in the selector as the loop's thread, or waits to: look again later
        LockSupport.parkNanos(this, MAX_BLOCK_NANOS);
        continue;
      }
      long quiet = System.nanoTime() - lastCallerNanos;
      if (s == RUNNING && quiet < leaseNanos) {
        LockSupport.parkNanos(this, leaseNanos - quiet);
        continue;
      }
      if (!driver.compareAndSet(null, me)) {
        LockSupport.parkNanos(this, BUSY_RETRY_NANOS);
        continue;
      }
      EventExecutor old = ThreadExecutorMap.setCurrentExecutor(this);
      try {
        Runnable took = afterBackgroundTake;
        if (took != null) {
          took.run();
        }
        if (s != RUNNING) {
          shutdownAndTerminate();
          return;
        }
        long last = lastCallerNanos;
        if (last != takeoverSeen) {
          takeoverSeen = last;
          takeovers.increment();
          Runnable hook = takeoverHook;
          if (hook != null) {
            safeExecute(hook);
          }
        }
        runIo(blocking);
      } catch (Throwable t) {
        LOG.warn("event loop pass failed", t);
      } finally {
        endPass();
        ThreadExecutorMap.setCurrentExecutor(old);
        releaseDriver();
      }
    }
  }

  private void shutdownAndTerminate() {
    try {
      cancelScheduledTasks();
      runAllTasks();
      handler.prepareToDestroy();
      runAllTasks();
      handler.destroy();
      runAllTasks();
    } catch (Throwable t) {
      LOG.warn("event loop shutdown failed", t);
    } finally {
      state.set(TERMINATED);
      termination.trySuccess(null);
    }
  }

  private void runAllTasks() {
    while (runTasks() > 0) {
      // until the queue stays empty
    }
  }

  /**
   * The select of a caller in {@link #awaitIo}: blocking up to its timeout unless it is ready or
   * another thread asked for the loop. Driver only.
   */
  private final class AwaitContext implements IoHandlerContext {
    private BooleanSupplier ready;
    private long limitNanos;

    void until(BooleanSupplier r, long timeoutNanos) {
      ready = r;
      limitNanos = Math.min(timeoutNanos, MAX_BLOCK_NANOS);
    }

    @Override
    public boolean canBlock() {
      BooleanSupplier r = ready;
      return tasks.isEmpty() && !hasScheduledTasks() && !callerWaiting && state.get() == RUNNING
          && (r == null || !r.getAsBoolean());
    }

    @Override
    public long delayNanos(long currentTimeNanos) {
      return SharedIoEventLoop.this.delayNanos(currentTimeNanos, limitNanos);
    }

    @Override
    public long deadlineNanos() {
      long next = nextScheduledTaskDeadlineNanos();
      long limit = ticker().nanoTime() + limitNanos;
      return next == -1 || next - limit > 0 ? limit : next;
    }
  }

  /** The select the handler may do: non-blocking for callers, bounded blocking for the background thread. */
  private final class Context implements IoHandlerContext {
    private final boolean mayBlock;

    Context(boolean mayBlock) {
      this.mayBlock = mayBlock;
    }

    @Override
    public boolean canBlock() {
      return mayBlock && tasks.isEmpty() && !hasScheduledTasks() && !callerWaiting && state.get() == RUNNING;
    }

    @Override
    public long delayNanos(long currentTimeNanos) {
      return mayBlock ? SharedIoEventLoop.this.delayNanos(currentTimeNanos, MAX_BLOCK_NANOS) : 0;
    }

    @Override
    public long deadlineNanos() {
      if (!mayBlock) {
        return -1;
      }
      long next = nextScheduledTaskDeadlineNanos();
      long limit = ticker().nanoTime() + MAX_BLOCK_NANOS;
      return next == -1 || next - limit > 0 ? limit : next;
    }
  }

  // ------------------------------------------------------------------ EventExecutor

  @Override
  public boolean inEventLoop(Thread thread) {
    return driver.get() == thread;
  }

  @Override
  public void execute(Runnable task) {
    if (task == null) {
      throw new NullPointerException("task");
    }
    if (state.get() == TERMINATED) {
      throw new RejectedExecutionException("event loop terminated");
    }
    tasks.add(task);
    if (!inEventLoop()) {
      handler.wakeup(); // a system call only if the background thread is blocked in the selector
    }
  }

  @Override
  public Future<?> shutdownGracefully(long quietPeriod, long timeout, TimeUnit unit) {
    if (state.compareAndSet(RUNNING, SHUTTING_DOWN)) {
      handler.wakeup();
      LockSupport.unpark(background);
    }
    return termination;
  }

  @Override
  @Deprecated
  public void shutdown() {
    shutdownGracefully(0, 0, TimeUnit.SECONDS);
  }

  @Override
  public Future<?> terminationFuture() {
    return termination;
  }

  @Override
  public boolean isShuttingDown() {
    return state.get() != RUNNING;
  }

  @Override
  public boolean isShutdown() {
    return state.get() == TERMINATED;
  }

  @Override
  public boolean isTerminated() {
    return state.get() == TERMINATED;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    return termination.await(timeout, unit);
  }

  // ------------------------------------------------------------------ IoEventLoop

  @Override
  public SharedIoEventLoop next() {
    return this;
  }

  @Override
  public IoEventLoopGroup parent() {
    return null;
  }

  @Override
  @Deprecated
  public ChannelFuture register(Channel channel) {
    return register(new DefaultChannelPromise(channel, this));
  }

  @Override
  public ChannelFuture register(ChannelPromise promise) {
    promise.channel().unsafe().register(this, promise);
    return promise;
  }

  @Override
  @Deprecated
  public ChannelFuture register(Channel channel, ChannelPromise promise) {
    channel.unsafe().register(this, promise);
    return promise;
  }

  @Override
  public Future<IoRegistration> register(IoHandle handle) {
    Promise<IoRegistration> promise = newPromise();
    if (inEventLoop()) {
      registerNow(handle, promise);
    } else {
      execute(() -> registerNow(handle, promise));
    }
    return promise;
  }

  private void registerNow(IoHandle handle, Promise<IoRegistration> promise) {
    try {
      promise.setSuccess(handler.register(handle));
    } catch (Exception e) {
      promise.setFailure(e);
    }
  }

  @Override
  public boolean isCompatible(Class<? extends IoHandle> handleType) {
    return handler.isCompatible(handleType);
  }

  @Override
  public boolean isIoType(Class<? extends IoHandler> handlerType) {
    return handler.getClass().equals(handlerType);
  }
}
