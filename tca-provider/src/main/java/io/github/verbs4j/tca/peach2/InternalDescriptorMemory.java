package io.github.verbs4j.tca.peach2;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.BitSet;

/**
 * The board's internal descriptor memory: at most {@link Peach2Params#internalDescriptorCapacity()}
 * (1024) descriptors, fast to fetch but slow to create, since every write is a device access (seed
 * 000 §2.3). Descriptors are meant to be built once, at start-up, and reused. Thread-safe.
 */
public final class InternalDescriptorMemory {
  private final ByteBuffer memory;
  private final BitSet used;
  private final int capacity;
  private final HostClock clock;
  private final Peach2Params params;
  private final Peach2Counters counters;

  InternalDescriptorMemory(Peach2Params params, HostClock clock, Peach2Counters counters) {
    this.capacity = params.internalDescriptorCapacity();
    this.memory = ByteBuffer.allocateDirect(capacity * DmaDescriptor.LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    this.used = new BitSet(capacity);
    this.clock = clock;
    this.params = params;
    this.counters = counters;
  }

  /** @return descriptors the memory holds */
  public int capacity() {
    return capacity;
  }

  /** @return descriptors allocated */
  public synchronized int used() {
    return used.cardinality();
  }

  /**
   * Reserves {@code n} consecutive descriptors.
   *
   * @param n count
   * @return the first index, or -1 if no run of {@code n} is free
   */
  public synchronized int allocate(int n) {
    if (n < 1 || n > capacity) {
      return -1;
    }
    int i = used.nextClearBit(0);
    while (i + n <= capacity) {
      int set = used.nextSetBit(i);
      if (set < 0 || set >= i + n) {
        used.set(i, i + n);
        return i;
      }
      i = used.nextClearBit(set);
    }
    return -1;
  }

  /**
   * Releases descriptors.
   *
   * @param first first index
   * @param n count
   */
  public synchronized void free(int first, int n) {
    used.clear(first, first + n);
  }

  /**
   * Writes one descriptor (a device access: charged {@link Peach2Params#descriptorCreateInternalNs()}).
   *
   * @param index its index
   * @param src source global address
   * @param dst destination global address
   * @param length bytes
   * @param burstDwords burst in dwords (0 = contiguous)
   * @param gapDwords gap in dwords
   * @param flags stride flags
   * @param next index of the next descriptor, or -1
   */
  public synchronized void write(int index, long src, long dst, int length, int burstDwords, int gapDwords, int flags,
      int next) {
    checkIndex(index);
    DmaDescriptor.write(memory, index * DmaDescriptor.LENGTH, src, dst, length, burstDwords, gapDwords, flags, next);
    clock.charge(params.descriptorCreateInternalNs());
    counters.descriptorCreated(DescriptorMode.INTERNAL, 1);
  }

  private void checkIndex(int index) {
    if (index < 0 || index >= capacity) {
      throw new IllegalArgumentException("descriptor index=" + index + " is outside [0, " + capacity + ")");
    }
  }

  /** @return the memory, read by the controller under its own lock */
  ByteBuffer memory() {
    return memory;
  }
}
