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
  /** Transfers that may still touch the memory (guarded by this). */
  private int holds;
  /** Deregistered while held: the last {@link #release()} returns the pool memory. */
  private boolean freeWhenReleased;

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

  /**
   * Takes a hold for a transfer that touches this region's memory outside the proxy's single
   * checked copy (a DMA in pieces, a peer's direct DMA into it): its pool memory is not returned
   * before {@link #release()}, so a late piece never lands in or reads memory the pool gave to
   * someone else.
   *
   * @return false if the region is deregistered already (no hold was taken)
   */
  synchronized boolean hold() {
    if (!isValid()) {
      return false;
    }
    holds++;
    return true;
  }

  /** Gives a hold back; the last one returns the pool memory of a region deregistered meanwhile. */
  void release() {
    boolean free;
    synchronized (this) {
      holds--;
      free = holds == 0 && freeWhenReleased;
      if (free) {
        freeWhenReleased = false;
      }
    }
    if (free) {
      block.free();
    }
  }

  /**
   * {@code ibv_dereg_mr}: the keys stop working at once ({@link #isValid()} is false before this
   * returns); pool memory a transfer still holds goes back to the pool when the transfer lets go.
   */
  @Override
  public void close() {
    boolean wasValid = isValid();
    super.close();
    ((TcaProtectionDomain) softPd()).tcaContext().regionClosed(this);
    if (wasValid && block != null) {
      boolean now;
      synchronized (this) {
        now = holds == 0;
        freeWhenReleased = !now;
      }
      if (now) {
        block.free();
      }
    }
  }
}
