package io.github.verbs4j.verbs.spi;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The live memory regions of a context, found by address: how inline data given by address is
 * located when its lkey does not name a region holding it, since that lkey is not checked
 * ({@code ibv_post_send(3)}). Providers add a region when it is registered and remove it when it
 * is deregistered.
 *
 * <p>Adding and removing cost O(1), so registering tens of thousands of regions stays linear.
 * Lookups, which run in {@code postSend}, search an index sorted by address (O(log n) unless many
 * regions overlap) and allocate nothing; the first lookup after a change rebuilds the index.
 * Thread-safe.
 */
public final class RegionDirectory {
  private final Set<SoftMemoryRegion> live = ConcurrentHashMap.newKeySet();
  private final AtomicInteger changes = new AtomicInteger();
  private volatile Index index = new Index(0, new SoftMemoryRegion[0]);

  /**
   * Adds a region (no-op if present).
   *
   * @param mr the region
   */
  public void add(SoftMemoryRegion mr) {
    if (live.add(mr)) {
      changes.incrementAndGet();
    }
  }

  /**
   * Removes a region (no-op if absent).
   *
   * @param mr the region
   */
  public void remove(SoftMemoryRegion mr) {
    if (live.remove(mr)) {
      changes.incrementAndGet();
    }
  }

  /**
   * A live region holding {@code [addr, addr + len)}, any one if several do.
   *
   * @param addr start address
   * @param len length, at least 0
   * @return the region, or null
   */
  public SoftMemoryRegion containing(long addr, long len) {
    Index i = index;
    if (i.version != changes.get()) {
      i = rebuild();
    }
    return i.containing(addr, len);
  }

  private synchronized Index rebuild() {
    int version = changes.get(); // before the copy: a change during it makes the next lookup rebuild again
    if (index.version != version) {
      index = new Index(version, live.toArray(new SoftMemoryRegion[0]));
    }
    return index;
  }

  /** @return how many regions are listed */
  public int size() {
    return live.size();
  }

  /** Regions sorted by start address, with the greatest end address of every prefix. */
  private static final class Index {
    final int version;
    final SoftMemoryRegion[] regions;
    final long[] starts;
    final long[] maxEnds;

    Index(int version, SoftMemoryRegion[] regions) {
      this.version = version;
      Arrays.sort(regions, Comparator.comparingLong(SoftMemoryRegion::address));
      this.regions = regions;
      this.starts = new long[regions.length];
      this.maxEnds = new long[regions.length];
      long maxEnd = Long.MIN_VALUE;
      for (int k = 0; k < regions.length; k++) {
        starts[k] = regions[k].address();
        maxEnd = Math.max(maxEnd, starts[k] + regions[k].length());
        maxEnds[k] = maxEnd;
      }
    }

    SoftMemoryRegion containing(long addr, long len) {
      int k = Arrays.binarySearch(starts, addr);
      if (k < 0) {
        k = -k - 2; // the last region starting before addr
      } else {
        while (k + 1 < starts.length && starts[k + 1] == addr) {
          k++; // the last of those starting at addr
        }
      }
      for (; k >= 0 && maxEnds[k] >= addr + len; k--) {
        SoftMemoryRegion mr = regions[k];
        if (mr.isValid() && mr.contains(addr, len)) {
          return mr;
        }
      }
      return null;
    }
  }
}
