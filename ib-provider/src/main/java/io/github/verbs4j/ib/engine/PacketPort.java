package io.github.verbs4j.ib.engine;

import io.github.verbs4j.verbs.spi.runtime.PeerProgress;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * What the simulated HCA needs from the wire: a LID, a way to send a packet to another LID, a
 * clock, a timer scheduler, and upcalls for received packets, peer failures and back-pressure.
 * The production port is {@code io.github.verbs4j.ib.FabricPacketPort} over a sim-fabric node;
 * tests use an in-memory port with a fake clock.
 *
 * <p>Threading: {@link #transmit}, {@link #isWritable}, {@link #nowNanos} and {@link #schedule}
 * may be called from any thread. The {@link Receiver} upcalls come from the port's own thread
 * (the fabric thread), one at a time.
 */
public interface PacketPort extends AutoCloseable, PeerProgress {
  /** @return this port's LID (1-based, 16 bits) */
  int localLid();

  /**
   * Whether the wire may corrupt what this port sends from now on (fault injection with a
   * corruption rate or script). With {@code verbs.ib.icrc=auto} the HCA computes the ICRC only
   * while this is true. Once true it stays true.
   *
   * @return true if a packet sent now may arrive with flipped bits
   */
  default boolean mayCorrupt() {
    return true;
  }

  /** @return the allocator packets are built in (pooled, direct) */
  ByteBufAllocator alloc();

  /**
   * Sends a packet. Ownership of {@code packet} passes to the port in every case: it is released
   * after it is written, handed to the receiver, or released when dropped.
   *
   * @param dlid destination LID (may be {@link #localLid()})
   * @param packet the packet, from LRH to ICRC, between reader and writer index
   * @return false if the port dropped it at once (unknown or dead LID, back-pressure, closed)
   */
  boolean transmit(int dlid, ByteBuf packet);

  /**
   * A duty cycle starts on the calling thread: until {@link #endBatch()} the port may hold the
   * packets this thread transmits and send those to one destination together (in order). Packets
   * other threads transmit meanwhile go out at once.
   */
  default void beginBatch() {}

  /** The duty cycle that {@link #beginBatch()} started ended: send everything held. */
  default void endBatch() {}

  /**
   * Room for a packet of {@code length} bytes to {@code dlid} in the train the port builds for
   * it (only on the thread of a {@link #beginBatch()} duty cycle): the caller writes the packet
   * from the returned buffer's writer index on, moves the writer index past it and hands the same
   * buffer to {@link #transmit} — the packet is then built in place, never copied into the train.
   * The buffer stays the port's: a packet the caller gives up is simply not transmitted (its
   * bytes are overwritten or never sent), and the caller must not release the buffer.
   *
   * @param dlid the destination LID
   * @param length the packet's length
   * @return the train buffer, or null if the port builds no train here (allocate the packet)
   */
  default ByteBuf trainRoom(int dlid, int length) {
    return null;
  }

  /**
   * Runs {@code work} on the calling thread, first letting the wire deliver what it has on this
   * thread when it can ({@code verbs.fabric.progress=caller}: the caller also runs the fabric's
   * I/O, so packets {@code work} transmits leave at once). Never blocks.
   *
   * @param work the engine's work
   * @return what {@code work} returned plus wire events handled
   */
  default int progress(java.util.function.IntSupplier work) {
    return work.getAsInt();
  }

  /**
   * {@link #progress(java.util.function.IntSupplier)}, optionally without first letting the wire
   * deliver (a post: what it transmits still leaves at once; the next poll delivers).
   *
   * @param work the engine's work
   * @param pollWire whether to let the wire deliver first
   * @return what {@code work} returned plus wire events handled
   */
  default int progress(java.util.function.IntSupplier work, boolean pollWire) {
    return progress(work);
  }

  /** The caller is about to block and will not call {@link #progress} for a while. */
  default void yieldProgress() {}

  /**
   * Blocks the caller in the wire's I/O until something arrives, {@code ready} is true, {@link
   * #wakeAwaiting} is called or the timeout passes, then runs {@code work} as {@link #progress}
   * does, if the wire lets callers drive it.
   *
   * @param work the engine's work
   * @param ready checked just before blocking: true means do not block
   * @param timeoutNanos longest wait
   * @return false if it did not wait (the caller waits its own way)
   */
  default boolean awaitWire(java.util.function.IntSupplier work, java.util.function.BooleanSupplier ready,
      long timeoutNanos) {
    return false;
  }

  /** Ends a caller's {@link #awaitWire} (any thread; cheap when none waits). */
  default void wakeAwaiting() {}

  /**
   * Runs {@code task} when callers stop calling {@link #progress} (the wire's own thread takes
   * over), if the wire knows.
   *
   * @param task what to run (any thread but the callers')
   * @return false if the wire cannot tell (the task will never run)
   */
  default boolean onCallersIdle(Runnable task) {
    return false;
  }

  /**
   * @param dlid a destination LID
   * @return false while the path to {@code dlid} is above its high-water mark
   */
  boolean isWritable(int dlid);

  /**
   * @param dlid a destination LID
   * @return bytes of packets to it that have not reached its fabric yet (the fabric's queues,
   *     socket buffers, the peer's decryption and decoding; {@code FabricNode.unsentBytes})
   */
  default long unsentBytes(int dlid) {
    return 0;
  }

  /** @return the port clock in nanoseconds (wall or modelled) */
  long nowNanos();

  /** @return true if the clock is modelled (it advances only with traffic and charges) */
  boolean modelledTime();

  /**
   * Tells a modelled clock how to learn whether the HCA has work in hand (packets or doorbells
   * queued, a duty cycle running): while it does, no timer is taken for the next event, so the
   * clock never moves to a timer's deadline ahead of a packet the HCA is about to send. No effect
   * on a wall clock.
   *
   * @param busy true while the HCA has work in hand (any thread; cheap)
   */
  default void busyProbe(java.util.function.BooleanSupplier busy) {}

  /**
   * @return whether the wire may lose a packet (injected faults); when not, a reply to a request
   *     is on its way as long as the peer lives (default: true, the conservative answer)
   */
  default boolean mayLose() {
    return true;
  }

  /**
   * Charges the modelled cost of sending one packet to one of the HCA's send engines, which run
   * beside its receive pipeline: the requester's (requests) or the responder's (ACKs, responses).
   * The work starts once the packet is ready and the engine's previous packet is done, and the
   * packet {@link #transmit transmitted} next leaves when it ends. The port clock does not move. No
   * effect on a wall clock.
   *
   * @param nanos modelled nanoseconds, not negative
   * @param readyAt when the packet could start (its doorbell, or when the packet it answers was
   *     processed), or Long.MIN_VALUE for the port clock's now
   * @param answer true for the responder's engine
   * @return the modelled time the packet leaves (0 on a wall clock)
   */
  long chargeTransmit(long nanos, long readyAt, boolean answer);

  /**
   * Charges the modelled cost of the HCA's own work (no effect on a wall clock).
   *
   * @param nanos modelled nanoseconds, not negative
   */
  void charge(long nanos);

  /**
   * Moves a modelled clock forward to {@code t} if it is behind (a WQE posted at that time starts
   * no earlier); nothing on a wall clock. This default charges the difference; a port whose clock
   * advances in one step overrides it.
   *
   * @param t a time on the port's clock
   */
  default void advanceTo(long t) {
    long now = nowNanos();
    if (modelledTime() && t > now) {
      charge(t - now);
    }
  }

  /**
   * Runs {@code task} on the port's thread once {@code delayNanos} of port-clock time have passed;
   * when it runs, {@link #nowNanos()} is at least the scheduled time.
   *
   * @param delayNanos the delay, at least 0
   * @param task the task
   * @return a handle to cancel it
   */
  Timer schedule(long delayNanos, Runnable task);

  /**
   * The receiver took a packet or train that {@link Receiver#onPacket} handed it off its queue, or
   * dropped it: a port that bounds each source's share of that queue gives the slot back.
   *
   * @param frame the packet or train, before the receiver reads or releases it
   */
  default void taken(ByteBuf frame) {}

  /**
   * Installs the receiver of this port's upcalls (replacing any previous one).
   *
   * @param receiver the receiver
   */
  void bind(Receiver receiver);

  /** Detaches from the wire; later transmits are dropped. Idempotent. */
  @Override
  void close();

  /** A scheduled task that may still be cancelled. */
  interface Timer {
    /** @return true if this call cancelled it before it ran */
    boolean cancel();
  }

  /** The upcalls of a port, made on the port's thread. */
  interface Receiver {
    /**
     * A packet arrived, or a train of them: packets back to back in one buffer, each as long as
     * its LRH says (what {@link #beginBatch} / {@link #endBatch} let a port build).
     *
     * @param slid the LID the fabric says sent it
     * @param packet the packet or train (LRH to ICRC); the receiver owns it and must release it
     * @param arrival its arrival on a modelled clock (it may be processed later in wall time, after
     *     frames that arrived later in modelled time moved the clock on), else Long.MIN_VALUE
     */
    void onPacket(int slid, ByteBuf packet, long arrival);

    /**
     * A peer went down for good (process exit, crash, {@code kill -9}).
     *
     * @param lid its LID
     */
    void onPeerDown(int lid);

    /**
     * The path to {@code dlid} may accept packets again.
     *
     * @param dlid a destination LID
     */
    void onWritable(int dlid);
  }
}
