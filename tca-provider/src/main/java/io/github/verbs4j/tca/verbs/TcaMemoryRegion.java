package io.github.verbs4j.tca.verbs;

import io.github.verbs4j.tca.peach2.TcaMallocPool;
import io.github.verbs4j.verbs.MemoryKind;
import io.github.verbs4j.verbs.spi.AbstractProtectionDomain;
import io.github.verbs4j.verbs.spi.SoftMemoryRegion;
import java.nio.ByteBuffer;

/**
 * A TCA memory region. Pool memory ({@code allocateMemory}, or a registered view of pool memory)
 * has its global PEACH2 address as its address, so a peer's DMA can write it directly; other
 * registered memory keeps its native address and is reached through bounce buffers.
 */
final class TcaMemoryRegion extends SoftMemoryRegion {
  private final long globalBase;
  private final TcaMallocPool.Block block;

  TcaMemoryRegion(AbstractProtectionDomain pd, ByteBuffer memory, long address, int accessMask, MemoryKind kind,
      long globalBase, TcaMallocPool.Block block) {
    super(pd, memory, address, accessMask, kind);
    this.globalBase = globalBase;
    this.block = block;
  }

  /** @return whether a DMA may read or write this region (it is pinned pool memory) */
  boolean isPool() {
    return globalBase >= 0;
  }

  /**
   * @param addr an address in this region through its keys ({@link #iova()} + offset, so an
   *     offset for a ZERO_BASED region)
   * @param len bytes
   * @return its global address, or -1 if the region is not pool memory or the range is outside it
   */
  long globalAddress(long addr, long len) {
    if (globalBase < 0 || !contains(addr, len)) {
      return -1;
    }
    return globalBase + (addr - iova());
  }

  @Override
  public void close() {
    boolean wasValid = isValid();
    super.close();
    ((TcaProtectionDomain) softPd()).tcaContext().regionClosed(this);
    if (wasValid && block != null) {
      block.free();
    }
  }
}
