package io.github.verbs4j.ib;

import io.github.verbs4j.verbs.MemoryKind;
import io.github.verbs4j.verbs.spi.SoftMemoryRegion;
import io.micrometer.core.instrument.Meter;
import java.nio.ByteBuffer;

/**
 * A memory region of {@code sim_ib0}: the SPI region, listed in the context's region directory
 * (for inline sends found by address) and reported by the memory gauge (tag {@code id} = its
 * address and a serial: keys are assigned after construction, and one buffer may back several
 * regions).
 */
final class IbMemoryRegion extends SoftMemoryRegion {
  private final IbContext ctx;
  private final Meter gauge;

  IbMemoryRegion(IbProtectionDomain pd, ByteBuffer memory, long address, int accessMask, MemoryKind kind) {
    super(pd, memory, address, accessMask, kind);
    this.ctx = pd.ib();
    ctx.regionOpened(this);
    String id = ctx.metrics().uniqueId("0x" + Long.toHexString(address));
    this.gauge = ctx.metrics().memoryGauge("mr", id, this, IbMemoryRegion::length);
  }

  @Override
  public void close() {
    if (isValid()) {
      // before the close frees allocated memory (both removals are idempotent)
      ctx.regionClosed(this);
      ctx.metrics().remove(gauge);
    }
    super.close();
  }
}
