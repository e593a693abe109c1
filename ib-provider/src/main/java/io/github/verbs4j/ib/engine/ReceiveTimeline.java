package io.github.verbs4j.ib.engine;

import io.netty.buffer.ByteBuf;
import java.util.Queue;
import org.agrona.collections.LongArrayQueue;

/**
 * The HCA's receive pipeline in modelled time. The fabric moves the port clock to each frame's
 * arrival when it delivers the frame, but the engine takes frames later in wall time, after others
 * that arrived later in modelled time may have moved the clock on. So each frame keeps its own
 * arrival through the inbound queue, and the engine processes it at {@code max(arrival, previous
 * packet's end)}: its completions are stamped, and its answers leave, when its own work ends, not
 * at whatever the clock reached meanwhile. On a wall clock it only passes frames through.
 */
final class ReceiveTimeline {
  private final boolean modelled;
  private final java.util.function.LongSupplier clock;
  private final Queue<ByteBuf> inbound;
  // the arrivals of the frames in inbound, in the same order (modelled only; under their lock)
  private final LongArrayQueue arrivals;
  private long polledArrival = Long.MIN_VALUE;
  // engine-only (under the agent)
  private long free = Long.MIN_VALUE;
  private long current = Long.MIN_VALUE;

  ReceiveTimeline(boolean modelled, java.util.function.LongSupplier clock, Queue<ByteBuf> inbound) {
    this.modelled = modelled;
    this.clock = clock;
    this.inbound = inbound;
    this.arrivals = modelled ? new LongArrayQueue(64, Long.MIN_VALUE) : null;
  }

  /**
   * Queues a received frame (any thread).
   *
   * @param frame the frame
   * @param arrival its arrival on the modelled clock, or Long.MIN_VALUE for the clock's now (read
   *     only on a modelled clock)
   * @return false if the inbound queue is full
   */
  boolean offer(ByteBuf frame, long arrival) {
    if (!modelled) {
      return inbound.offer(frame);
    }
    if (arrival == Long.MIN_VALUE) {
      arrival = clock.getAsLong();
    }
    synchronized (arrivals) {
      if (!inbound.offer(frame)) {
        return false;
      }
      arrivals.offerLong(arrival);
      return true;
    }
  }

  /** @return the next queued frame, or null; {@link #arrival()} is then its arrival (the agent) */
  ByteBuf poll() {
    if (!modelled) {
      return inbound.poll();
    }
    synchronized (arrivals) {
      ByteBuf b = inbound.poll();
      polledArrival = b == null ? Long.MIN_VALUE : arrivals.pollLong();
      return b;
    }
  }

  /**
   * @param now the engine's time for this cycle
   * @return when the frame {@link #poll} returned last arrived (modelled), else {@code now}
   */
  long arrival(long now) {
    return polledArrival == Long.MIN_VALUE ? now : polledArrival;
  }

  /**
   * A packet that arrived at {@code arrival} is processed: its work starts when it arrived and the
   * packet before it is done, and ends {@code work} later (modelled only).
   *
   * @return when its work ends: its completions' time
   */
  long begin(long arrival, long work) {
    free = Math.max(arrival, free) + work;
    current = free;
    return free;
  }

  /** @return while a packet is processed, when its work ends; else Long.MIN_VALUE */
  long current() {
    return current;
  }

  /** The packet's processing is over. */
  void end() {
    current = Long.MIN_VALUE;
  }
}
