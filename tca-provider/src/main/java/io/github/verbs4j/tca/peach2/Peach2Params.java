package io.github.verbs4j.tca.peach2;

import static io.github.verbs4j.tca.peach2.ParamChecks.fraction;
import static io.github.verbs4j.tca.peach2.ParamChecks.nonNegative;
import static io.github.verbs4j.tca.peach2.ParamChecks.positive;

/**
 * Every modelled cost of the PEACH2 board, in one place. Each value cites where it
 * comes from: a measured figure of seed 001 (the PEACH2/TCA hardware paper, prototype board, 2013)
 * or seed 000 (TCA Verbs on the production boards of HA-PACS/TCA, 2015), a formula of those papers,
 * or, where the papers give nothing, an explicitly marked <b>assumption</b>. Components that the
 * papers do not measure separately are <b>derived</b> from the end-to-end figures so that the
 * model reproduces them exactly; the derivations are the methods below.
 *
 * <h2>How time is modelled</h2>
 *
 * <ul>
 *   <li>Wire: a PEACH2 write crosses the fabric as one frame per burst (see {@link Peach2Tlp}). The
 *       fabric's link model adds, per hop, {@link #linkLatencyNs()}, at every intermediate board
 *       {@link #forwardNs()}, and the serialisation of the frame at {@link #linkMbs()} on every
 *       link; frames sharing a ring link are serialised on it. The TCA provider configures the
 *       fabric's {@code verbs.link.*} keys with these three values unless they are set explicitly.
 *   <li>Sender: the fixed cost of issuing a write (PIO store, DMA doorbell, descriptor fetch,
 *       source read) is derived so that a 4-byte write to a neighbour arrives exactly at the
 *       measured minimum latency: {@code fixed = measured − linkLatency − wire(4)}. The CPU is
 *       charged only its stores ({@link #dmaDoorbellNs()}); the rest runs on a DMA channel's
 *       timeline or, for PIO, is the store's way to the wire. A DMA reading device memory is
 *       limited by {@link #deviceReadMbs()}.
 *   <li>Local DMA (source and destination on the same node) never touches a link: it is charged
 *       {@code fixed + n / localDmaMbs}.
 *   <li>Software (TCA Verbs) is not here: its few host primitives are {@code tca.verbs.VerbsCosts}.
 *   <li>Link faults: the PCIe data link layer's sequence numbers, LCRC, replay buffer, Ack/Nak and
 *       timers ({@link #dataLink()}) turn a lost or corrupted frame into a replay, which costs wire
 *       time and the timers' waits, never a loss.
 * </ul>
 *
 * <h2>Where the papers disagree</h2>
 *
 * Seed 001 (prototype board, Sandy Bridge hosts) measured a register-mode DMA of 2.4 µs minimum
 * (§4.2.3) and DMA reads of GPU memory saturating at about 870 MB/s (§4.1.2). Seed 000 (production
 * boards, Ivy Bridge hosts) measured 2.0 µs (internal descriptors) and 2.2 µs (host descriptors)
 * minimum regardless of memory kind, and 2.8 GB/s peak from GPU memory (§2.6), the improvement seed
 * 001 §4.1.2 anticipated for Ivy Bridge. This model follows seed 000 for absolute DMA latencies and
 * seed 001 for the relative register-mode gain (30–40 %, §4.1.1), so register mode here is
 * {@code 2.2 µs / 1.4 ≈ 1.57 µs}, not 2.4 µs; the device-memory read rate defaults to seed 001's 870
 * MB/s (configurable: {@code verbs.tca.device-read-mb-s}).
 *
 * <p>Immutable; build variants with {@link #toBuilder()}.
 */
public final class Peach2Params {
  /** Bytes of the fabric's own frame header, which the fabric's link model serialises too. */
  public static final int FABRIC_FRAME_HEADER = 32;

