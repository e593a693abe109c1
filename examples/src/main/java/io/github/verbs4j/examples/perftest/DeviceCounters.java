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
 * hardware work behind one verbs operation (seed 000 §3); for the {@code ib} provider the packets
 * and ACKs the HCA sent, held ACKs that shared a frame with another packet, retransmits and the
 * fabric frames (socket writes) behind them, and with caller progress how often the fabric's
 * background thread took the event loop over and how often a call found it taken (no I/O in it).
 * Providers without these meters print nothing. The counts are this rank's (rank 0, the
 * requester); the target's side is on rank 1.
 */
final class DeviceCounters {
  /**
   * One column: a meter name and the tag that selects it (or null), summed over the rest; {@code
   * device} says whether the meter is selected by the device's tag or summed over the process.
   */
  private record Column(String header, String name, String tag, String value, boolean device) {
    Column(String header, String name, String tag, String value) {
      this(header, name, tag, value, true);
    }
  }

  /** The meters of one provider and the tag that names a device's LID in them. */
  private record Layout(String lidTag, List<Column> columns) {}

  private static final Layout TCA = new Layout("node", List.of(
      new Column("pio", "verbs4j.tca.peach2.transfers", "kind", "pio"),
      new Column("dma.int", "verbs4j.tca.peach2.transfers", "kind", "dma_internal"),
      new Column("dma.host", "verbs4j.tca.peach2.transfers", "kind", "dma_host"),
      new Column("dma.reg", "verbs4j.tca.peach2.transfers", "kind", "dma_register"),
      new Column("remote.B", "verbs4j.tca.peach2.bytes", "scope", "remote"),
      new Column("tlps", "verbs4j.tca.peach2.tlps", null, null),
      new Column("hops", "verbs4j.tca.peach2.hops", null, null),
      new Column("bounce", "verbs4j.tca.peach2.bounce.copies", null, null),
      new Column("packets", "verbs4j.tca.verbs.packets.sent", null, null),
      new Column("rdv", "verbs4j.tca.verbs.rendezvous", null, null),
      new Column("replays", "verbs4j.tca.peach2.link.replays", null, null),
      new Column("stalls", "verbs4j.tca.peach2.link.stalls", null, null),
      new Column("timeouts", "verbs4j.tca.verbs.timeouts", null, null),
      new Column("rnr", "verbs4j.tca.verbs.rnr.naks.received", null, null)));

  private static final Layout IB = new Layout("lid", List.of(
      new Column("packets", "verbs4j.ib.packets", "direction", "sent"),
      new Column("acks", "verbs4j.ib.acks", "kind", "sent"),
      new Column("ack.bndl", "verbs4j.ib.acks", "kind", "bundled"),
      new Column("ack.late", "verbs4j.ib.acks", "kind", "hold_expired"),
      new Column("retrans", "verbs4j.ib.retransmitted.packets", null, null),
      new Column("frames", "verbs4j.fabric.frames.sent", null, null, false),
      new Column("takeover", "verbs4j.fabric.progress", "kind", "takeover", false),
      new Column("missed", "verbs4j.fabric.progress", "kind", "caller_missed", false)));

  private final MeterRegistry registry;
  private final Layout layout;
  private final String lid;

  private DeviceCounters(MeterRegistry registry, Layout layout, String lid) {
    this.registry = registry;
    this.layout = layout;
    this.lid = lid;
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
   * @param lid the device's port LID (its {@code node} or {@code lid} tag)
   * @return the reader, or null if the device has no such meters or the registry keeps no values
   */
  static DeviceCounters of(MeterRegistry registry, int lid) {
    String id = Integer.toString(lid);
    if (registry == Metrics.globalRegistry && Metrics.globalRegistry.getRegistries().isEmpty()) {
      return null;
    }
    for (Layout l : List.of(TCA, IB)) {
      if (!registry.find(l.columns().get(0).name()).tag(l.lidTag(), id).functionCounters().isEmpty()) {
        return new DeviceCounters(registry, l, id);
      }
    }
    return null;
  }

  /** @return the current values, one per column */
  double[] read() {
    List<Column> columns = layout.columns();
    double[] v = new double[columns.size()];
    for (int i = 0; i < v.length; i++) {
      Column c = columns.get(i);
      Search s = registry.find(c.name());
      if (c.device()) {
        s = s.tag(layout.lidTag(), lid);
      }
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
  String header() {
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT, " %-10s", "#bytes"));
    for (Column c : layout.columns()) {
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
