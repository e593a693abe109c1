package io.github.verbs4j.verbs.spi;

import java.util.Arrays;

/**
 * The live memory regions of a context, found by address: how inline data given by address is
 * located, since its lkey is not checked ({@code ibv_post_send(3)}). Providers add a region when
 * it is registered and remove it when it is deregistered.
 *
 * <p>Copy-on-write: registration is rare, while {@link #containing} runs in {@code postSend}, so
 * lookups read one volatile array and allocate nothing. Thread-safe.
 */
public final class RegionDirectory {
  private static final SoftMemoryRegion[] NONE = new SoftMemoryRegion[0];

  private volatile SoftMemoryRegion[] regions = NONE;

  /**
   * Adds a region (no-op if present).
   *
   * @param mr the region
   */
  public synchronized void add(SoftMemoryRegion mr) {
    SoftMemoryRegion[] cur = regions;
    for (SoftMemoryRegion r : cur) {
      if (r == mr) {
        return;
      }
    }
    SoftMemoryRegion[] next = Arrays.copyOf(cur, cur.length + 1);
    next[cur.length] = mr;
    regions = next;
  }

  /**
   * Removes a region (no-op if absent).
   *
   * @param mr the region
   */
  public synchronized void remove(SoftMemoryRegion mr) {
    SoftMemoryRegion[] cur = regions;
    for (int i = 0; i < cur.length; i++) {
      if (cur[i] == mr) {
        SoftMemoryRegion[] next = new SoftMemoryRegion[cur.length - 1];
        System.arraycopy(cur, 0, next, 0, i);
        System.arraycopy(cur, i + 1, next, i, cur.length - i - 1);
        regions = next;
        return;
      }
    }
  }

  /**
   * A live region holding {@code [addr, addr + len)}, the first registered if several do.
   *
   * @param addr start address
   * @param len length, at least 0
   * @return the region, or null
   */
  public SoftMemoryRegion containing(long addr, long len) {
    for (SoftMemoryRegion mr : regions) {
      if (mr.isValid() && mr.contains(addr, len)) {
        return mr;
      }
    }
    return null;
  }

  /** @return how many regions are listed */
  public int size() {
    return regions.length;
  }
}