  // ---- PCIe link (seed 001 §3.1, §4.1.1, Table 2) ----
  private final long pcieRawMbs;
  private final int tlpPayloadBytes;
  private final int tlpOverheadBytes;
  private final double sustainedEfficiency;
  private final double localDmaEfficiency;
  private final long linkLatencyNs;
  private final long forwardNs;
  // ---- PIO (seed 001 §3.5.1, §4.2.3) ----
  private final long pioLatencyNs;
  private final long pioStoreMbs;
  // ---- DMA controller (seed 001 §3.5.2, §4.1; seed 000 §2.3, §2.6) ----
  private final int dmaChannels;
  private final int descriptorBytes;
  private final int internalDescriptorCapacity;
  private final long dmaInternalLatencyNs;
  private final long dmaHostLatencyNs;
  private final double registerModeSpeedup;
  private final long descriptorCreateInternalNs;
  private final long descriptorCreateHostNs;
  private final long dmaDoorbellNs;
  private final long deviceReadMbs;
  // ---- interrupt (seed 001 §3.5; seed 002) ----
  private final long interruptNs;
  // ---- PCIe data link layer (PCIe Base 2.0 §3.5) ----
  private final DataLinkParams dataLink;

  private Peach2Params(Builder b) {
    this.pcieRawMbs = positive("pcieRawMbs", b.pcieRawMbs);
    this.tlpPayloadBytes = (int) positive("tlpPayloadBytes", b.tlpPayloadBytes);
    this.tlpOverheadBytes = (int) nonNegative("tlpOverheadBytes", b.tlpOverheadBytes);
    this.sustainedEfficiency = fraction("sustainedEfficiency", b.sustainedEfficiency);
    this.localDmaEfficiency = fraction("localDmaEfficiency", b.localDmaEfficiency);
    this.linkLatencyNs = nonNegative("linkLatencyNs", b.linkLatencyNs);
    this.forwardNs = nonNegative("forwardNs", b.forwardNs);
    this.pioLatencyNs = nonNegative("pioLatencyNs", b.pioLatencyNs);
    this.pioStoreMbs = positive("pioStoreMbs", b.pioStoreMbs);
    this.dmaChannels = (int) positive("dmaChannels", b.dmaChannels);
    this.descriptorBytes = (int) positive("descriptorBytes", b.descriptorBytes);
    this.internalDescriptorCapacity = (int) positive("internalDescriptorCapacity", b.internalDescriptorCapacity);
    this.dmaInternalLatencyNs = nonNegative("dmaInternalLatencyNs", b.dmaInternalLatencyNs);
    this.dmaHostLatencyNs = nonNegative("dmaHostLatencyNs", b.dmaHostLatencyNs);
    if (b.registerModeSpeedup < 1.0) {
      throw new IllegalArgumentException("registerModeSpeedup=" + b.registerModeSpeedup + " must be at least 1");
    }
    this.registerModeSpeedup = b.registerModeSpeedup;
    this.descriptorCreateInternalNs = nonNegative("descriptorCreateInternalNs", b.descriptorCreateInternalNs);
    this.descriptorCreateHostNs = nonNegative("descriptorCreateHostNs", b.descriptorCreateHostNs);
    this.dmaDoorbellNs = nonNegative("dmaDoorbellNs", b.dmaDoorbellNs);
    this.deviceReadMbs = positive("deviceReadMbs", b.deviceReadMbs);
    this.interruptNs = nonNegative("interruptNs", b.interruptNs);
    this.dataLink = java.util.Objects.requireNonNull(b.dataLink, "dataLink");
    if (dmaHostLatencyNs < dmaInternalLatencyNs) {
      throw new IllegalArgumentException("dmaHostLatencyNs=" + dmaHostLatencyNs + " is below dmaInternalLatencyNs="
          + dmaInternalLatencyNs + " (host descriptors are fetched over PCIe, seed 000 §2.3)");
    }
    if (dmaFixedNs(DescriptorMode.REGISTER) < dmaDoorbellNs || pioIssueNs() < 0) {
      throw new IllegalArgumentException("measured latencies pio=" + pioLatencyNs + " ns, dma=" + dmaInternalLatencyNs
          + " ns are below linkLatencyNs=" + linkLatencyNs + " + wire(4 bytes)=" + wireNs(4));
    }
  }

  /** @return the production HA-PACS/TCA board under TCA Verbs (see the class comment) */
  public static Peach2Params defaults() {
    return new Builder().build();
  }

  /** @return a builder starting from these values */
  public Builder toBuilder() {
    return new Builder(this);
  }

  // ================================================================= link

  /**
   * PCIe Gen2 x8 raw bandwidth per direction: 8 lanes × 5 GT/s × 8b/10b = 4 GB/s (seed 001 §3.1.1,
   * §4.1.1 "PCIe Gen2 x8 レーンで 4 Gbyte/sec").
   *
   * @return MB/s
   */
  public long pcieRawMbs() {
    return pcieRawMbs;
  }

