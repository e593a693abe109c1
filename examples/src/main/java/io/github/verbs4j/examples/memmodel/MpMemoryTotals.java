package io.github.verbs4j.examples.memmodel;

import io.github.verbs4j.examples.mp.Communicator;
import io.github.verbs4j.examples.mp.LinkStats;
import io.github.verbs4j.examples.mp.ReduceOp;
import io.github.verbs4j.verbs.spi.MemoryComponent;
import java.util.Arrays;
import java.util.Map;

/**
 * What {@code mp-memory} reports over all ranks: per component the sum, least and most of the
 * ranks' meters and the sum of the model at each rank's links, and the ranks' link counts and
 * workload times. Filled rank by rank when the ranks are threads of one JVM, or by two
 * allreduces (sum and max) when each rank is its own process, so both modes print the same table.
 */
final class MpMemoryTotals {
  private static final MemoryComponent[] COMPONENTS = MemoryComponent.values();
  private static final int C = COMPONENTS.length;

  private final long[] sum = new long[C];
  private final long[] min = new long[C];
  private final long[] max = new long[C];
  private final long[] atLinks = new long[C];
  private long ranks;
  private long open;
  private long opened;
  private long evictions;
  private long rings;
  private long spares;
  private long ringsAllocated;
  private long peak;
  private long elapsedNanos;
  private long heap;
  /** The job's key-value store: ranks whose share could be read, their bytes and pairs, the most on one. */
  private long kvsRanks;
  private long kvsBytes;
  private long kvsPairs;
  private long kvsMax;
  private long coordinatorBytes;
  private long coordinatorPairs;

  MpMemoryTotals() {
    Arrays.fill(min, Long.MAX_VALUE);
  }

  /**
   * Adds one rank.
   *
   * @param bytes its meters
   * @param model the model at the links (and rings) it held
   * @param links its links
   * @param ringsGiven the hybrid's rings it gave for RDMA over DC
   * @param elapsed its workload time
   * @param heapBytes the heap in use in its JVM (the most over the ranks is kept)
   * @return this
   */
  MpMemoryTotals add(Map<MemoryComponent, Long> bytes, Map<MemoryComponent, Long> model, LinkStats links,
      int ringsGiven, long elapsed, long heapBytes) {
    for (int i = 0; i < C; i++) {
      long v = bytes.getOrDefault(COMPONENTS[i], 0L);
      sum[i] += v;
      min[i] = Math.min(min[i], v);
      max[i] = Math.max(max[i], v);
      atLinks[i] += model.getOrDefault(COMPONENTS[i], 0L);
    }
    ranks++;
    open += links.open();
    opened += links.opened();
    evictions += links.evictions();
    rings += ringsGiven;
    spares += links.spares();
    ringsAllocated += links.ringsAllocated();
    peak = Math.max(peak, links.peak());
    elapsedNanos = Math.max(elapsedNanos, elapsed);
    heap = Math.max(heap, heapBytes);
    return this;
  }

  /**
   * Combines every rank's totals (each holding that rank alone) into the job's, on every rank.
   *
   * @param comm the job's communicator
   */
  /**
   * Adds one rank's share of the job's key-value store (and the coordinator's, from the rank that
   * read it).
   *
   * @return this
   */
  MpMemoryTotals kvs(KvsUsage u) {
    if (u.readable()) {
      kvsRanks++;
      kvsBytes += u.bytes();
      kvsPairs += u.pairs();
      kvsMax = Math.max(kvsMax, u.bytes());
      coordinatorBytes += u.coordinatorBytes();
      coordinatorPairs += u.coordinatorPairs();
    }
    return this;
  }

