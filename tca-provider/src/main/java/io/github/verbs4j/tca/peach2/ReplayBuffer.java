package io.github.verbs4j.tca.peach2;

import io.netty.buffer.ByteBuf;

/**
 * The replay buffer of one link's transmitter (PCIe §3.5.2.1): every TLP frame sent and not yet
 * acknowledged, in sequence order, so that a Nak or a replay-timer expiry can send them all again.
 * Bounded in TLPs ({@link DataLinkParams#replayBufferTlps()}): {@link #hasRoom} says whether a
 * frame of {@code n} TLPs fits; an empty buffer takes any one frame, so a frame longer than the
 * bound still goes (alone). A preallocated ring: adding and purging allocate nothing.
 *
 * <p>Holds one reference to each frame sent, with where its bytes start and how many there are (the
 * frame's own indices move as the fabric reads it, and an Ack appended after the LCRC is not
 * replayed), and releases it when the frame is acknowledged or the buffer is cleared. Not
 * thread-safe: the {@link DataLinkLayer} guards it with its link's lock.
 */
final class ReplayBuffer {
  private static final int SEQ_MASK = DataLinkParams.SEQ_MODULUS - 1;

  private final int limitTlps;
  private final ByteBuf[] frames;
  private final int[] start;
  private final int[] length;
  private final int[] firstSeq;
  private final int[] tlps;
  private final boolean[] checked;
  private final long[] sentAt;
  private final boolean[] resent;
  private long sampleSentAt = -1;
  private int head;
  private int size;
  private int totalTlps;

  /** @param limitTlps most TLPs held (frames are at least one TLP each) */
  ReplayBuffer(int limitTlps) {
    this.limitTlps = limitTlps;
    this.frames = new ByteBuf[limitTlps];
    this.start = new int[limitTlps];
    this.length = new int[limitTlps];
    this.firstSeq = new int[limitTlps];
    this.tlps = new int[limitTlps];
    this.checked = new boolean[limitTlps];
    this.sentAt = new long[limitTlps];
    this.resent = new boolean[limitTlps];
  }

  /**
   * @param n TLPs of the next frame
   * @return whether it may be added now
   */
  boolean hasRoom(int n) {
    return size == 0 || (totalTlps + n <= limitTlps && size < frames.length);
  }

  /**
   * Appends a frame just sent (the caller checked {@link #hasRoom}).
   *
   * @param frame a reference to the frame, now owned by the buffer
   * @param frameStart the index of its first byte
   * @param frameLength its bytes up to its LCRC
   * @param seq its first TLP's sequence number
   * @param n its TLPs
   * @param hasLcrc whether it carries an LCRC (else it must be replayed unchecked)
   * @param now when it was sent (for round-trip samples)
   */
  void add(ByteBuf frame, int frameStart, int frameLength, int seq, int n, boolean hasLcrc, long now) {
    int i = (head + size) % frames.length;
    frames[i] = frame;
    start[i] = frameStart;
    length[i] = frameLength;
    firstSeq[i] = seq;
    tlps[i] = n;
    checked[i] = hasLcrc;
    sentAt[i] = now;
    resent[i] = false;
    size++;
    totalTlps += n;
  }

  /**
   * Releases the frames an Ack or Nak of {@code ackSeq} acknowledges: those whose last TLP lies in
   * {@code (ackdSeq, ackSeq]}, which is {@code acked} TLPs after {@code ackdSeq}.
   *
   * @param acked how far the acknowledgement reaches past the last one, in TLPs (1..outstanding)
   * @return the TLPs released (less than {@code acked} only if it ends inside a frame)
   */
  int purge(int acked) {
    int freed = 0;
    sampleSentAt = -1;
    while (size > 0 && freed + tlps[head] <= acked) {
      freed += tlps[head];
      // Karn: only a frame sent once times the round trip
      sampleSentAt = resent[head] ? -1 : sentAt[head];
      frames[head].release();
      frames[head] = null;
      totalTlps -= tlps[head];
      head = (head + 1) % frames.length;
      size--;
    }
    return freed;
  }

  /**
   * @return when the newest frame the last {@link #purge} released was sent, or -1 if it was
   *     replayed (its acknowledgement may answer either copy) or nothing was released
   */
  long sampleSentAt() {
    return sampleSentAt;
  }

  /** Marks every frame held as replayed. */
  void markResent() {
    for (int k = 0; k < size; k++) {
      resent[(head + k) % frames.length] = true;
    }
  }

  /** @return frames held */
  int size() {
    return size;
  }

  /** @return TLPs held */
  int totalTlps() {
    return totalTlps;
  }

  /**
   * @param k 0 = the oldest frame
   * @return when that frame was first sent (modelled ns; a DMA channel may send ahead of the clock)
   */
  long sentAt(int k) {
    return sentAt[(head + k) % frames.length];
  }

  /** @return whether nothing is held */
  boolean isEmpty() {
    return size == 0;
  }

  /**
   * @param k 0 = the oldest frame
   * @return a new reference to that frame, indexed over its bytes as first sent (for a replay)
   */
  ByteBuf replica(int k) {
    int i = (head + k) % frames.length;
    return frames[i].retainedDuplicate().setIndex(start[i], start[i] + length[i]);
  }

  /**
   * @param k 0 = the oldest frame
   * @return its bytes as first sent
   */
  int length(int k) {
    return length[(head + k) % frames.length];
  }

  /**
   * @param k 0 = the oldest frame
   * @return whether that frame carries an LCRC
   */
  boolean checked(int k) {
    return checked[(head + k) % frames.length];
  }

  /**
   * @param k 0 = the oldest frame
   * @return that frame's first sequence number
   */
  int seq(int k) {
    return firstSeq[(head + k) % frames.length];
  }

  /**
   * @param k 0 = the oldest frame
   * @return that frame's last sequence number
   */
  int lastSeq(int k) {
    int i = (head + k) % frames.length;
    return (firstSeq[i] + tlps[i] - 1) & SEQ_MASK;
  }

  /** Releases every frame. */
  void clear() {
    while (size > 0) {
      frames[head].release();
      frames[head] = null;
      head = (head + 1) % frames.length;
      size--;
    }
    totalTlps = 0;
  }
}