  /**
   * PCIe max payload per TLP between PEACH2 and the host: 256 bytes (seed 001 Table 2).
   *
   * @return bytes
   */
  public int tlpPayloadBytes() {
    return tlpPayloadBytes;
  }

  /**
   * Per-TLP overhead on the wire: TLP header 16 + sequence number 2 + LCRC 4 + start and end framing
   * 1 + 1 = 24 bytes (seed 001 §4.1.1).
   *
   * @return bytes
   */
  public int tlpOverheadBytes() {
    return tlpOverheadBytes;
  }

  /**
   * The theoretical peak of seed 001 §4.1.1: {@code 4 GB/s × 256 / (256 + 16 + 2 + 4 + 1 + 1) =
   * 3.66 GB/s}.
   *
   * @return MB/s (fractional)
   */
  public double theoreticalMbs() {
    return (double) pcieRawMbs * tlpPayloadBytes / (tlpPayloadBytes + tlpOverheadBytes);
  }

  /**
   * Measured sustained fraction of the theoretical peak between nodes: 3.5 GB/s of 3.66 GB/s (seed
   * 001 §4.2.3: "理論ピーク性能の約96%"; the English abstract says 95 %).
   *
   * @return a fraction
   */
  public double sustainedEfficiency() {
    return sustainedEfficiency;
  }

  /**
   * Measured fraction for DMA within one node: 3.3 GB/s, 90 % of 3.66 GB/s, for 128 × 4 KiB (seed 001
   * §4.1.1; read and write compete for the same host memory).
   *
   * @return a fraction
   */
  public double localDmaEfficiency() {
    return localDmaEfficiency;
  }

  /**
   * The payload bandwidth of a link in the model: {@link #theoreticalMbs()} × {@link
   * #sustainedEfficiency()} ≈ 3496 MB/s, so large transfers reach seed 001's 3.5 GB/s.
   *
   * @return MB/s, rounded down
   */
  public long linkMbs() {
    return (long) Math.floor(theoreticalMbs() * sustainedEfficiency);
  }

  /** @return MB/s of a DMA whose source and destination are on the same node */
  public long localDmaMbs() {
    return (long) Math.floor(theoreticalMbs() * localDmaEfficiency);
  }

  /**
   * <b>Assumption</b>: time for a write's head to cross one PEACH2-to-PEACH2 cable including both
   * PCIe hard IPs, 250 ns. The papers report no per-hop figure (seed 001 §3.2 only bounds an
   * 8-node sub-cluster to 3 hops).
   *
   * @return ns
   */
  public long linkLatencyNs() {
    return linkLatencyNs;
  }

  /**
   * <b>Assumption</b>: routing cost at each intermediate board (address compare against the
   * mask/range registers and cut-through to the out port at 250 MHz, seed 001 §3.4, §3.6), 300 ns.
   *
   * @return ns
   */
  public long forwardNs() {
    return forwardNs;
  }

  /**
   * The PCIe data link layer: replay buffer, Ack coalescing, replay and AckNak latency timers,
   * retrain and link-down times (PCIe Base 2.0 §3.5, see {@link DataLinkParams}).
   *
   * @return its parameters
   */
  public DataLinkParams dataLink() {
    return dataLink;
  }

  /**
   * Wire serialisation of one frame carrying {@code dataBytes} as the fabric computes it:
   * {@code ceil((32 + 8 + 24 + data) × 1000 / linkMbs)} (fabric header, link framing and LCRC
   * ({@link LinkFrame}), TLP header, data).
   *
   * @param dataBytes data bytes of the write
   * @return ns
   */
  public long wireNs(long dataBytes) {
    long b = FABRIC_FRAME_HEADER + LinkFrame.TLP_OVERHEAD + Peach2Tlp.HEADER_LENGTH + dataBytes;
    long mbs = linkMbs();
    return (b * 1000 + mbs - 1) / mbs;
  }

  /**
   * Modelled one-way latency of a write of {@code dataBytes} over {@code hops} links without
   * contention, after the sender's fixed cost: {@code hops × linkLatency + (hops − 1) × forward +
   * wire}.
   *
   * @param hops links crossed, at least 1
   * @param dataBytes data bytes
   * @return ns
   */
  public long pathNs(int hops, long dataBytes) {
    return hops * linkLatencyNs + (hops - 1L) * forwardNs + wireNs(dataBytes);
  }

