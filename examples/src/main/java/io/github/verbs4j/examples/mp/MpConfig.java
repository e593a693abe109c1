package io.github.verbs4j.examples.mp;

import java.time.Duration;

/**
 * Settings of the verbs communicator.
 *
 * @param eagerLimit messages up to this many bytes go eagerly, copied through pre-posted receive
 *     slots; longer ones by rendezvous
 * @param slots receive slots (and send slots) per peer; also the flow-control window
 * @param rendezvous how a rendezvous message moves: the sender RDMA-WRITEs into the receiver's
 *     buffer, or the receiver RDMA-READs from the sender's
 * @param timeout the longest wait for one request
 * @param strategy how peers get their queue pairs and eager rings
 * @param gamma with {@link Strategy#ON_DEMAND}: the most contexts (QP + ring) a rank opens
 *     itself (γ of seed 003 §3.2)
 * @param sharedReceive 0: every link has its own receive slots; else this many receive buffers of
 *     one slot each in one SRQ that every link shares (seed 003 §3.4: 2 × 2,048 × 4 KiB)
 * @param dcInitiators with {@link Strategy#DC}: DC initiators per rank (seed 003 §3.3: 2); peer r
 *     uses initiator r mod this
 * @param hybrid with {@link Strategy#HYBRID}: when a source is switched from the DC channel to an RC
 *     link
 */
