package io.github.verbs4j.examples.perftest;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.search.Search;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Locale;

/**
 * What the device did per operation, read from its own meters before and after each message size:
 * for the {@code tca} provider the PEACH2 board's PIO stores and DMA starts by descriptor mode, bytes
 * written to other nodes, TLPs, hops and bounce copies, and TCA Verbs' packets and rendezvous — the
 * hardware work behind one verbs operation (seed 000 §3). Providers without these meters print
 * nothing. The counts are this rank's (rank 0, the requester); the target's proxy work is on rank 1.
 */
final class DeviceCounters {
  /** One column: a meter name and the tag that selects it (or null), summed over the rest. */
  private record Column(String header, String name, String tag, String value) {}

  private static final List<Column> TCA = List.of(
      new Column("pio", "verbs4j.tca.peach2.transfers", "kind", "pio"),
      new Column("dma.int", "verbs4j.tca.peach2.transfers", "kind", "dma_internal"),
      new Column("dma.host", "verbs4j.tca.peach2.transfers", "kind", "dma_host"),
      new Column("dma.reg", "verbs4j.tca.peach2.transfers", "kind", "dma_register"),
      new Column("remote.B", "verbs4j.tca.peach2.bytes", "scope", "remote"),
      new Column("tlps", "verbs4j.tca.peach2.tlps", null, null),
      new Column("hops", "verbs4j.tca.peach2.hops", null, null),
      new Column("bounce", "verbs4j.tca.peach2.bounce.copies", null, null),
      new Column("packets", "verbs4j.tca.verbs.packets.sent", null, null),
      new Column("rdv", "verbs4j.tca.verbs.rendezvous", null, null));

  private final MeterRegistry registry;
  private final String node;

  private DeviceCounters(MeterRegistry registry, String node) {
    this.registry = registry;
    this.node = node;
  }

  /**
   * Makes sure the global registry keeps values (a composite without children counts nothing), so
   * the contexts a program opens report into it.
   */
  static synchronized void keepGlobalValues() {
    if (Metrics.globalRegistry.getRegistries().isEmpty()) {
      Metrics.addRegistry(new SimpleMeterRegistry());
    }
  }

  /**
   * @param registry where the device's meters are
   * @param lid the device's port LID (its {@code node} tag)
   * @return the reader, or null if the device has no such meters or the registry keeps no values
   */
  static DeviceCounters of(MeterRegistry registry, int lid) {
    String node = Integer.toString(lid);
    if (registry == Metrics.globalRegistry && Metrics.globalRegistry.getRegistries().isEmpty()) {
      return null;
    }
    if (registry.find(TCA.get(0).name()).tag("node", node).functionCounters().isEmpty()) {
      return null;
    }
    return new DeviceCounters(registry, node);
  }

  /** @return the current values, one per column */
  double[] read() {
    double[] v = new double[TCA.size()];
    for (int i = 0; i < v.length; i++) {
      Column c = TCA.get(i);
      Search s = registry.find(c.name()).tag("node", node);
      if (c.tag() != null) {
        s = s.tag(c.tag(), c.value());
      }
      for (FunctionCounter f : s.functionCounters()) {
        v[i] += f.count();
      }
    }
    return v;
  }

  /** @return the table header */
  static String header() {
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT, " %-10s", "#bytes"));
    for (Column c : TCA) {
      b.append(String.format(Locale.ROOT, " %10s", c.header()));
    }
    return b.toString();
  }

  /**
   * @param size message size
   * @param before values before the size's run
   * @param after values after it
   * @param ops operations in the run
   * @return one row: each counter's increase per operation
   */
  static String row(long size, double[] before, double[] after, long ops) {
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT, " %-10d", size));
    for (int i = 0; i < before.length; i++) {
      b.append(String.format(Locale.ROOT, " %10.2f", (after[i] - before[i]) / Math.max(1, ops)));
    }
    return b.toString();
  }
}
