package io.github.verbs4j.fabric;

import io.github.verbs4j.fabric.fault.FaultAction;
import io.github.verbs4j.fabric.fault.FaultInjector;
import io.github.verbs4j.fabric.time.LinkModel;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;

/**
 * The fabric's Micrometer meters for one node (netty) or one fabric (local), tagged {@code
 * fabric=<name>}:
 *
 * <ul>
 *   <li>{@code verbs4j.fabric.frames.sent}, {@code verbs4j.fabric.bytes.sent} (payload bytes),
 *   <li>{@code verbs4j.fabric.frames.received}, {@code verbs4j.fabric.bytes.received},
 *   <li>{@code verbs4j.fabric.frames.forwarded} (netty: frames of other nodes this node's process
 *       passed on, as an intermediate PEACH2 board does),
 *   <li>{@code verbs4j.fabric.drops} and {@code verbs4j.fabric.dropped.bytes} tagged {@code reason}
 *       ({@link DropReason#tag()}),
 *   <li>{@code verbs4j.fabric.auth.rejected} tagged {@code reason} ({@link
 *       io.github.verbs4j.fabric.auth.Handshake.Failure#tag()}): connections closed before their
 *       first frame because they did not prove the job secret (netty),
 *   <li>{@code verbs4j.fabric.faults} tagged {@code kind} ({@link FaultAction#word()}),
 *   <li>{@code verbs4j.fabric.link.queue.depth}, {@code verbs4j.fabric.link.queueing.ns} tagged
 *       {@code link} (modelled, registered per link as links are used), and for netty {@code
 *       verbs4j.fabric.peer.pending.bytes} tagged {@code peer},
 *   <li>{@code verbs4j.fabric.progress} tagged {@code kind} (netty, caller progress): {@code
 *       takeover} — the background thread took the event loop over from callers gone quiet; {@code
 *       caller_missed} — a caller's progress found another thread driving the loop and did no I/O.
 * </ul>
 *
 * Counting allocates nothing. Thread-safe.
 */
public final class FabricMetrics {
  private final MeterRegistry registry;
  private final Tags tags;
  // Counted in LongAdders that Micrometer reads (FunctionCounter): incrementing a registered
  // Counter allocates an iterator per call when the registry is a composite (the global one is).
  private final LongAdder framesSent = new LongAdder();
  private final LongAdder bytesSent = new LongAdder();
  private final LongAdder framesReceived = new LongAdder();
  private final LongAdder bytesReceived = new LongAdder();
  private final LongAdder framesForwarded = new LongAdder();
  private final LongAdder[] drops;
  private final LongAdder[] droppedBytes;
  private final LongAdder[] rejected;
  /** Everything registered, removed again by {@link #close()}. */
  private final List<Meter> meters = new CopyOnWriteArrayList<>();

  /**
   * @param registry where meters are registered
   * @param name the fabric/node name tag
   */
  public FabricMetrics(MeterRegistry registry, String name) {
    this.registry = registry;
    this.tags = Tags.of("fabric", name);
    counter("verbs4j.fabric.frames.sent", null, framesSent, tags);
    counter("verbs4j.fabric.bytes.sent", "bytes", bytesSent, tags);
    counter("verbs4j.fabric.frames.received", null, framesReceived, tags);
    counter("verbs4j.fabric.bytes.received", "bytes", bytesReceived, tags);
    counter("verbs4j.fabric.frames.forwarded", null, framesForwarded, tags);
    DropReason[] rs = DropReason.values();
    drops = new LongAdder[rs.length];
    droppedBytes = new LongAdder[rs.length];
    for (DropReason r : rs) {
      drops[r.ordinal()] = new LongAdder();
      droppedBytes[r.ordinal()] = new LongAdder();
      counter("verbs4j.fabric.drops", null, drops[r.ordinal()], tags.and("reason", r.tag()));
      counter("verbs4j.fabric.dropped.bytes", "bytes", droppedBytes[r.ordinal()], tags.and("reason", r.tag()));
    }
    io.github.verbs4j.fabric.auth.Handshake.Failure[] fs = io.github.verbs4j.fabric.auth.Handshake.Failure.values();
    rejected = new LongAdder[fs.length];
    for (io.github.verbs4j.fabric.auth.Handshake.Failure f : fs) {
      rejected[f.ordinal()] = new LongAdder();
      counter("verbs4j.fabric.auth.rejected", null, rejected[f.ordinal()], tags.and("reason", f.tag()));
    }
  }

  private void counter(String name, String unit, LongAdder value, Tags t) {
    meters.add(FunctionCounter.builder(name, value, LongAdder::sum).baseUnit(unit).tags(t).register(registry));
  }