public record MpConfig(int eagerLimit, int slots, Rendezvous rendezvous, Duration timeout, Strategy strategy,
    int gamma, int sharedReceive, int dcInitiators, Hybrid hybrid) {
  /** Default eager limit: 8 KiB. */
  public static final int DEFAULT_EAGER_LIMIT = 8192;
  /** Default slots per peer. */
  public static final int DEFAULT_SLOTS = 32;
  /** Slots kept for credit-return messages, which need no credit themselves. */
  static final int RESERVED_SLOTS = 4;
  /** Default DC initiators per rank: seed 003 §3.3's two data DC QPs. */
  public static final int DEFAULT_DC_INITIATORS = 2;
  /** Default γ: 1,024 contexts (seed 003 §3.2). */
  public static final int DEFAULT_GAMMA = 1024;

  /** Connection strategies (seed 003 §2.3, §3.2): when a peer's RC QP and eager ring exist. */
  public enum Strategy {
    /** An RC QP and an eager ring for every other rank, created and connected at start. */
    BASELINE,
    /**
     * A peer's RC QP and ring are created on first use (set up over a UD control QP whose address
     * is in the job's KVS); a rank opens at most γ of them and closes one to open another: the one
     * used furthest in the future when a schedule is given ({@link VerbsCommunicator#schedule}),
     * else the least recently used.
     */
    ON_DEMAND,
    /**
     * Dynamically connected transport (seed 003 §3.3): two DC initiators and one DC target per rank
     * serve every peer; receives go to a shared pool ({@link MpConfig#sharedReceive()}, default
     * {@link MpConfig#DEFAULT_DC_POOL}); a peer needs only an address handle and send slots, made on
     * first use. Needs a device with DC.
     */
    DC,
    /**
     * Seed 003 §3.3/§3.5: every peer starts on the DC channel ({@link #DC}); each rank counts the
     * messages it receives per source rank in a history of time windows, and a source whose count
     * over the history reaches {@link Hybrid#threshold()} is switched to an RC link with its own
     * eager ring, while the rank holds fewer than {@link Hybrid#rcLinks()} of them (beyond that it
     * stays on the DC channel). The switch is a handshake of markers on the DC channel, so nothing
     * is lost, duplicated or reordered ({@link HybridSwitch}). Needs a device with DC.
     */
    HYBRID,
    /**
     * Seed 003's reduced design (§3.1, §3.4): the {@link #HYBRID}, with the ranks of a node ({@link
     * Hybrid#ppn()} consecutive ranks) sharing one file of rings in shared memory and the node's cap of
     * RC links ({@link NodeRings}): a node preallocates {@value HybridSwitch#RINGS} rings less its RC
     * cap once, for all its ranks. The rank table is hashed, as in every strategy ({@link
     * PeerTable}). Needs a device with DC, and the ranks of a node on one host.
     */
    SHARED;

    /** @return whether sources switch among the DC channel, RC and DC RDMA ({@link #HYBRID}, {@link #SHARED}) */
    public boolean switches() {
      return this == HYBRID || this == SHARED;
    }
  }

  /**
   * When {@link Strategy#HYBRID} moves a source rank from the DC channel to an RC link.
   *
   * @param threshold messages received from one source within the history (its {@link
   *     TrafficHistory#entries(int)} windows of {@code interval}) that earn it an RC link; seed 003
   *     gives no value: assumption, {@link #DEFAULT_THRESHOLD}
   * @param interval the length of one history window; seed 003 §3.3 decides "every interval of the
   *     order of seconds": 1 s
   * @param rcLinks the most RC links a rank holds; seed 003 §3.3 allows 128 RC QPs per node, so this
   *     is 128 / processes per node (default 128: one process per node, an assumption); with {@link
   *     Strategy#SHARED} the most the ranks of a node hold together
   * @param ppn with {@link Strategy#SHARED}: consecutive ranks that form a node and share its rings
   *     and RC links (seed 003 evaluates m = 4)
   */
  public record Hybrid(int threshold, Duration interval, int rcLinks, int ppn) {
    /** Assumption: 64 messages (four fills of a 16-slot ring) within the history earn a ring. */
    public static final int DEFAULT_THRESHOLD = 64;
    /** Seed 003 §3.3: RC QPs per node. */
    public static final int RC_QPS_PER_NODE = 128;
    /** Seed 003 §4: processes per node. */
    public static final int DEFAULT_PPN = 4;

    /** With {@link #DEFAULT_PPN} ranks per node. */
    public Hybrid(int threshold, Duration interval, int rcLinks) {
      this(threshold, interval, rcLinks, DEFAULT_PPN);
    }

    /** Checks the ranges. */
    public Hybrid {
      if (threshold < 1) {
        throw new IllegalArgumentException("hybrid threshold=" + threshold + " must be at least 1");
      }
      if (interval == null || interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("hybrid interval=" + interval + " must be positive");
      }
      if (rcLinks < 0 || rcLinks > 65535) {
        throw new IllegalArgumentException("hybrid rcLinks=" + rcLinks + " must be between 0 and 65535");
      }
      if (ppn < 1 || ppn > 1024) {
        throw new IllegalArgumentException("hybrid ppn=" + ppn + " must be between 1 and 1024");
      }
    }

    /** @return threshold 64 messages, 1 s windows, 128 RC links */
    public static Hybrid defaults() {
      return new Hybrid(DEFAULT_THRESHOLD, Duration.ofSeconds(1), RC_QPS_PER_NODE);
    }
  }

  /** Shared receive buffers of {@link Strategy#DC} when none are set. */
  public static final int DEFAULT_DC_POOL = 256;

  /** How rendezvous data moves. */
  public enum Rendezvous {
    /** RTS, CTS with the receiver's buffer, RDMA WRITE, FIN. */
    WRITE,
    /** RTS with the sender's buffer, RDMA READ by the receiver, FIN. */
    READ
  }

  /** Checks the ranges. */
  public MpConfig {
    if (eagerLimit < 0 || eagerLimit > (1 << 20)) {
      throw new IllegalArgumentException("eagerLimit=" + eagerLimit + " must be between 0 and 1048576");
    }
    if (slots < 2 * RESERVED_SLOTS || slots > 4096) {
      throw new IllegalArgumentException("slots=" + slots + " must be between " + 2 * RESERVED_SLOTS + " and 4096");
    }
    if (rendezvous == null) {
      throw new IllegalArgumentException("rendezvous must be WRITE or READ");
    }
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout=" + timeout + " must be positive");
    }
    if (strategy == null) {
      throw new IllegalArgumentException("strategy must be BASELINE, ON_DEMAND, DC, HYBRID or SHARED");
    }
    if (gamma < 1 || gamma > 65535) {
      throw new IllegalArgumentException("gamma=" + gamma + " must be between 1 and 65535");
    }
    if (sharedReceive != 0 && (sharedReceive < 2 * RESERVED_SLOTS || sharedReceive > 1 << 20)) {
      throw new IllegalArgumentException("sharedReceive=" + sharedReceive + " must be 0 (off) or between "
          + 2 * RESERVED_SLOTS + " and 1048576");
    }
    if (dcInitiators < 1 || dcInitiators > 64) {
      throw new IllegalArgumentException("dcInitiators=" + dcInitiators + " must be between 1 and 64");
    }
    if (hybrid == null) {
      throw new IllegalArgumentException("hybrid settings must be given");
    }
  }

  /** @return 8 KiB eager limit, 32 slots, WRITE rendezvous, 120 s timeout, baseline strategy, γ 1,024, no SRQ */
  public static MpConfig defaults() {
    return new MpConfig(DEFAULT_EAGER_LIMIT, DEFAULT_SLOTS, Rendezvous.WRITE, Duration.ofSeconds(120),
        Strategy.BASELINE, DEFAULT_GAMMA, 0, DEFAULT_DC_INITIATORS, Hybrid.defaults());
  }

  /**
   * @param c the connection strategy
   * @return a copy with it
   */
  public MpConfig withStrategy(Strategy c) {
    return new MpConfig(eagerLimit, slots, rendezvous, timeout, c, gamma, sharedReceive, dcInitiators, hybrid);
  }

  /**
   * @param buffers receive buffers in one shared SRQ, or 0 for receive slots per link
   * @return a copy with it
   */
  public MpConfig withSharedReceive(int buffers) {
    return new MpConfig(eagerLimit, slots, rendezvous, timeout, strategy, gamma, buffers, dcInitiators, hybrid);
  }

  /**
   * @param g the most contexts a rank opens ({@link Strategy#ON_DEMAND})
   * @return a copy with it
   */
  public MpConfig withGamma(int g) {
    return new MpConfig(eagerLimit, slots, rendezvous, timeout, strategy, g, sharedReceive, dcInitiators, hybrid);
  }

  /**
   * @param n DC initiators per rank ({@link Strategy#DC})
   * @return a copy with it
   */
  public MpConfig withDcInitiators(int n) {
    return new MpConfig(eagerLimit, slots, rendezvous, timeout, strategy, gamma, sharedReceive, n, hybrid);
  }

  /**
   * @param h when {@link Strategy#HYBRID} switches a source to RC
   * @return a copy with it
   */
  public MpConfig withHybrid(Hybrid h) {
    return new MpConfig(eagerLimit, slots, rendezvous, timeout, strategy, gamma, sharedReceive, dcInitiators, h);
  }

  /**
   * @param limit the eager limit
   * @return a copy with it
   */
  public MpConfig withEagerLimit(int limit) {
    return new MpConfig(limit, slots, rendezvous, timeout, strategy, gamma, sharedReceive, dcInitiators, hybrid);
  }

  /**
   * @param mode the rendezvous mode
   * @return a copy with it
   */
  public MpConfig withRendezvous(Rendezvous mode) {
    return new MpConfig(eagerLimit, slots, mode, timeout, strategy, gamma, sharedReceive, dcInitiators, hybrid);
  }

  /**
   * @param t the timeout
   * @return a copy with it
   */
  public MpConfig withTimeout(Duration t) {
    return new MpConfig(eagerLimit, slots, rendezvous, t, strategy, gamma, sharedReceive, dcInitiators, hybrid);
  }

  /**
   * @param n slots per peer
   * @return a copy with it
   */
  public MpConfig withSlots(int n) {
    return new MpConfig(eagerLimit, n, rendezvous, timeout, strategy, gamma, sharedReceive, dcInitiators, hybrid);
  }
}
