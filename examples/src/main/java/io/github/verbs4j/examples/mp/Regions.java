package io.github.verbs4j.examples.mp;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.MemoryKind;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.spi.DirectAddress;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.EnumSet;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;

/**
 * The registered memory a communicator hands out ({@link Communicator#allocate}) and the local side
 * of a rendezvous transfer: the caller's buffer when it lies in such a region, else a temporary
 * registered bounce buffer.
 */
final class Regions {
  static final Set<Access> ALL_ACCESS = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);

  private final ProtectionDomain pd;
  private final NavigableMap<Long, MemoryRegion> byAddress = new TreeMap<>();

  Regions(ProtectionDomain pd) {
    this.pd = pd;
  }

  /** Registers a new region of {@code bytes} and returns its buffer. */
  ByteBuffer allocate(int bytes) {
    return allocate(bytes, MemoryKind.HOST);
  }

  /** Registers a new region of {@code bytes} of that kind (device memory where the provider has it). */
  ByteBuffer allocate(int bytes, MemoryKind kind) {
    if (bytes < 1) {
      throw new IllegalArgumentException("bytes=" + bytes + " must be at least 1");
    }
    MemoryRegion mr = kind == MemoryKind.HOST ? pd.allocateMemory(bytes, ALL_ACCESS)
        : pd.allocateMemory(bytes, ALL_ACCESS, kind);
    byAddress.put(DirectAddress.of(mr.buffer()), mr);
    return mr.buffer();
  }

  /**
   * The handed-out region holding {@code len} bytes from {@code b}'s position. Keyed by the
   * buffers' native addresses: a region's own {@link MemoryRegion#address()} may be in the
   * provider's address space instead (tca: the global PEACH2 address of its pool or device memory).
   *
   * @return the region's entry (native base address → region), or null
   */
  private Map.Entry<Long, MemoryRegion> find(ByteBuffer b, int len) {
    if (!b.isDirect() || byAddress.isEmpty()) {
      return null;
    }
    long addr = DirectAddress.of(b) + b.position();
    Map.Entry<Long, MemoryRegion> e = byAddress.floorEntry(addr);
    if (e == null || addr + len > e.getKey() + e.getValue().length()) {
      return null;
    }
    return e;
  }

  /**
   * Points a transfer's local side at {@code b} (from its position) if it is registered and may be
   * used, else at a new bounce buffer of {@code len} bytes (at least 1).
   *
   * @param t the transfer
   * @param b the caller's buffer
   * @param len bytes
   * @param useCaller whether the caller's buffer may be used in place
   * @param copyIn whether a bounce buffer gets the caller's bytes (a send)
   */
  void attach(Transfer t, ByteBuffer b, int len, boolean useCaller, boolean copyIn) {
    Map.Entry<Long, MemoryRegion> e = useCaller ? find(b, len) : null;
    if (e != null) {
      MemoryRegion mr = e.getValue();
      t.localAddr = mr.address() + (DirectAddress.of(b) + b.position() - e.getKey());
      t.lkey = mr.lkey();
      t.rkey = mr.rkey();
      return;
    }
    t.bounce = pd.allocateMemory(Math.max(1, len), ALL_ACCESS);
    if (copyIn) {
      t.bounce.buffer().put(0, b, b.position(), len);
    }
    t.localAddr = t.bounce.address();
    t.lkey = t.bounce.lkey();
    t.rkey = t.bounce.rkey();
  }

  /** @return the handed-out regions, to be closed */
  Collection<MemoryRegion> all() {
    return byAddress.values();
  }
}
