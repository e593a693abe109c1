package io.github.verbs4j.tca.verbs;

import io.github.verbs4j.tca.peach2.Peach2Board;
import io.github.verbs4j.tca.peach2.TcaMallocPool;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.MemoryKind;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.VerbsException;
import io.github.verbs4j.verbs.spi.AbstractProtectionDomain;
import io.github.verbs4j.verbs.spi.AbstractQueuePair;
import io.github.verbs4j.verbs.spi.DirectAddress;
import io.github.verbs4j.verbs.spi.SoftMemoryRegion;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A TCA protection domain: {@code allocateMemory} takes pinned memory from the {@code tcaMalloc}
 * pool (host) or a device pool (DEVICE) and places the region at its global PEACH2 address; QPs
 * are RC, UC and UD (no DC: the device reports no DC capability).
 */
final class TcaProtectionDomain extends AbstractProtectionDomain {
  private static final Set<QpType> TYPES = EnumSet.of(QpType.RC, QpType.UC, QpType.UD);
  private final TcaContext ctx;
  /** Blocks allocated for regions being created (allocate → newMr, same thread). */
  private final Map<ByteBuffer, TcaMallocPool.Block> allocated = new IdentityHashMap<>();

  TcaProtectionDomain(TcaContext ctx, int handle) {
    super(ctx, handle);
    this.ctx = ctx;
  }

  TcaContext tcaContext() {
    return ctx;
  }

  @Override
  protected synchronized ByteBuffer allocate(int length, MemoryKind kind) {
    Peach2Board b = ctx.board();
    TcaMallocPool pool = kind == MemoryKind.DEVICE ? b.devicePool(0) : b.hostPool();
    TcaMallocPool.Block block;
    try {
      block = pool.allocate(length, 64);
    } catch (IllegalStateException e) {
      throw new VerbsException(Errno.ENOMEM, "length=" + length + ": " + e.getMessage() + " (verbs.tca.pool-mb)");
    }
    ByteBuffer m = block.buffer();
    // a fresh region starts zeroed even where the pool reuses freed memory
    for (int i = 0; i < length; i++) {
      m.put(i, (byte) 0);
    }
    allocated.put(m, block);
    return m;
  }

  /** Pool memory: {@link TcaMemoryRegion} returns it to the pool when no transfer holds it. */
  @Override
  protected boolean freeAtClose(MemoryKind kind) {
    return false;
  }

  @Override
  protected synchronized long addressOf(ByteBuffer memory) {
    TcaMallocPool.Block block = allocated.get(memory);
    if (block != null) {
      return block.address();
    }
    long g = globalOfNative(memory);
    return g >= 0 ? g : DirectAddress.of(memory);
  }

  private long globalOfNative(ByteBuffer memory) {
    long nat = DirectAddress.of(memory);
    long len = memory.remaining();
    Peach2Board b = ctx.board();
    long g = b.hostPool().globalAddressOfNative(nat, len);
    for (int d = 0; g < 0 && d < 2; d++) {
      g = b.devicePool(d).globalAddressOfNative(nat, len);
    }
    return g;
  }

  @Override
  protected synchronized SoftMemoryRegion newMr(ByteBuffer memory, long address, int accessMask, MemoryKind kind) {
    TcaMallocPool.Block block = allocated.remove(memory);
    long global = block != null ? block.address() : globalOfNative(memory);
    TcaMemoryRegion mr = new TcaMemoryRegion(this, memory, address, accessMask, kind, global, block);
    ctx.regionOpened(mr);
    return mr;
  }

  @Override
  protected Set<QpType> supportedQpTypes() {
    return TYPES;
  }

  @Override
  protected AbstractQueuePair newQp(QpInitAttr attr) {
    TcaQueuePair qp = new TcaQueuePair(this, attr, ctx.nextQpNum(), attr.cap());
    ctx.proxy().attach(qp);
    return qp;
  }
}
