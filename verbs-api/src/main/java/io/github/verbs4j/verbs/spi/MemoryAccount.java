package io.github.verbs4j.verbs.spi;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The modelled HCA + driver footprint ({@link HcaFootprint}) of a context's live verbs objects, by
 * {@link MemoryComponent}. The SPI's bases add an object when they create it and release it when it
 * is closed; providers publish {@link #bytes} as the {@code verbs4j.memory.bytes{component}} meter
 * family. Creation and destruction take a lock (they are not hot paths); reads do not.
 */
public final class MemoryAccount {
  /** The meter family's name. */
  public static final String METER = "verbs4j.memory.bytes";

  private final AtomicLongArray bytes = new AtomicLongArray(MemoryComponent.values().length);
  private final Map<Object, Entry> live = new IdentityHashMap<>();

  private record Entry(MemoryComponent component, long bytes) {}

  /**
   * Counts an object, or recounts it if it is already counted (a resized CQ).
   *
   * @param object the verbs object
   * @param component its component
   * @param footprint its bytes
   */
  public synchronized void add(Object object, MemoryComponent component, long footprint) {
    Entry old = live.put(object, new Entry(component, footprint));
    if (old != null) {
      bytes.addAndGet(old.component.ordinal(), -old.bytes);
    }
    bytes.addAndGet(component.ordinal(), footprint);
  }

  /**
   * Stops counting an object; does nothing if it is not counted.
   *
   * @param object the verbs object
   */
  public synchronized void release(Object object) {
    Entry old = live.remove(object);
    if (old != null) {
      bytes.addAndGet(old.component.ordinal(), -old.bytes);
    }
  }

  /**
   * @param component a component
   * @return the bytes of its live objects
   */
  public long bytes(MemoryComponent component) {
    return bytes.get(component.ordinal());
  }

  /**
   * @return the bytes of all live objects
   */
  public long total() {
    long sum = 0;
    for (int i = 0; i < bytes.length(); i++) {
      sum += bytes.get(i);
    }
    return sum;
  }

  /**
   * @param component a component
   * @return how many live objects it has
   */
  public synchronized int count(MemoryComponent component) {
    int n = 0;
    for (Entry e : live.values()) {
      if (e.component == component) {
        n++;
      }
    }
    return n;
  }
}
