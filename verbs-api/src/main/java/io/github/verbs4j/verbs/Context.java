package io.github.verbs4j.verbs;

import java.time.Duration;
import java.util.Optional;

/**
 * An open device ({@code struct ibv_context}, {@code ibv_open_device}), the root of every verbs
 * object. Obtained from {@link Verbs#open()} or {@link Verbs#openDevice(String)}.
 *
 * <pre>{@code
 * try (Context ctx = Verbs.open();
 *      ProtectionDomain pd = ctx.allocPd();
 *      CompletionQueue cq = ctx.createCq(256, null, 0)) {
 *   MemoryRegion mr = pd.allocateMemory(1 << 20, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
 *   ...
 * }
 * }</pre>
 *
 * <p>Closing ({@code ibv_close_device}) fails with EBUSY naming what is still open; it is
 * idempotent, and after it every call fails with EBADF. Thread-safe.
 */
public interface Context extends AutoCloseable {
  /** @return the device */
  Device device();

  /** @return device attributes and limits ({@code ibv_query_device}) */
  DeviceAttr queryDevice();

  /**
   * Port attributes ({@code ibv_query_port}).
   *
   * @param port 1-based port number
   * @return the attributes
   * @throws VerbsException EINVAL if {@code port} is not in 1..phys_port_cnt
   */
  PortAttr queryPort(int port);

  /**
   * The port's transport counters ({@code hw_counters} in sysfs; see {@link PortCounter}): every
   * counter of every provider, counted since the context opened. Thread-safe; each value is read
   * atomically, the snapshot as a whole is not one instant.
   *
   * @param port 1-based port number
   * @return a snapshot
   * @throws VerbsException EINVAL if {@code port} is not in 1..phys_port_cnt; EBADF after close
   */
  PortCounters queryPortCounters(int port);

  /** @return a new protection domain ({@code ibv_alloc_pd}) */
  ProtectionDomain allocPd();

  /** @return a new completion channel ({@code ibv_create_comp_channel}) */
  CompletionChannel createCompletionChannel();

  /**
   * Creates a completion queue ({@code ibv_create_cq}).
   *
   * @param cqe requested capacity, 1..max_cqe
   * @param channel completion channel for events, or null
   * @param compVector 0..num_comp_vectors-1
   * @return the CQ (its {@link CompletionQueue#cqe()} is at least {@code cqe})
   * @throws VerbsException EINVAL naming cqe or comp_vector when out of range
   */
  CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector);

  /**
   * Takes the next asynchronous event ({@code ibv_get_async_event}).
   *
   * @param timeout how long to wait; zero polls
   * @return the event, or empty on timeout
   */
  Optional<AsyncEvent> pollAsyncEvent(Duration timeout);

  /** @return this job's out-of-band channel (rank, size, key-value store, barrier) */
  Job job();

  /**
   * The context's clock: wall time, or modelled time when {@code verbs.time=modelled}. Completion
   * timestamps use it.
   *
   * @return nanoseconds
   */
  long nowNanos();

  /**
   * Accounts the application's own work (computation, buffer preparation, a refill thread's
   * service time) to this context's clock. With {@code verbs.time=modelled} the node's clock moves
   * forward by {@code nanos}, as if the host CPU had worked that long, so that application work and
   * communication share one timeline; with wall time it does nothing, because the work already
   * took real time. This is a simulator extension; libibverbs has no counterpart.
   *
   * @param nanos the work's duration in nanoseconds, not negative
   * @throws VerbsException EINVAL if {@code nanos} is negative, EBADF if the context is closed
   */
  void chargeNanos(long nanos);

  /**
   * Moves a modelled clock forward to {@code nanos} if it is behind, as one step with the device's
   * own advances (an arrival processed meanwhile is not counted twice): a program that keeps its
   * application's time apart from the device's tells the device, before it posts, that the
   * application only now reached that time. Does nothing on a wall clock. A simulator extension,
   * like {@link #chargeNanos}.
   *
   * @param nanos a time on this context's clock
   * @throws VerbsException EBADF if the context is closed
   */
  void advanceClockTo(long nanos);

  /**
   * The application's time on this context's modelled clock, for the work it posts from now on: a
   * program that keeps its application's time apart from the device's says, before it posts, when
   * the application rang the doorbell. The device starts each send WR no earlier than the time it
   * was posted with, and work posted earlier keeps its own earlier time even if the device takes
   * it up only after a later call (its engine ran late in wall time). A provider that cannot stamp
   * its WRs moves the clock there at once ({@link #advanceClockTo}). Does nothing on a wall clock.
   * A simulator extension, like {@link #chargeNanos}.
   *
   * @param nanos a time on this context's clock; may be earlier than an earlier call's (a message
   *     the application queued before it computed further)
   * @throws VerbsException EBADF if the context is closed
   */
  void postAt(long nanos);

  /**
   * Whether {@link #nowNanos()} is modelled time ({@code verbs.time=modelled}, or the in-JVM
   * fabric's deterministic mode) rather than the wall clock. A simulator extension, like {@link
   * #chargeNanos}: a program that keeps its own timeline of application work (charged) against
   * the device's (completion timestamps) needs to know which one the context gives.
   *
   * @return true if the context's clock is modelled
   */
  boolean modelledTime();

  /** Closes the device ({@code ibv_close_device}). */
  @Override
  void close();
}