  // ================================================================= PIO

  /**
   * Minimum CPU-to-remote-CPU latency of a PIO write to a neighbour: 0.9 µs (seed 001 §4.2.3,
   * abstract).
   *
   * @return ns
   */
  public long pioLatencyNs() {
    return pioLatencyNs;
  }

  /**
   * <b>Assumption</b>: rate of CPU stores into the mapped window (write-combined), 2000 MB/s; PIO is
   * for "a few bytes" (seed 001 §3.5.1, §4.2.3) and large PIO writes are not measured.
   *
   * @return MB/s
   */
  public long pioStoreMbs() {
    return pioStoreMbs;
  }

  /**
   * Derived: the sender's cost of a PIO write before the wire, so that a 4-byte write to a
   * neighbour arrives at {@link #pioLatencyNs()}: {@code pioLatency − linkLatency − wire(4)}.
   *
   * @return ns
   */
  public long pioIssueNs() {
    return pioLatencyNs - linkLatencyNs - wireNs(4);
  }

  /**
   * The sender's cost of a PIO write of {@code bytes}: the issue cost plus the stores beyond the
   * first dword.
   *
   * @param bytes bytes stored
   * @return ns
   */
  public long pioNs(long bytes) {
    return pioIssueNs() + Math.max(0, bytes - 4) * 1000 / pioStoreMbs;
  }

  // ================================================================= DMA

  /**
   * DMA channels of the controller: 4 (seed 001 §3.5.2, seed 000 §2.3).
   *
   * @return channels
   */
  public int dmaChannels() {
    return dmaChannels;
  }

  /**
   * Size of one descriptor: 32 bytes, so 128 fill a 4 KiB page (seed 001 §4.1.1).
   *
   * @return bytes
   */
  public int descriptorBytes() {
    return descriptorBytes;
  }

  /**
   * Descriptors the board's internal memory holds: 1024 (seed 000 §2.3).
   *
   * @return descriptors
   */
  public int internalDescriptorCapacity() {
    return internalDescriptorCapacity;
  }

  /**
   * Minimum DMA latency with descriptors in internal memory: 2.0 µs, CPU or GPU memory alike (seed
   * 000 §2.6, Fig. 2 "Internal").
   *
   * @return ns
   */
  public long dmaInternalLatencyNs() {
    return dmaInternalLatencyNs;
  }

  /**
   * Minimum DMA latency with descriptors in host memory: 2.2 µs (seed 000 §2.6, Fig. 2 "Host").
   * The difference to internal memory is the fetch of the descriptor over PCIe, charged for the
   * first descriptor of a chain and overlapped with the transfer for the following ones (seed 001
   * §4.1.1: "2 回以降の結果は...ディスクリプタの個数にはあまり影響がない").
   *
   * @return ns
   */
  public long dmaHostLatencyNs() {
    return dmaHostLatencyNs;
  }

  /**
   * Register mode is 30–40 % faster than descriptor mode for a single transfer of up to 2 KiB
   * (seed 001 §4.1.1, Fig. 5): 1.4 at the smallest sizes, ≈1.3 at 2 KiB in this model.
   *
   * @return the speedup of the smallest transfer
   */
  public double registerModeSpeedup() {
    return registerModeSpeedup;
  }

  /**
   * Derived: register-mode minimum latency, {@code dmaHostLatency / registerModeSpeedup} (≈ 1.57
   * µs; seed 001 §4.2.3 measured 2.4 µs on the prototype board, see the class comment).
   *
   * @return ns
   */
  public long dmaRegisterLatencyNs() {
    return Math.round(dmaHostLatencyNs / registerModeSpeedup);
  }

  /**
   * The measured minimum latency of a transfer in {@code mode}.
   *
   * @param mode descriptor placement
   * @return ns
   */
  public long dmaLatencyNs(DescriptorMode mode) {
    return switch (mode) {
      case INTERNAL -> dmaInternalLatencyNs;
      case HOST -> dmaHostLatencyNs;
      case REGISTER -> dmaRegisterLatencyNs();
    };
  }

  /**
   * Derived: the sender's fixed cost of starting a DMA in {@code mode} (doorbell, first
   * descriptor fetch, source read latency), {@code latency(mode) − linkLatency − wire(4)}.
   *
   * @param mode descriptor placement
   * @return ns
   */
  public long dmaFixedNs(DescriptorMode mode) {
    return dmaLatencyNs(mode) - linkLatencyNs - wireNs(4);
  }

