package io.github.verbs4j.verbs;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * A snapshot of one port's {@link PortCounter}s, read by {@link Context#queryPortCounters(int)}.
 * Immutable. Compare two snapshots to see what happened between them:
 *
 * <pre>{@code
 * PortCounters before = ctx.queryPortCounters(1);
 * // ... traffic ...
 * long retries = ctx.queryPortCounters(1).minus(before).get(PortCounter.COMPLETER_RETRY_ERR);
 * }</pre>
 */
public final class PortCounters {
  private final EnumMap<PortCounter, Long> values;

  private PortCounters(EnumMap<PortCounter, Long> values) {
    this.values = values;
  }

  /**
   * Reads every counter.
   *
   * @param read a counter's current value
   * @return the snapshot
   */
  public static PortCounters read(ToLongFunction<PortCounter> read) {
    EnumMap<PortCounter, Long> v = new EnumMap<>(PortCounter.class);
    for (PortCounter c : PortCounter.values()) {
      v.put(c, read.applyAsLong(c));
    }
    return new PortCounters(v);
  }

  /**
   * @param c a counter
   * @return its value in this snapshot
   */
  public long get(PortCounter c) {
    return values.get(c);
  }

  /**
   * @param earlier a snapshot of the same port taken before this one
   * @return each counter's increase since {@code earlier}
   */
  public PortCounters minus(PortCounters earlier) {
    return read(c -> get(c) - earlier.get(c));
  }

  /** @return every counter and its value, in declaration order */
  public Map<PortCounter, Long> asMap() {
    return new EnumMap<>(values);
  }

  /** @return the counters by their {@code hw_counters} names, e.g. {@code {rcvd_rnr_err=3, ...}} */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("{");
    for (Map.Entry<PortCounter, Long> e : values.entrySet()) {
      if (b.length() > 1) {
        b.append(", ");
      }
      b.append(e.getKey().hwName()).append('=').append(e.getValue());
    }
    return b.append('}').toString();
  }
}
