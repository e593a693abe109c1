package io.github.verbs4j.tca.peach2;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one board did, counted where it happens: bytes and transfers by kind (PIO, DMA per
 * descriptor mode) and scope (to another node, or local), TLPs, frames and hops on the wire, rule
 * violations by rule, interrupt register writes and interrupts delivered, descriptors created,
 * frames received and dropped, and what the data link layer did to hide faults ({@link Link}:
 * replays, Naks, LCRC errors, duplicates, timer expiries, retrains, links taken down). Micrometer
 * meters ({@code verbs4j.tca.peach2.*}, tag {@code node}: function counters over the same
 * LongAdders {@link #snapshot()} reads, so counting never allocates) removed again by {@link
 * #close()}. Thread-safe.
 */
public final class Peach2Counters implements AutoCloseable {
  private final MeterRegistry registry;
  private final String node;
  private final Map<TransferKind, Kind> kinds = new EnumMap<>(TransferKind.class);
  private final Map<DmaRule, Pair> violations = new EnumMap<>(DmaRule.class);
  private final Map<DescriptorMode, Pair> created = new EnumMap<>(DescriptorMode.class);
  private final Pair framesSent;
  private final Pair frameBytesSent;
  private final Pair hops;
  private final AtomicLong maxHops = new AtomicLong();
  private final Pair framesReceived;
  private final Pair frameBytesReceived;
  private final Pair interruptWrites;
  private final Pair interruptsDelivered;
  private final Pair bounceCopies;
  private final Map<String, Pair> drops = new java.util.concurrent.ConcurrentHashMap<>();
  private final Pair[] link = new Pair[Link.values().length];
  /** Every meter registered, for {@link #close()}. */
  private final List<Meter> meters = new CopyOnWriteArrayList<>();

  /** A LongAdder and the Micrometer function counter that reads it. */
  static final class Pair {
    final LongAdder value = new LongAdder();

    Pair(MeterRegistry r, List<Meter> meters, String name, String doc, String baseUnit, String... tags) {
      FunctionCounter.Builder<LongAdder> b = FunctionCounter.builder(name, value, LongAdder::sum).description(doc)
          .tags(tags);
      if (baseUnit != null) {
        b.baseUnit(baseUnit);
      }
      meters.add(b.register(r));
    }

    void add(long n) {
      if (n != 0) {
        value.add(n);
      }
    }

    long get() {
      return value.sum();
    }
  }

  private static final class Kind {
    final Pair transfers;
    final Pair remoteBytes;
    final Pair localBytes;
    final Pair tlps;

    Kind(MeterRegistry r, List<Meter> meters, String node, TransferKind k) {
      transfers = new Pair(r, meters, "verbs4j.tca.peach2.transfers", "PEACH2 transfers started", null, "node", node,
          "kind", k.tag());
      remoteBytes = new Pair(r, meters, "verbs4j.tca.peach2.bytes", "data bytes written to other nodes", "bytes",
          "node", node, "kind", k.tag(), "scope", "remote");
      localBytes = new Pair(r, meters, "verbs4j.tca.peach2.bytes", "data bytes written within this node", "bytes",
          "node", node, "kind", k.tag(), "scope", "local");
      tlps = new Pair(r, meters, "verbs4j.tca.peach2.tlps", "memory-write TLPs (256-byte max payload)", null, "node",
          node, "kind", k.tag());
    }
  }

  /**
   * @param registry where meters go
   * @param nodeId the board's node
   */
  public Peach2Counters(MeterRegistry registry, int nodeId) {
    this.registry = registry;
    this.node = Integer.toString(nodeId);
    for (TransferKind k : TransferKind.values()) {
      kinds.put(k, new Kind(registry, meters, node, k));
    }
    for (DmaRule r : DmaRule.values()) {
      violations.put(r, pair("verbs4j.tca.peach2.rule.violations", "rule", r.tag(), "DMA requests refused by a hardware rule"));
    }
    for (DescriptorMode m : DescriptorMode.values()) {
      if (m != DescriptorMode.REGISTER) {
        created.put(m, pair("verbs4j.tca.peach2.descriptors.created", "mode", m.name().toLowerCase(java.util.Locale.ROOT),
            "DMA descriptors written"));
      }
    }
    framesSent = pair("verbs4j.tca.peach2.frames.sent", null, null,
        "frames sent to other nodes (write TLPs, their replays, DLLPs)");
    frameBytesSent = pair("verbs4j.tca.peach2.frame.bytes.sent", null, null,
        "frame bytes (link framing, TLP headers, data, DLLPs) sent");
    hops = pair("verbs4j.tca.peach2.hops", null, null, "links crossed by frames sent (sum)");
    framesReceived = pair("verbs4j.tca.peach2.frames.received", null, null, "write frames received in sequence");
    frameBytesReceived = pair("verbs4j.tca.peach2.frame.bytes.received", null, null, "frame bytes received");
    interruptWrites = pair("verbs4j.tca.peach2.interrupt.writes", null, null, "writes to this board's interrupt register");
    interruptsDelivered = pair("verbs4j.tca.peach2.interrupts", null, null, "interrupts delivered to the host");
    bounceCopies = pair("verbs4j.tca.peach2.bounce.copies", null, null, "CPU copies into or out of pool bounce buffers");
    for (Link l : Link.values()) {
      link[l.ordinal()] = pair("verbs4j.tca.peach2.link." + l.meter, null, null, l.doc);
    }
  }

  /** What the data link layer counts, each a meter {@code verbs4j.tca.peach2.link.<name>}. */
  public enum Link {
    /** Replays started (by a Nak or the replay timer): every unacknowledged frame sent again. */
    REPLAYS("replays", "replays of the unacknowledged TLPs (after a Nak or a replay-timer expiry)"),
    /** Frames sent again by replays. */
    REPLAYED_FRAMES("replayed.frames", "TLP frames sent again by replays"),
    /** Replay-timer expiries. */
    REPLAY_TIMEOUTS("replay.timeouts", "replay-timer expiries (no Ack in time)"),
    /** Modelled replay-timer expiries over a fabric that loses nothing: no replay, the Ack is on its way. */
    REPLAYS_AVOIDED("replays.avoided", "modelled replay-timer expiries over a lossless fabric: no replay (the Ack is on its way)"),
    /** Naks sent. */
    NAKS_SENT("naks.sent", "Nak DLLPs sent (a TLP failed its LCRC or came out of sequence)"),
    /** Naks received. */
    NAKS_RECEIVED("naks.received", "Nak DLLPs received"),
    /** Acks sent in a frame of their own. */
    ACKS_SENT("acks.sent", "Ack DLLPs sent in a frame of their own"),
    /** Acks sent after a TLP, in its frame. */
    ACKS_SHARED("acks.shared", "Ack DLLPs sent in the frame of a TLP"),
    /** Acks received. */
    ACKS_RECEIVED("acks.received", "Ack DLLPs received"),
    /** TLP frames whose LCRC did not match. */
    LCRC_ERRORS("lcrc.errors", "TLP frames discarded for a bad LCRC"),
    /** Frames or DLLPs that were malformed (truncated, bad version or type, bad DLLP CRC). */
    BAD_FRAMES("bad.frames", "link frames or DLLPs discarded as malformed (bad version, length or DLLP CRC)"),
    /** TLP frames already received (sequence number behind), discarded. */
    DUPLICATES("duplicates", "TLP frames discarded as duplicates (sequence number already received)"),
    /** TLP frames ahead of the expected sequence number, discarded. */
    OUT_OF_SEQUENCE("out.of.sequence", "TLP frames discarded as out of sequence (a TLP before them was lost)"),
    /** Acks or Naks naming a sequence number outside the unacknowledged range, ignored. */
    DLLP_OUT_OF_RANGE("dllp.out.of.range", "Ack/Nak DLLPs ignored for a sequence number outside the unacknowledged range"),
    /** Link retrains after REPLAY_NUM rolled over. */
    RETRAINS("retrains", "link retrains (four replays without progress)"),
    /** Links taken down: no acknowledgement within the link-down timeout, or the board's cable cut. */
    DOWNS("downs", "links taken down (no acknowledgement within the link-down timeout, or a cable cut)"),
    /** Links (re)initialised after going down, by the InitFC handshake. */
    INITS("inits", "links initialised again after going down (InitFC handshake completed)"),
    /** Senders that waited for room in a full replay buffer. */
    STALLS("stalls", "transmissions that waited for room in the replay buffer (back-pressure)");

    final String meter;
    final String doc;

    Link(String meter, String doc) {
      this.meter = meter;
      this.doc = doc;
    }
  }

  /**
   * Counts a data link layer event.
   *
   * @param what the event
   * @param n how many
   */
  void link(Link what, long n) {
    link[what.ordinal()].add(n);
  }

  /**
   * @param what a data link layer event
   * @return how many times it happened
   */
  public long link(Link what) {
    return link[what.ordinal()].get();
  }

  private Pair pair(String name, String tag, String value, String doc) {
    return tag == null ? new Pair(registry, meters, name, doc, null, "node", node)
        : new Pair(registry, meters, name, doc, null, "node", node, tag, value);
  }

  void transfer(TransferKind k, long remoteBytes, long localBytes, long tlps) {
    Kind c = kinds.get(k);
    c.transfers.add(1);
    c.remoteBytes.add(remoteBytes);
    c.localBytes.add(localBytes);
    c.tlps.add(tlps);
  }

  void frameSent(long frameBytes, int hopCount) {
    framesSent.add(1);
    frameBytesSent.add(frameBytes);
    hops.add(hopCount);
    maxHops.accumulateAndGet(hopCount, Math::max);
  }

  void frameReceived(long frameBytes) {
    framesReceived.add(1);
    frameBytesReceived.add(frameBytes);
  }

  void violation(DmaRule r) {
    violations.get(r).add(1);
  }

  void descriptorCreated(DescriptorMode m, int n) {
    created.get(m).add(n);
  }

  void interruptWrite() {
    interruptWrites.add(1);
  }

  void interruptDelivered() {
    interruptsDelivered.add(1);
  }

  /**
   * Counts a CPU copy through a bounce buffer (done by the host software on top of the board).
   *
   * @param n copies
   */
  public void bounceCopy(long n) {
    bounceCopies.add(n);
  }

  void drop(String reason) {
    drops.computeIfAbsent(reason, r -> pair("verbs4j.tca.peach2.drops", "reason", r, "frames dropped by the board"))
        .add(1);
  }

  /**
   * A consistent-enough view of the counters (each value is read once).
   *
   * @return the snapshot
   */
  public Snapshot snapshot() {
    EnumMap<TransferKind, Long> transfers = new EnumMap<>(TransferKind.class);
    EnumMap<TransferKind, Long> remote = new EnumMap<>(TransferKind.class);
    EnumMap<TransferKind, Long> local = new EnumMap<>(TransferKind.class);
    EnumMap<TransferKind, Long> tlps = new EnumMap<>(TransferKind.class);
    for (Map.Entry<TransferKind, Kind> e : kinds.entrySet()) {
      transfers.put(e.getKey(), e.getValue().transfers.get());
      remote.put(e.getKey(), e.getValue().remoteBytes.get());
      local.put(e.getKey(), e.getValue().localBytes.get());
      tlps.put(e.getKey(), e.getValue().tlps.get());
    }
    EnumMap<DmaRule, Long> v = new EnumMap<>(DmaRule.class);
    violations.forEach((k, p) -> v.put(k, p.get()));
    EnumMap<DescriptorMode, Long> c = new EnumMap<>(DescriptorMode.class);
    created.forEach((k, p) -> c.put(k, p.get()));
    Map<String, Long> d = new java.util.TreeMap<>();
    drops.forEach((k, p) -> d.put(k, p.get()));
    EnumMap<Link, Long> l = new EnumMap<>(Link.class);
    for (Link k : Link.values()) {
      l.put(k, link(k));
    }
    return new Snapshot(transfers, remote, local, tlps, framesSent.get(), frameBytesSent.get(), hops.get(),
        maxHops.get(), framesReceived.get(), frameBytesReceived.get(), v, c, interruptWrites.get(),
        interruptsDelivered.get(), bounceCopies.get(), d, l);
  }

  /**
   * Counter values at one moment.
   *
   * @param transfers transfers started, by kind
   * @param remoteBytes data bytes written to other nodes, by kind
   * @param localBytes data bytes written within the node, by kind
   * @param tlps TLPs, by kind
   * @param framesSent frames handed to the fabric (TLP frames, their replays and DLLP frames)
   * @param frameBytesSent bytes of those frames (link framing, TLP header, data, DLLPs)
   * @param hops links crossed by those frames, summed
   * @param maxHops the longest route a frame took
   * @param framesReceived frames received
   * @param frameBytesReceived bytes received
   * @param violations DMA requests refused, by rule
   * @param descriptorsCreated descriptors written, by mode
   * @param interruptWrites writes to this board's interrupt register
   * @param interruptsDelivered interrupts delivered to the host
   * @param bounceCopies CPU copies through bounce buffers
   * @param drops frames dropped, by reason
   * @param link data link layer events
   */
  public record Snapshot(Map<TransferKind, Long> transfers, Map<TransferKind, Long> remoteBytes,
      Map<TransferKind, Long> localBytes, Map<TransferKind, Long> tlps, long framesSent, long frameBytesSent,
      long hops, long maxHops, long framesReceived, long frameBytesReceived, Map<DmaRule, Long> violations,
      Map<DescriptorMode, Long> descriptorsCreated, long interruptWrites, long interruptsDelivered, long bounceCopies,
      Map<String, Long> drops, Map<Link, Long> link) {

    /**
     * @param what a data link layer event
     * @return its count
     */
    public long link(Link what) {
      return link.getOrDefault(what, 0L);
    }

    /** @return data bytes written to other nodes, all kinds */
    public long remoteBytesTotal() {
      return remoteBytes.values().stream().mapToLong(Long::longValue).sum();
    }

    /** @return data bytes written within the node, all kinds */
    public long localBytesTotal() {
      return localBytes.values().stream().mapToLong(Long::longValue).sum();
    }

    /** @return DMA requests refused, all rules */
    public long violationsTotal() {
      return violations.values().stream().mapToLong(Long::longValue).sum();
    }

    /** @return frames dropped, all reasons */
    public long dropsTotal() {
      return drops.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  /** Removes the meters (the snapshot keeps working). Idempotent. */
  @Override
  public void close() {
    for (Meter m : meters) {
      registry.remove(m);
    }
    meters.clear();
  }
}
