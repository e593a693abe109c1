package io.github.verbs4j.examples.memmodel;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * Per-node bytes of one strategy at one scale, split by Table 1's components.
 *
 * @param scale the scenario
 * @param strategy the strategy
 * @param bytes bytes per node for every component (unmodifiable, every component present)
 */
public record Breakdown(Scale scale, Strategy strategy, Map<Component, Long> bytes) {
  /**
   * @throws IllegalArgumentException if a component is missing
   */
  public Breakdown {
    EnumMap<Component, Long> copy = new EnumMap<>(Component.class);
    copy.putAll(bytes);
    for (Component c : Component.values()) {
      if (!copy.containsKey(c)) {
        throw new IllegalArgumentException("bytes has no value for component " + c);
      }
    }
    bytes = Collections.unmodifiableMap(copy);
  }

  /**
   * @param c a component
   * @return its bytes per node
   */
  public long of(Component c) {
    return bytes.get(c);
  }

  /**
   * @return the bytes per node of all components
   */
  public long total() {
    long sum = 0;
    for (long b : bytes.values()) {
      sum += b;
    }
    return sum;
  }
}