  /**
   * <b>Assumption</b>: what starting a DMA costs the CPU, 100 ns: the doorbell, one posted MMIO store
   * to the channel's start register (seed 001 §3.5.2). The rest of {@link #dmaFixedNs} runs on the
   * channel's own timeline ({@link #dmaStartNs}), so the CPU and the four channels overlap.
   *
   * @return ns
   */
  public long dmaDoorbellNs() {
    return dmaDoorbellNs;
  }

  /**
   * Derived: the channel's own start-up before the first data leaves — engine start, first
   * descriptor fetch (internal memory, host memory over PCIe, or none in register mode) and the
   * source read latency — {@code dmaFixed(mode) − doorbell}.
   *
   * @param mode descriptor placement
   * @return ns
   */
  public long dmaStartNs(DescriptorMode mode) {
    return dmaFixedNs(mode) - dmaDoorbellNs;
  }

  /**
   * Derived: fetching one more host-memory descriptor of a chain, {@code dmaHostLatency −
   * dmaInternalLatency} (0.2 µs); it overlaps the previous descriptor's transfer.
   *
   * @return ns
   */
  public long hostDescriptorFetchNs() {
    return dmaHostLatencyNs - dmaInternalLatencyNs;
  }

  /**
   * <b>Assumption</b>: creating one descriptor in internal memory, 1 µs (four posted 8-byte MMIO
   * writes and a read-back); seed 000 §2.3 says it is slow because every descriptor needs a
   * device access, without a figure.
   *
   * @return ns
   */
  public long descriptorCreateInternalNs() {
    return descriptorCreateInternalNs;
  }

  /**
   * <b>Assumption</b>: creating one descriptor in host memory, 30 ns (a 32-byte store; seed 000 §2.3:
   * it "completes within the host").
   *
   * @return ns
   */
  public long descriptorCreateHostNs() {
    return descriptorCreateHostNs;
  }

  /**
   * DMA reads of GPU ("device") memory saturate at about 870 MB/s (seed 001 §4.1.2; 880 MB/s in
   * §4.2.3). Seed 000 §2.6 reports 2.8 GB/s on Ivy Bridge hosts; see the class comment.
   *
   * @return MB/s
   */
  public long deviceReadMbs() {
    return deviceReadMbs;
  }

  /**
   * The sender's extra cost when a DMA reads {@code bytes} of device memory: the time by which the
   * device read rate is slower than the link, {@code bytes × (1/deviceRead − 1/link)}.
   *
   * @param bytes bytes read from device memory
   * @return ns
   */
  public long deviceReadExcessNs(long bytes) {
    long link = linkMbs();
    if (deviceReadMbs >= link) {
      return 0;
    }
    return bytes * 1000 / deviceReadMbs - bytes * 1000 / link;
  }

  /**
   * The transfer time of a local DMA (same node) of {@code bytes}.
   *
   * @param bytes bytes
   * @return ns
   */
  public long localTransferNs(long bytes) {
    return bytes * 1000 / localDmaMbs();
  }

  // ================================================================= interrupt

  /**
   * Cost of delivering an interrupt to the host and waking the handler: 35.0 µs, the only interrupt
   * figure in the seeds (seed 002, {@code t_int} measured on an IB HCA's interrupt path). Seed 001
   * §3.5 describes PEACH2's remotely writable interrupt register without a latency.
   *
   * @return ns
   */
  public long interruptNs() {
    return interruptNs;
  }

  @Override
  public String toString() {
    return "Peach2Params{linkMbs=" + linkMbs() + " (theoretical " + Math.round(theoreticalMbs()) + "), linkLatencyNs="
        + linkLatencyNs + ", forwardNs=" + forwardNs + ", pio=" + pioLatencyNs + " ns, dma internal/host/register="
        + dmaInternalLatencyNs + "/" + dmaHostLatencyNs + "/" + dmaRegisterLatencyNs() + " ns, deviceReadMbs="
        + deviceReadMbs + ", interruptNs=" + interruptNs + ", " + dataLink + "}";
  }