  void allreduce(Communicator comm) {
    long[] kv = {kvsRanks, kvsBytes, kvsPairs, coordinatorBytes, coordinatorPairs};
    comm.allreduce(kv, ReduceOp.SUM);
    long[] kvMax = {kvsMax};
    comm.allreduce(kvMax, ReduceOp.MAX);
    kvsRanks = kv[0];
    kvsBytes = kv[1];
    kvsPairs = kv[2];
    coordinatorBytes = kv[3];
    coordinatorPairs = kv[4];
    kvsMax = kvMax[0];
    long[] sums = new long[2 * C + 7];
    System.arraycopy(sum, 0, sums, 0, C);
    System.arraycopy(atLinks, 0, sums, C, C);
    sums[2 * C] = ranks;
    sums[2 * C + 1] = open;
    sums[2 * C + 2] = opened;
    sums[2 * C + 3] = evictions;
    sums[2 * C + 4] = rings;
    sums[2 * C + 5] = spares;
    sums[2 * C + 6] = ringsAllocated;
    long[] maxima = new long[2 * C + 3];
    System.arraycopy(max, 0, maxima, 0, C);
    for (int i = 0; i < C; i++) {
      maxima[C + i] = -min[i]; // the least is the most of the negated
    }
    maxima[2 * C] = peak;
    maxima[2 * C + 1] = elapsedNanos;
    maxima[2 * C + 2] = heap;
    comm.allreduce(sums, ReduceOp.SUM);
    comm.allreduce(maxima, ReduceOp.MAX);
    System.arraycopy(sums, 0, sum, 0, C);
    System.arraycopy(sums, C, atLinks, 0, C);
    ranks = sums[2 * C];
    open = sums[2 * C + 1];
    opened = sums[2 * C + 2];
    evictions = sums[2 * C + 3];
    rings = sums[2 * C + 4];
    spares = sums[2 * C + 5];
    ringsAllocated = sums[2 * C + 6];
    System.arraycopy(maxima, 0, max, 0, C);
    for (int i = 0; i < C; i++) {
      min[i] = -maxima[C + i];
    }
    peak = maxima[2 * C];
    elapsedNanos = maxima[2 * C + 1];
    heap = maxima[2 * C + 2];
  }

  long ranks() {
    return ranks;
  }

  long mean(MemoryComponent c) {
    return sum[c.ordinal()] / ranks;
  }

  long min(MemoryComponent c) {
    return min[c.ordinal()];
  }

  long max(MemoryComponent c) {
    return max[c.ordinal()];
  }

  /** @return the mean over the ranks of the model at each rank's links */
  long meanAtLinks(MemoryComponent c) {
    return atLinks[c.ordinal()] / ranks;
  }

  /** @return the mean of every component's mean (the measured bytes per rank) */
  long meanTotal() {
    long t = 0;
    for (MemoryComponent c : COMPONENTS) {
      t += mean(c);
    }
    return t;
  }

  double meanOpen() {
    return (double) open / ranks;
  }

  long opened() {
    return opened;
  }

  long evictions() {
    return evictions;
  }

  double meanRings() {
    return (double) rings / ranks;
  }

  /** @return spare rings per rank, on the mean */
  double meanSpares() {
    return (double) spares / ranks;
  }

  /** @return rings registered over the run, all ranks */
  long ringsAllocated() {
    return ringsAllocated;
  }

  long peak() {
    return peak;
  }

  long elapsedNanos() {
    return elapsedNanos;
  }

  /** @return ranks whose share of the key-value store could be read (0: the provider hides its fabric) */
  long kvsRanks() {
    return kvsRanks;
  }

  /** @return bytes of the key-value store's pairs held by the ranks, all ranks */
  long kvsBytes() {
    return kvsBytes;
  }

  long kvsPairs() {
    return kvsPairs;
  }

  /** @return the most bytes of pairs one rank holds */
  long kvsMax() {
    return kvsMax;
  }

  long coordinatorBytes() {
    return coordinatorBytes;
  }

  long coordinatorPairs() {
    return coordinatorPairs;
  }

  /** @return the most heap in use in one JVM after the run */
  long heap() {
    return heap;
  }
}
