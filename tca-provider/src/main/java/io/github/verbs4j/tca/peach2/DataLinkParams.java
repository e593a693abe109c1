package io.github.verbs4j.tca.peach2;

import static io.github.verbs4j.tca.peach2.ParamChecks.nonNegative;
import static io.github.verbs4j.tca.peach2.ParamChecks.positive;

/**
 * The modelled PCIe data link layer of a PEACH2 link ({@link DataLinkLayer}): replay buffer, ACK
 * coalescing and the timers, each value with its source — the PCI Express Base Specification 2.0
 * (PEACH2's ports are Gen2 x8, seed 001 §3.1) or a marked <b>assumption</b>. Part of {@link
 * Peach2Params} ({@link Peach2Params#dataLink()}).
 *
 * <h2>Timers</h2>
 *
 * The specification sizes its timers in symbol times (2 ns at 5.0 GT/s) from the link width and the
 * max payload: the AckNak latency limit is {@code (MPS + 28) × AckFactor / width + InternalDelay}
 * and the REPLAY_TIMER limit three times that (§3.5.2.1, §3.5.3.1). A fabric frame of this model is
 * a burst of up to 256 TLPs ({@link Peach2Tlp}), so the replay timeout of a link applies the same ×3
 * rule to a whole frame on its whole path ({@link #replayTimeoutNs(Peach2Params, int)}).
 *
 * <p>A wall-clock run ({@code verbs.time=wall}) delivers frames as fast as the host threads do, so
 * nanosecond timers would fire before any ACK could come back; there each timer is at least its
 * {@code wall*} floor. Modelled time uses the modelled values.
 *
 * <p>Immutable; build variants with {@link #toBuilder()}.
 */
public final class DataLinkParams {
  /** Sequence numbers are 12 bits (PCIe §3.5.2: NEXT_TRANSMIT_SEQ, ACKD_SEQ, NEXT_RCV_SEQ). */
  public static final int SEQ_MODULUS = 4096;
  /**
   * At most 2048 TLPs may be unacknowledged: the transmitter blocks when {@code (NEXT_TRANSMIT_SEQ
   * − ACKD_SEQ) mod 4096 ≥ 2048} (PCIe §3.5.2.1).
   */
  public static final int MAX_OUTSTANDING_TLPS = SEQ_MODULUS / 2;
  /** REPLAY_NUM is a 2-bit counter: the 4th replay without progress retrains the link (PCIe §3.5.2.1). */
  public static final int REPLAY_NUM_ROLLOVER = 4;

  private final int replayBufferTlps;
  private final int ackCoalesceTlps;
  private final long ackLatencyNs;
  private final long replayTimerNs;
  private final long retrainNs;
  private final long linkDownNs;
  private final long wallAckDelayNs;
  private final long wallReplayTimeoutNs;
  private final long wallMaxReplayTimeoutNs;
  private final long wallLinkDownNs;