  /** Builds {@link Peach2Params}; every field starts at the documented default. */
  public static final class Builder {
    private long pcieRawMbs = 4000;
    private long tlpPayloadBytes = 256;
    private long tlpOverheadBytes = 16 + 2 + 4 + 1 + 1;
    private double sustainedEfficiency = 0.956;
    private double localDmaEfficiency = 0.90;
    private long linkLatencyNs = 250;
    private long forwardNs = 300;
    private long pioLatencyNs = 900;
    private long pioStoreMbs = 2000;
    private long dmaChannels = 4;
    private long descriptorBytes = 32;
    private long internalDescriptorCapacity = 1024;
    private long dmaInternalLatencyNs = 2000;
    private long dmaHostLatencyNs = 2200;
    private double registerModeSpeedup = 1.4;
    private long descriptorCreateInternalNs = 1000;
    private long descriptorCreateHostNs = 30;
    private long dmaDoorbellNs = 100;
    private long deviceReadMbs = 870;
    private long interruptNs = 35_000;
                  private DataLinkParams dataLink = DataLinkParams.defaults();

    /** A builder with the defaults. */
    public Builder() {}

    private Builder(Peach2Params p) {
      pcieRawMbs = p.pcieRawMbs;
      tlpPayloadBytes = p.tlpPayloadBytes;
      tlpOverheadBytes = p.tlpOverheadBytes;
      sustainedEfficiency = p.sustainedEfficiency;
      localDmaEfficiency = p.localDmaEfficiency;
      linkLatencyNs = p.linkLatencyNs;
      forwardNs = p.forwardNs;
      pioLatencyNs = p.pioLatencyNs;
      pioStoreMbs = p.pioStoreMbs;
      dmaChannels = p.dmaChannels;
      descriptorBytes = p.descriptorBytes;
      internalDescriptorCapacity = p.internalDescriptorCapacity;
      dmaInternalLatencyNs = p.dmaInternalLatencyNs;
      dmaHostLatencyNs = p.dmaHostLatencyNs;
      registerModeSpeedup = p.registerModeSpeedup;
      descriptorCreateInternalNs = p.descriptorCreateInternalNs;
      descriptorCreateHostNs = p.descriptorCreateHostNs;
      dmaDoorbellNs = p.dmaDoorbellNs;
      deviceReadMbs = p.deviceReadMbs;
      interruptNs = p.interruptNs;
      dataLink = p.dataLink;
    }

    /** @param v see {@link Peach2Params#linkLatencyNs()} @return this */
    public Builder linkLatencyNs(long v) {
      linkLatencyNs = v;
      return this;
    }

    /** @param v see {@link Peach2Params#forwardNs()} @return this */
    public Builder forwardNs(long v) {
      forwardNs = v;
      return this;
    }

    /** @param v see {@link Peach2Params#sustainedEfficiency()} @return this */
    public Builder sustainedEfficiency(double v) {
      sustainedEfficiency = v;
      return this;
    }

    /** @param v see {@link Peach2Params#pioLatencyNs()} @return this */
    public Builder pioLatencyNs(long v) {
      pioLatencyNs = v;
      return this;
    }

    /** @param v see {@link Peach2Params#dmaInternalLatencyNs()} @return this */
    public Builder dmaInternalLatencyNs(long v) {
      dmaInternalLatencyNs = v;
      return this;
    }

    /** @param v see {@link Peach2Params#dmaHostLatencyNs()} @return this */
    public Builder dmaHostLatencyNs(long v) {
      dmaHostLatencyNs = v;
      return this;
    }

    /** @param v see {@link Peach2Params#registerModeSpeedup()} @return this */
    public Builder registerModeSpeedup(double v) {
      registerModeSpeedup = v;
      return this;
    }

    /** @param v see {@link Peach2Params#internalDescriptorCapacity()} @return this */
    public Builder internalDescriptorCapacity(int v) {
      internalDescriptorCapacity = v;
      return this;
    }

    /** @param v see {@link Peach2Params#deviceReadMbs()} @return this */
    public Builder deviceReadMbs(long v) {
      deviceReadMbs = v;
      return this;
    }

    /** @param v see {@link Peach2Params#interruptNs()} @return this */
    public Builder interruptNs(long v) {
      interruptNs = v;
      return this;
    }

    /** @param v see {@link Peach2Params#dataLink()} @return this */
    public Builder dataLink(DataLinkParams v) {
      dataLink = v;
      return this;
    }

    /** @return the parameters */
    public Peach2Params build() {
      return new Peach2Params(this);
    }
  }
}
