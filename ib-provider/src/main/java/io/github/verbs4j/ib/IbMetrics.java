package io.github.verbs4j.ib;

import io.github.verbs4j.ib.engine.IbCounters;
import io.github.verbs4j.verbs.spi.MemoryAccount;
import io.github.verbs4j.verbs.spi.MemoryComponent;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;

/**
 * The device's Micrometer meters: a function counter per {@link IbCounters.Counter} (retransmits,
 * RNR NAKs, duplicates, flushes, CRC drops, drops by reason, packets and bytes), and the {@code
 * verbs4j.ib.memory.bytes} gauge of every QP, CQ, SRQ and MR (tag {@code object}), removed when the
 * object is closed; and the {@code verbs4j.memory.bytes} family (tag {@code component}) of the context's
 * modelled HCA + driver footprint ({@link MemoryAccount}). Every meter carries {@code device} and
 * {@code lid} tags.
 */
final class IbMetrics implements AutoCloseable {
  /** The memory gauge's name. */
  static final String MEMORY = "verbs4j.ib.memory.bytes";

  private final MeterRegistry registry;
  private final Tags tags;
  private final Set<Meter> meters = Collections.newSetFromMap(new IdentityHashMap<>());
  private final AtomicLong serial = new AtomicLong();

  IbMetrics(MeterRegistry registry, IbCounters counters, String device, int lid) {
    this.registry = registry;
    this.tags = Tags.of("device", device, "lid", Integer.toString(lid));
    for (IbCounters.Counter c : IbCounters.Counter.values()) {
      FunctionCounter.Builder<IbCounters> b = FunctionCounter.builder(c.meter(), counters, x -> x.get(c)).tags(tags);
      if (c.tagKey() != null) {
        b.tag(c.tagKey(), c.tagValue());
      }
      synchronized (meters) {
        meters.add(b.register(registry));
      }
    }
  }

  /**
   * A tag value no other gauge of this device has: CQs have no number, and one buffer may be
   * registered as several regions, so their gauges add a serial to what names them.
   *
   * @param name what names the object, e.g. its address
   * @return {@code name#serial}
   */
  String uniqueId(String name) {
    return name + "#" + serial.incrementAndGet();
  }

  /**
   * Registers the memory gauge of one object.
   *
   * @param kind qp, cq, srq or mr
   * @param id the object's number or key
   * @param obj the object (weakly referenced)
   * @param bytes how to read its footprint
   * @param <T> its type
   * @return the gauge, for {@link #remove}
   */
  <T> Meter memoryGauge(String kind, String id, T obj, ToDoubleFunction<T> bytes) {
    Meter m = Gauge.builder(MEMORY, obj, bytes).tags(tags).tag("object", kind).tag("id", id).baseUnit("bytes")
        .register(registry);
    synchronized (meters) {
      meters.add(m);
    }
    return m;
  }

  /**
   * Registers the {@code verbs4j.memory.bytes} gauge of every component of a context's account.
   *
   * @param account the account
   */
  void memory(MemoryAccount account) {
    for (MemoryComponent c : MemoryComponent.values()) {
      Meter m = Gauge.builder(MemoryAccount.METER, account, a -> a.bytes(c)).tags(tags).tag("component", c.tag())
          .baseUnit("bytes").description("modelled HCA + driver bytes of the live objects").register(registry);
      synchronized (meters) {
        meters.add(m);
      }
    }
  }

  void remove(Meter m) {
    if (m == null) {
      return;
    }
    registry.remove(m);
    synchronized (meters) {
      meters.remove(m);
    }
  }

  @Override
  public void close() {
    List<Meter> all;
    synchronized (meters) {
      all = new ArrayList<>(meters);
      meters.clear();
    }
    for (Meter m : all) {
      registry.remove(m);
    }
  }
}