  private DataLinkParams(Builder b) {
    if (b.replayBufferTlps < 1 || b.replayBufferTlps > MAX_OUTSTANDING_TLPS - 1) {
      throw new IllegalArgumentException("replayBufferTlps=" + b.replayBufferTlps + " must be in [1, "
          + (MAX_OUTSTANDING_TLPS - 1) + "] (PCIe: at most 2047 unacknowledged TLPs)");
    }
    if (b.ackCoalesceTlps < 1 || b.ackCoalesceTlps > b.replayBufferTlps) {
      throw new IllegalArgumentException("ackCoalesceTlps=" + b.ackCoalesceTlps + " must be in [1, replayBufferTlps="
          + b.replayBufferTlps + "]");
    }
    this.replayBufferTlps = b.replayBufferTlps;
    this.ackCoalesceTlps = b.ackCoalesceTlps;
    this.ackLatencyNs = positive("ackLatencyNs", b.ackLatencyNs);
    this.replayTimerNs = positive("replayTimerNs", b.replayTimerNs);
    this.retrainNs = nonNegative("retrainNs", b.retrainNs);
    this.linkDownNs = positive("linkDownNs", b.linkDownNs);
    this.wallAckDelayNs = positive("wallAckDelayNs", b.wallAckDelayNs);
    this.wallReplayTimeoutNs = positive("wallReplayTimeoutNs", b.wallReplayTimeoutNs);
    this.wallMaxReplayTimeoutNs = positive("wallMaxReplayTimeoutNs", b.wallMaxReplayTimeoutNs);
    if (wallMaxReplayTimeoutNs < wallReplayTimeoutNs) {
      throw new IllegalArgumentException("wallMaxReplayTimeoutNs=" + wallMaxReplayTimeoutNs
          + " is below wallReplayTimeoutNs=" + wallReplayTimeoutNs);
    }
    this.wallLinkDownNs = positive("wallLinkDownNs", b.wallLinkDownNs);
    if (linkDownNs <= replayTimerNs || wallLinkDownNs <= wallReplayTimeoutNs) {
      throw new IllegalArgumentException("linkDownNs=" + linkDownNs + " / wallLinkDownNs=" + wallLinkDownNs
          + " must exceed replayTimerNs=" + replayTimerNs + " / wallReplayTimeoutNs=" + wallReplayTimeoutNs);
    }
  }

  /** @return the defaults documented on each accessor */
  public static DataLinkParams defaults() {
    return new Builder().build();
  }

