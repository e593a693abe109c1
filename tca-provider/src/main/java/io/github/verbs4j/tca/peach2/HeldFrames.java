package io.github.verbs4j.tca.peach2;

import io.netty.buffer.ByteBuf;
import java.util.ArrayDeque;
import org.agrona.collections.LongArrayQueue;

/**
 * The frames a {@link PcieLink} holds, in order, each with its modelled send time: frames that
 * wait for the link to come up or for room in the replay buffer (send time {@code Long.MIN_VALUE}:
 * they leave when sent), and in modelled time frames of a DMA channel's timeline stamped ahead of
 * the node's clock, which leave when the clock reaches their send time (a timer on the board's
 * scheduler releases them, so a caller never waits in wall time for the clock).
 *
 * <p>Used under the link's monitor.
 */
final class HeldFrames {
  private final ArrayDeque<ByteBuf> frames = new ArrayDeque<>();
  // each held frame's modelled send time (a DMA channel's timeline, or MIN_VALUE = when sent)
  private final LongArrayQueue sendAt = new LongArrayQueue(Long.MAX_VALUE); // MAX: never a send time
  private final DataLinkLayer dll;
  private final boolean wall;
  private final HostScheduler.Timer release;
  private boolean releaseArmed;
  private int tlps;

  /**
   * @param dll the board's link layer (its clock and timers)
   * @param release what runs when the clock reaches the first frame's send time (the link's
   *     drain, which calls {@link #released()} under the link's monitor)
   */
  HeldFrames(DataLinkLayer dll, Runnable release) {
    this.dll = dll;
    this.wall = !dll.clock.isModelled();
    this.release = dll.scheduler.timer(release);
  }

  boolean isEmpty() {
    return frames.isEmpty();
  }

  /** @return TLPs held */
  int tlps() {
    return tlps;
  }

  /**
   * Holds a frame behind the others.
   *
   * @param frame the frame
   * @param tlps its TLPs
   * @param at its send time, or {@code Long.MIN_VALUE}
   */
  void add(ByteBuf frame, int tlps, long at) {
    frames.add(frame);
    sendAt.addLong(at);
    this.tlps += tlps;
  }

  /** @return the first frame, or null */
  ByteBuf peek() {
    return frames.peek();
  }

  /** @return the first frame's send time ({@code Long.MIN_VALUE}: when sent); only when not empty */
  long headSendAt() {
    return sendAt.peekLong();
  }

  /**
   * Takes the first frame (its send time: {@link #headSendAt()} before).
   *
   * @param frameTlps its TLPs
   * @return the frame
   */
  ByteBuf take(int frameTlps) {
    sendAt.pollLong();
    tlps -= frameTlps;
    return frames.poll();
  }

  /**
   * @param at a send time ({@code Long.MIN_VALUE}: when sent)
   * @return whether a frame with that send time waits for the modelled clock to reach it
   */
  boolean ahead(long at) {
    return !wall && at != Long.MIN_VALUE && at > dll.clock.nowNanos();
  }

  /** @return whether the first frame waits for the modelled clock to reach its send time */
  boolean headAhead() {
    return !frames.isEmpty() && ahead(sendAt.peekLong());
  }

  /**
   * Arms the release at modelled time {@code at} (one timer at a time).
   *
   * @param at when
   */
  void armRelease(long at) {
    if (releaseArmed || dll.closed()) {
      return;
    }
    releaseArmed = true;
    release.arm(Math.max(0, at - dll.clock.nowNanos()));
  }

  /** The release timer ran. */
  void released() {
    releaseArmed = false;
  }

  /**
   * Lets go of every frame held.
   *
   * @param counters where a discard is counted as a drop, or null (closing)
   */
  void clear(Peach2Counters counters) {
    ByteBuf f;
    while ((f = frames.poll()) != null) {
      if (counters != null) {
        counters.drop("link_down");
      }
      f.release();
    }
    sendAt.clear();
    tlps = 0;
  }
}
