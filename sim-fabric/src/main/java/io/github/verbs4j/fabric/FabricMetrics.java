package io.github.verbs4j.fabric;

import io.github.verbs4j.fabric.fault.FaultAction;
import io.github.verbs4j.fabric.fault.FaultInjector;
import io.github.verbs4j.fabric.time.LinkModel;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
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
 *   <li>{@code verbs4j.fabric.faults} tagged {@code kind} ({@link FaultAction#word()}),
 *   <li>{@code verbs4j.fabric.link.queue.depth}, {@code verbs4j.fabric.link.queueing.ns} tagged
 *       {@code link} (modelled, registered per link as links are used), and for netty {@code
 *       verbs4j.fabric.peer.pending.bytes} tagged {@code peer}.
 * </ul>
 *
 * Counting allocates nothing. Thread-safe.
 */
public final class FabricMetrics {
  private final MeterRegistry registry;
  private final Tags tags;
  private final Counter framesSent;
  private final Counter bytesSent;
  private final Counter framesReceived;
  private final Counter bytesReceived;
  private final Counter framesForwarded;
  private final Counter[] drops;
  private final Counter[] droppedBytes;

  /**
   * @param registry where meters are registered
   * @param name the fabric/node name tag
   */
  public FabricMetrics(MeterRegistry registry, String name) {
    this.registry = registry;
    this.tags = Tags.of("fabric", name);
    framesSent = Counter.builder("verbs4j.fabric.frames.sent").tags(tags).register(registry);
    bytesSent = Counter.builder("verbs4j.fabric.bytes.sent").baseUnit("bytes").tags(tags).register(registry);
    framesReceived = Counter.builder("verbs4j.fabric.frames.received").tags(tags).register(registry);
    bytesReceived = Counter.builder("verbs4j.fabric.bytes.received").baseUnit("bytes").tags(tags).register(registry);
    framesForwarded = Counter.builder("verbs4j.fabric.frames.forwarded").tags(tags).register(registry);
    DropReason[] rs = DropReason.values();
    drops = new Counter[rs.length];
    droppedBytes = new Counter[rs.length];
    for (DropReason r : rs) {
      drops[r.ordinal()] = Counter.builder("verbs4j.fabric.drops").tags(tags).tag("reason", r.tag()).register(registry);
      droppedBytes[r.ordinal()] =
          Counter.builder("verbs4j.fabric.dropped.bytes").baseUnit("bytes").tags(tags).tag("reason", r.tag()).register(registry);
    }
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
      Gauge.builder("verbs4j.fabric.faults", faults, f -> f.injected(a)).tags(tags).tag("kind", a.word()).register(registry);
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
    Gauge.builder("verbs4j.fabric.link.queue.depth", model, m -> m.queueDepth(linkId)).tags(tags).tag("link", l).register(registry);
    Gauge.builder("verbs4j.fabric.link.queueing.ns", model, m -> m.queueingNanos(linkId)).tags(tags).tag("link", l).register(registry);
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
    Gauge.builder("verbs4j.fabric.peer.pending.bytes", obj, f).tags(tags).tag("peer", Integer.toString(peer)).register(registry);
  }

  /**
   * Counts a frame handed to the transport.
   *
   * @param payloadBytes its payload length
   */
  public void sent(int payloadBytes) {
    framesSent.increment();
    bytesSent.increment(payloadBytes);
  }

  /**
   * Counts a frame delivered to a receiver.
   *
   * @param payloadBytes its payload length
   */
  public void received(int payloadBytes) {
    framesReceived.increment();
    bytesReceived.increment(payloadBytes);
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
    droppedBytes[reason.ordinal()].increment(bytes);
  }

  /**
   * Counts more bytes of a drop already counted as a frame (a malformed frame skipped as it
   * streams in).
   *
   * @param reason why
   * @param bytes bytes dropped
   */
  public void dropBytes(DropReason reason, long bytes) {
    droppedBytes[reason.ordinal()].increment(bytes);
  }

  /**
   * @param reason a reason
   * @return frames dropped for it
   */
  public long drops(DropReason reason) {
    return (long) drops[reason.ordinal()].count();
  }

  /**
   * @param reason a reason
   * @return bytes dropped for it
   */
  public long droppedBytes(DropReason reason) {
    return (long) droppedBytes[reason.ordinal()].count();
  }

  /** @return frames dropped for any reason */
  public long totalDrops() {
    long t = 0;
    for (Counter c : drops) {
      t += (long) c.count();
    }
    return t;
  }

  /** @return frames handed to the transport */
  public long framesSent() {
    return (long) framesSent.count();
  }

  /** @return frames delivered to receivers */
  public long framesReceived() {
    return (long) framesReceived.count();
  }

  /** @return frames of other nodes passed on */
  public long framesForwarded() {
    return (long) framesForwarded.count();
  }

  /** @return payload bytes delivered to receivers */
  public long bytesReceived() {
    return (long) bytesReceived.count();
  }
}