  /** @return a builder starting from these values */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * <b>Assumption</b>: TLPs the replay buffer of one link holds, 2047 (about 512 KiB of 256-byte
   * payloads): as many as the 12-bit sequence numbers allow. The papers do not give the size of the
   * FPGA's PCIe retry buffer, and a hardware one holds a few KiB; but this model moves a burst of up
   * to 256 TLPs as one frame, acknowledged only when all of it has arrived, so the buffer must hold
   * several bursts to keep the link busy while the first burst's Ack returns (and, on the wall
   * clock, while host threads carry the frames). A sender finding it full waits (back-pressure).
   *
   * @return TLPs
   */
  public int replayBufferTlps() {
    return replayBufferTlps;
  }

  /**
   * <b>Assumption</b>: the receiver sends an ACK at once when this many TLPs are unacknowledged,
   * 256 (one full burst), instead of waiting for the AckNak latency timer; the specification only
   * bounds the delay, and hardware ACKs about every AckFactor (2.5) max-size TLPs on a busy x8 link.
   *
   * @return TLPs
   */
  public int ackCoalesceTlps() {
    return ackCoalesceTlps;
  }

  /**
   * The AckNak latency limit for Gen2 x8, 256-byte max payload: {@code (256 + 28) × 2.5 / 8 + 70 =
   * 159} symbol times × 2 ns = 318 ns (PCIe 2.0 §3.5.3.1, AckFactor 2.5 and InternalDelay 70 of its
   * 5.0 GT/s table). An ACK waits at most this long for a TLP to share its frame with.
   *
   * @return ns
   */
  public long ackLatencyNs() {
    return ackLatencyNs;
  }

  /**
   * The REPLAY_TIMER limit for Gen2 x8, 256-byte max payload: {@code 3 × 159} symbol times × 2 ns =
   * 952 ns (PCIe 2.0 §3.5.2.1, unadjusted, L0s off).
   *
   * @return ns
   */
  public long replayTimerNs() {
    return replayTimerNs;
  }

  /**
   * <b>Assumption</b>: the link is retrained (LTSSM Recovery) when REPLAY_NUM rolls over, 2 µs
   * without transmitting: TS1/TS2 ordered-set exchange and idle at 5.0 GT/s without a speed change
   * (PCIe 2.0 §4.2.6.4 gives only timeouts, 24 ms, not typical durations).
   *
   * @return ns
   */
  public long retrainNs() {
    return retrainNs;
  }

  /**
   * A link whose partner acknowledges nothing for this long, through at least eight replay-timer
   * expiries (two REPLAY_NUM rollovers), is taken down (DL_Down): 24 ms, the LTSSM's
   * Recovery.RcvrLock timeout after which it falls back to Detect (PCIe 2.0 §4.2.6.4.1).
   * Its unacknowledged TLPs are discarded and later writes over it are dropped and counted: the TLPs
   * above can no longer be delivered exactly once (a fatal Surprise Down, which needs a reset).
   *
   * @return ns
   */
  public long linkDownNs() {
    return linkDownNs;
  }

  /**
   * <b>Assumption</b>: in a wall-clock run an Ack waits at least 250 µs for a TLP to share its frame
   * with: each standalone Ack is a frame the host threads must carry and each expiry a thread
   * wake-up, and TCA Verbs writes credits back within that time, which carry the Ack instead.
   *
   * @return ns
   */
  public long wallAckDelayNs() {
    return wallAckDelayNs;
  }

  /**
   * <b>Assumption</b>: in a wall-clock run the replay timeout is at least 1 ms, well above the round
   * trip of a frame and its Ack through two fabric threads on an idle machine; above it, it follows
   * the measured round trips ({@link DataLinkLayer}), so that a lossless run on a loaded machine
   * replays (almost) nothing. A replay that comes too early only costs a duplicate the receiver
   * discards.
   *
   * @return ns
   */
  public long wallReplayTimeoutNs() {
    return wallReplayTimeoutNs;
  }

  /**
   * <b>Assumption</b>: in a wall-clock run the replay timeout, following the measured round trips and
   * doubling on expiries, stays at most 16 ms: a quarter of the 67 ms local ACK timeout verbs
   * programs commonly ask for (timeout 14), so that the link recovers a loss well before the
   * transport above it gives up (on a loaded machine it then replays some frames too early, which
   * costs only duplicates).
   *
   * @return ns
   */
  public long wallMaxReplayTimeoutNs() {
    return wallMaxReplayTimeoutNs;
  }

  /**
   * <b>Assumption</b>: in a wall-clock run a link is taken down only after 5 s without an Ack, so that
   * a pause of the peer's JVM (garbage collection, a loaded machine: 3.4 s was seen with a child JVM
   * on a two-core machine at load 20) is not taken for a broken cable; the netty fabric declares a
   * silent node down after 3 s ({@code verbs.fabric.peer-timeout-ms}).
   *
   * @return ns
   */
  public long wallLinkDownNs() {
    return wallLinkDownNs;
  }

  /**
   * The replay timeout of a link whose frames cross {@code hops} links: the REPLAY_TIMER limit plus
   * three times the uncontended path of a full frame ({@link Peach2Board#MAX_FRAME_DATA}), the
   * specification's ×3 applied to the burst this model sends as one frame; in a wall-clock run at
   * least {@link #wallReplayTimeoutNs()}.
   *
   * @param p the board's parameters (path costs)
   * @param hops links between the two boards, at least 1
   * @param wallClock whether the node clock is the wall clock
   * @return ns
   */
  public long replayTimeoutNs(Peach2Params p, int hops, boolean wallClock) {
    long modelled = replayTimerNs + 3 * p.pathNs(Math.max(1, hops), Peach2Board.MAX_FRAME_DATA);
    return wallClock ? Math.max(modelled, wallReplayTimeoutNs) : modelled;
  }

  /**
   * @param wallClock whether the node clock is the wall clock
   * @return how long an ACK may wait for a TLP to share its frame with, ns
   */
  public long ackDelayNs(boolean wallClock) {
    return wallClock ? Math.max(ackLatencyNs, wallAckDelayNs) : ackLatencyNs;
  }

  /**
   * @param wallClock whether the node clock is the wall clock
   * @return how long a link may go without acknowledgement before it is taken down, ns
   */
  public long linkDownNs(boolean wallClock) {
    return wallClock ? Math.max(linkDownNs, wallLinkDownNs) : linkDownNs;
  }

  @Override
  public String toString() {
    return "DataLinkParams{replayBufferTlps=" + replayBufferTlps + ", ackCoalesceTlps=" + ackCoalesceTlps
        + ", ackLatencyNs=" + ackLatencyNs + ", replayTimerNs=" + replayTimerNs + ", retrainNs=" + retrainNs
        + ", linkDownNs=" + linkDownNs + ", wall ack/replay/down=" + wallAckDelayNs + "/" + wallReplayTimeoutNs + "/"
        + wallLinkDownNs + " ns, wall max replay " + wallMaxReplayTimeoutNs + " ns}";
  }

  /** Builds {@link DataLinkParams}; every field starts at the documented default. */
  public static final class Builder {
    private int replayBufferTlps = MAX_OUTSTANDING_TLPS - 1;
    private int ackCoalesceTlps = 256;
    private long ackLatencyNs = 318;
    private long replayTimerNs = 952;
    private long retrainNs = 2_000;
    private long linkDownNs = 24_000_000;
    private long wallAckDelayNs = 250_000;
    private long wallReplayTimeoutNs = 1_000_000;
    private long wallMaxReplayTimeoutNs = 16_000_000;
    private long wallLinkDownNs = 5_000_000_000L;

    /** A builder with the defaults. */
    public Builder() {}

    private Builder(DataLinkParams p) {
      replayBufferTlps = p.replayBufferTlps;
      ackCoalesceTlps = p.ackCoalesceTlps;
      ackLatencyNs = p.ackLatencyNs;
      replayTimerNs = p.replayTimerNs;
      retrainNs = p.retrainNs;
      linkDownNs = p.linkDownNs;
      wallAckDelayNs = p.wallAckDelayNs;
      wallReplayTimeoutNs = p.wallReplayTimeoutNs;
      wallMaxReplayTimeoutNs = p.wallMaxReplayTimeoutNs;
      wallLinkDownNs = p.wallLinkDownNs;
    }

    /** @param v see {@link DataLinkParams#replayBufferTlps()} @return this */
    public Builder replayBufferTlps(int v) {
      replayBufferTlps = v;
      return this;
    }

    /** @param v see {@link DataLinkParams#ackCoalesceTlps()} @return this */
    public Builder ackCoalesceTlps(int v) {
      ackCoalesceTlps = v;
      return this;
    }

    /** @param v see {@link DataLinkParams#ackLatencyNs()} @return this */
    public Builder ackLatencyNs(long v) {
      ackLatencyNs = v;
      return this;
    }

    /** @param v see {@link DataLinkParams#replayTimerNs()} @return this */
    public Builder replayTimerNs(long v) {
      replayTimerNs = v;
      return this;
    }

    /** @param v see {@link DataLinkParams#retrainNs()} @return this */
    public Builder retrainNs(long v) {
      retrainNs = v;
      return this;
    }

    /** @param v see {@link DataLinkParams#linkDownNs()} @return this */
    public Builder linkDownNs(long v) {
      linkDownNs = v;
      return this;
    }

    /** @param v see {@link DataLinkParams#wallAckDelayNs()} @return this */
    public Builder wallAckDelayNs(long v) {
      wallAckDelayNs = v;
      return this;
    }

    /** @param v see {@link DataLinkParams#wallReplayTimeoutNs()} @return this */
    public Builder wallReplayTimeoutNs(long v) {
      wallReplayTimeoutNs = v;
      return this;
    }

    /** @param v see {@link DataLinkParams#wallMaxReplayTimeoutNs()} @return this */
    public Builder wallMaxReplayTimeoutNs(long v) {
      wallMaxReplayTimeoutNs = v;
      return this;
    }

    /** @param v see {@link DataLinkParams#wallLinkDownNs()} @return this */
    public Builder wallLinkDownNs(long v) {
      wallLinkDownNs = v;
      return this;
    }

    /** @return the parameters */
    public DataLinkParams build() {
      return new DataLinkParams(this);
    }
  }
}