  /**
   * Removes this node's meters from the registry (the node closed): a later node of the same name
   * registers fresh ones instead of finding these, which read a closed node. Idempotent.
   */
  public void close() {
    for (Meter m : meters) {
      registry.remove(m);
    }
    meters.clear();
  }

  /** @return the registry */
  public MeterRegistry registry() {
    return registry;
  }

  /**
   * Registers fault counters backed by an injector.
   *
   * @param faults the injector
   */
  public void bindFaults(FaultInjector faults) {
    for (FaultAction a : FaultAction.values()) {
      meters.add(Gauge.builder("verbs4j.fabric.faults", faults, f -> f.injected(a)).tags(tags).tag("kind", a.word())
          .register(registry));
    }
  }

  /**
   * Registers the queue gauges of one link.
   *
   * @param model the link model
   * @param linkId the link
   */
  public void bindLink(LinkModel model, int linkId) {
    String l = Integer.toString(linkId);
    meters.add(Gauge.builder("verbs4j.fabric.link.queue.depth", model, m -> m.queueDepth(linkId)).tags(tags)
        .tag("link", l).register(registry));
    meters.add(Gauge.builder("verbs4j.fabric.link.queueing.ns", model, m -> m.queueingNanos(linkId)).tags(tags)
        .tag("link", l).register(registry));
  }

  /**
   * Registers the caller-progress counters of a shared event loop.
   *
   * @param takeovers takeovers by the background thread
   * @param callerMisses caller progress calls that found another driver
   */
  public void bindProgress(LongAdder takeovers, LongAdder callerMisses) {
    counter("verbs4j.fabric.progress", null, takeovers, tags.and("kind", "takeover"));
    counter("verbs4j.fabric.progress", null, callerMisses, tags.and("kind", "caller_missed"));
  }

  /**
   * Registers a gauge of bytes pending towards a peer.
   *
   * @param peer the peer node
   * @param obj the object read
   * @param f reads the pending bytes
   * @param <T> type of obj
   */
  public <T> void bindPeer(int peer, T obj, ToDoubleFunction<T> f) {
    meters.add(Gauge.builder("verbs4j.fabric.peer.pending.bytes", obj, f).tags(tags).tag("peer", Integer.toString(peer))
        .register(registry));
  }

  /**
   * Counts a frame handed to the transport.
   *
   * @param payloadBytes its payload length
   */
  public void sent(int payloadBytes) {
    framesSent.increment();
    bytesSent.add(payloadBytes);
  }

  /**
   * Counts a frame delivered to a receiver.
   *
   * @param payloadBytes its payload length
   */
  public void received(int payloadBytes) {
    framesReceived.increment();
    bytesReceived.add(payloadBytes);
  }

  /** Counts a frame of another node passed on towards its destination. */
  public void forwarded() {
    framesForwarded.increment();
  }

  /**
   * Counts a drop.
   *
   * @param reason why
   * @param bytes bytes dropped
   */
  public void drop(DropReason reason, long bytes) {
    drops[reason.ordinal()].increment();
    droppedBytes[reason.ordinal()].add(bytes);
  }

  /**
   * Counts more bytes of a drop already counted as a frame (a malformed frame skipped as it
   * streams in).
   *
   * @param reason why
   * @param bytes bytes dropped
   */
  public void dropBytes(DropReason reason, long bytes) {
    droppedBytes[reason.ordinal()].add(bytes);
  }

  /**
   * @param reason a reason
   * @return frames dropped for it
   */
  public long drops(DropReason reason) {
    return drops[reason.ordinal()].sum();
  }

  /**
   * @param reason a reason
   * @return bytes dropped for it
   */
  public long droppedBytes(DropReason reason) {
    return droppedBytes[reason.ordinal()].sum();
  }

  /**
   * Counts a connection closed before its first frame: it did not prove the job secret.
   *
   * @param why the handshake's failure
   */
  public void rejected(io.github.verbs4j.fabric.auth.Handshake.Failure why) {
    rejected[why.ordinal()].increment();
  }

  /**
   * @param why a failure
   * @return connections rejected for it
   */
  public long rejectedConnections(io.github.verbs4j.fabric.auth.Handshake.Failure why) {
    return rejected[why.ordinal()].sum();
  }

  /** @return frames dropped for any reason */
  public long totalDrops() {
    long t = 0;
    for (LongAdder c : drops) {
      t += c.sum();
    }
    return t;
  }

  /** @return frames handed to the transport */
  public long framesSent() {
    return framesSent.sum();
  }

  /** @return frames delivered to receivers */
  public long framesReceived() {
    return framesReceived.sum();
  }

  /** @return frames of other nodes passed on */
  public long framesForwarded() {
    return framesForwarded.sum();
  }

  /** @return payload bytes delivered to receivers */
  public long bytesReceived() {
    return bytesReceived.sum();
  }
}
