package io.github.verbs4j.examples.gmpi;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.Capability;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.MemoryKind;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.ProtectionDomain;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The accelerator's memory: memory regions of {@link MemoryKind#DEVICE} where the provider has
 * {@link Capability#DEVICE_MEMORY} (on tca the board's GPU sub-slice), host memory otherwise, and
 * {@link MemoryKind#HOST} regions for memory both sides map (the request ring). A device pointer is
 * a region's address plus an offset, as {@code cudaMalloc} returns; the host daemon resolves
 * pointers it finds in attributes. Allocation from the host thread; resolving is thread-safe.
 */
public final class DeviceMemory implements AutoCloseable {
  private static final EnumSet<Access> ACCESS = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE,
      Access.REMOTE_READ);
  private final ProtectionDomain pd;
  private final MemoryKind deviceKind;
  private final ConcurrentSkipListMap<Long, MemoryRegion> regions = new ConcurrentSkipListMap<>();
  private final List<MemoryRegion> owned = new ArrayList<>();

  /** @param ctx the rank's device context (stays open) */
  public DeviceMemory(Context ctx) {
    this.pd = ctx.allocPd();
    this.deviceKind = kindOf(ctx);
  }

  /**
   * @param ctx a context
   * @return {@link MemoryKind#DEVICE} where its provider has {@link Capability#DEVICE_MEMORY}, HOST otherwise
   */
  public static MemoryKind kindOf(Context ctx) {
    return ctx.queryDevice().capabilities().contains(Capability.DEVICE_MEMORY) ? MemoryKind.DEVICE : MemoryKind.HOST;
  }

  /** @return {@link MemoryKind#DEVICE}, or HOST when the provider has no device memory */
  public MemoryKind deviceKind() {
    return deviceKind;
  }

  /**
   * {@code cudaMalloc}.
   *
   * @param bytes the size, at least 1
   * @return the device pointer
   */
  public long malloc(long bytes) {
    return allocate(bytes, deviceKind);
  }

  /**
   * {@code cudaHostAlloc(cudaHostAllocMapped)}: host memory the device reaches over the bus.
   *
   * @param bytes the size, at least 1
   * @return the pointer
   */
  public long mallocMapped(long bytes) {
    return allocate(bytes, MemoryKind.HOST);
  }

  private long allocate(long bytes, MemoryKind kind) {
    if (bytes < 1) {
      throw new IllegalArgumentException("bytes=" + bytes + " must be at least 1");
    }
    MemoryRegion mr = kind == MemoryKind.HOST ? pd.allocateMemory(bytes, ACCESS) : pd.allocateMemory(bytes, ACCESS, kind);
    synchronized (owned) {
      owned.add(mr);
    }
    regions.put(mr.address(), mr);
    return mr.address();
  }

  /**
   * @param ptr a pointer from {@link #malloc} or {@link #mallocMapped}, possibly plus an offset
   * @param bytes bytes from there
   * @return a buffer over exactly those bytes (position 0, limit bytes), little-endian
   * @throws IllegalArgumentException naming pointer and length if they leave every allocation
   */
  public ByteBuffer resolve(long ptr, long bytes) {
    Map.Entry<Long, MemoryRegion> e = regions.floorEntry(ptr);
    MemoryRegion mr = e == null ? null : e.getValue();
    if (mr == null || bytes < 0 || ptr - mr.address() + bytes > mr.length()) {
      throw new IllegalArgumentException(String.format("pointer 0x%x with %d bytes is outside every device allocation",
          ptr, bytes));
    }
    int off = (int) (ptr - mr.address());
    return mr.buffer().duplicate().position(off).limit(off + (int) bytes).slice()
        .order(java.nio.ByteOrder.LITTLE_ENDIAN);
  }

  /** Deregisters and frees everything. */
  @Override
  public void close() {
    RuntimeException failure = null;
    synchronized (owned) {
      for (int i = owned.size() - 1; i >= 0; i--) {
        try {
          owned.get(i).close();
        } catch (RuntimeException e) {
          if (failure == null) {
            failure = e;
          } else {
            failure.addSuppressed(e);
          }
        }
      }
      owned.clear();
    }
    regions.clear();
    try {
      pd.close();
    } catch (RuntimeException e) {
      if (failure == null) {
        failure = e;
      } else {
        failure.addSuppressed(e);
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
