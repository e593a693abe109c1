package io.github.verbs4j.verbs.spi;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.MemoryKind;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.VerbsException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Set;

/**
 * A memory region over a direct buffer, shared by every provider, with the checked accessors a
 * provider uses on behalf of local and remote requests: {@link #contains} (bounds), {@link
 * #allows} (access), ordered copies that publish the last byte last, and 8-byte atomics that are
 * atomic with respect to every other atomic on the same memory (a VarHandle over the buffer).
 *
 * <p>Every address these methods take is an address through the region's keys: {@link #iova()}
 * plus an offset. For a region registered with {@link Access#ZERO_BASED} the iova is 0, so local
 * SGEs and remote peers give the offset itself ({@code ibv_reg_mr(3)}, {@code ibv_post_send(3)});
 * {@link #address()} stays the memory's own address, as libibverbs leaves {@code mr->addr}.
 *
 * <p>The caller must check key, PD, access and bounds before calling a copy or atomic; the copy
 * methods re-check bounds and throw rather than touch memory outside the region.
 *
 * <p>Memory the PD allocated for the region ({@code allocateMemory}) is freed when the region
 * closes, not when a GC finds it (issue #20), unless the application took a view of it with {@link
 * #buffer()}: a view is Java memory that must stay valid, so that memory waits for the GC (and its
 * copies skip the count below: nothing will free it). For memory it frees, {@link #close()} waits
 * for a copy or atomic already inside it; later copies return false and atomics throw, so the memory
 * is never touched after dereg returns (issue #23). A caller's registered
 * buffer is the caller's: it is never freed here.
 */
public class SoftMemoryRegion implements MemoryRegion {
  private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle USERS;
  /** Set in {@link #users} once closing has begun: no access may start. */
  private static final int FREED = Integer.MIN_VALUE;
  /** {@link #enter}: closing has begun, the memory may be freed. */
  private static final int DENIED = -1;
  /** {@link #enter}: memory this region never frees (a caller's, or one with a view): not counted. */
  private static final int UNCOUNTED = 0;
  /** {@link #enter}: counted in {@link #users}; close waits for it. */
  private static final int COUNTED = 1;

  static {
    try {
      USERS = MethodHandles.lookup().findVarHandle(SoftMemoryRegion.class, "users", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final AbstractProtectionDomain pd;
  private final ByteBuffer memory;
  private final long address;
  private final long iova;
  private final long length;
  private final int accessMask;
  private final MemoryKind kind;
  private KeyTable.Keys keys;
  private volatile boolean valid = true;
  /** The PD's allocation, freed at close; null for a caller's buffer (set before publication). */
  private volatile ByteBuffer owned;
  /** Whether the application has a view of owned memory: then a GC frees it, not the close. */
  private volatile boolean viewTaken;
  /** Accesses inside owned memory, plus {@link #FREED} once closing has begun. */
  @SuppressWarnings("unused") // through USERS
  private volatile int users;

  /**
   * @param pd the owning PD
   * @param memory the region's memory (position 0, limit = length)
   * @param address the virtual address of its first byte
   * @param accessMask validated {@link Access} mask
   * @param kind host or device memory
   */
  protected SoftMemoryRegion(AbstractProtectionDomain pd, ByteBuffer memory, long address, int accessMask,
      MemoryKind kind) {
    this.pd = pd;
    this.memory = memory.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    this.memory.clear();
    this.address = address;
    this.iova = Access.ZERO_BASED.isSet(accessMask) ? 0 : address;
    this.length = memory.capacity();
    this.accessMask = accessMask;
    this.kind = kind;
  }

  void keys(KeyTable.Keys k) {
    this.keys = k;
  }

  /** The region frees {@code allocation} (the PD's own buffer, not a view) when it closes. */
  void freeAtClose(ByteBuffer allocation) {
    this.owned = allocation;
  }

  /**
   * @return whether an access may touch the memory now ({@link #DENIED} once closing has begun); any
   *     other value must be handed to {@link #exit} after the access
   */
  private int enter() {
    if (owned == null || viewTaken) {
      return UNCOUNTED; // never freed here: no count on the copy path
    }
    int u;
    do {
      u = users;
      if (u < 0) {
        return DENIED;
      }
    } while (!USERS.compareAndSet(this, u, u + 1));
    return COUNTED;
  }

  private void exit(int token) {
    if (token == COUNTED) {
      USERS.getAndAdd(this, -1);
    }
  }

  private VerbsException freed() {
    return new VerbsException(Errno.EBADF, "MR lkey=0x" + Integer.toHexString(keys.lkey())
        + " is deregistered: its memory is freed");
  }

  @Override
  public int lkey() {
    return keys.lkey();
  }

  @Override
  public int rkey() {
    return keys.rkey();
  }

  @Override
  public long address() {
    return address;
  }

  @Override
  public long iova() {
    return iova;
  }

  @Override
  public long length() {
    return length;
  }

  /**
   * {@inheritDoc}
   *
   * @throws VerbsException EBADF once the region is closed if its memory came from {@code
   *     allocateMemory}
   */
  @Override
  public ByteBuffer buffer() {
    if (owned != null) {
      int token = enter();
      if (token == DENIED || !valid) { // closing has begun: the memory may be freed
        exit(token);
        throw freed();
      }
      viewTaken = true; // inside: a close that began meanwhile sees it and leaves the memory alone
      exit(token);
    }
    return memory.duplicate().order(ByteOrder.nativeOrder()).clear();
  }

  @Override
  public Set<Access> access() {
    return Access.fromMask(accessMask);
  }

  /** @return the {@link Access} mask */
  public int accessMask() {
    return accessMask;
  }

  /**
   * @param flag an access flag
   * @return whether the region was registered with it
   */
  public boolean allows(Access flag) {
    return (accessMask & flag.value()) != 0;
  }

  @Override
  public MemoryKind kind() {
    return kind;
  }

  @Override
  public ProtectionDomain pd() {
    return pd;
  }

  /** @return the PD as the SPI type */
  public AbstractProtectionDomain softPd() {
    return pd;
  }

  /** @return false once deregistered */
  public boolean isValid() {
    return valid;
  }

  /**
   * Whether [addr, addr+len) lies inside the region (overflow-safe).
   *
   * @param addr start address through the keys ({@link #iova()} + offset)
   * @param len length, at least 0
   * @return true if inside
   */
  public boolean contains(long addr, long len) {
    if (len < 0) {
      return false;
    }
    long off = addr - iova;
    return off >= 0 && off <= length && len <= length - off;
  }

  private int offsetOf(long addr, long len) {
    if (!contains(addr, len)) {
      throw VerbsException.invalid("range [0x" + Long.toHexString(addr) + ", +" + len + ") is outside the region [0x"
          + Long.toHexString(iova) + ", +" + length + ")");
    }
    return (int) (addr - iova);
  }

  /**
   * Copies {@code len} bytes at {@code addr} into {@code dst} at {@code dstPos}.
   *
   * @param addr source address in this region
   * @param dst destination buffer
   * @param dstPos absolute position in dst
   * @param len bytes
   * @return false if the region's memory is freed (closed): nothing was copied
   */
  public boolean copyOut(long addr, ByteBuffer dst, int dstPos, int len) {
    int off = offsetOf(addr, len);
    int token = enter();
    if (token == DENIED) {
      return false;
    }
    try {
      dst.put(dstPos, memory, off, len);
    } finally {
      exit(token);
    }
    return true;
  }

  /**
   * Copies {@code len} bytes from {@code src} into this region at {@code addr}, in ascending
   * address order with the last byte published last (a release store), so a peer polling the
   * last byte sees the whole payload.
   *
   * @param addr destination address in this region
   * @param src source buffer
   * @param srcPos absolute position in src
   * @param len bytes
   * @return false if the region's memory is freed (closed): nothing was copied
   */
  public boolean copyIn(long addr, ByteBuffer src, int srcPos, int len) {
    int off = offsetOf(addr, len);
    if (len == 0) {
      return true;
    }
    int token = enter();
    if (token == DENIED) {
      return false;
    }
    try {
      if (len > 1) {
        memory.put(off, src, srcPos, len - 1);
      }
      VarHandle.releaseFence();
      memory.put(off + len - 1, src.get(srcPos + len - 1));
    } finally {
      exit(token);
    }
    return true;
  }

  /**
   * Atomically adds to the little-endian 8-byte word at {@code addr}.
   *
   * @param addr an 8-byte aligned address in this region
   * @param add the addend
   * @return the original value
   * @throws VerbsException EBADF if the region's memory is freed (closed)
   */
  public long fetchAdd(long addr, long add) {
    int off = offsetOf(addr, 8);
    int token = enter();
    if (token == DENIED) {
      throw freed();
    }
    try {
      return (long) LONGS.getAndAdd(memory, off, add);
    } finally {
      exit(token);
    }
  }

  /**
   * Atomically replaces the word at {@code addr} with {@code swap} if it equals {@code compare}.
   *
   * @param addr an 8-byte aligned address in this region
   * @param compare the expected value
   * @param swap the new value
   * @return the original value
   * @throws VerbsException EBADF if the region's memory is freed (closed)
   */
  public long compareSwap(long addr, long compare, long swap) {
    int off = offsetOf(addr, 8);
    int token = enter();
    if (token == DENIED) {
      throw freed();
    }
    try {
      return (long) LONGS.compareAndExchange(memory, off, compare, swap);
    } finally {
      exit(token);
    }
  }

  /**
   * Reads the word at {@code addr} (volatile).
   *
   * @param addr an 8-byte aligned address
   * @return its value
   * @throws VerbsException EBADF if the region's memory is freed (closed)
   */
  public long getLongVolatile(long addr) {
    int off = offsetOf(addr, 8);
    int token = enter();
    if (token == DENIED) {
      throw freed();
    }
    try {
      return (long) LONGS.getVolatile(memory, off);
    } finally {
      exit(token);
    }
  }

  /**
   * The memory itself for provider-internal transfers (position 0, limit = length, little-endian).
   *
   * @return a duplicate view
   * @throws VerbsException EBADF once closed if the memory is freed at close
   */
  public ByteBuffer memory() {
    if (owned != null && !valid) {
      throw freed();
    }
    return memory.duplicate().order(ByteOrder.LITTLE_ENDIAN);
  }

  @Override
  public void close() {
    synchronized (this) {
      if (!valid) {
        return;
      }
      valid = false;
    }
    pd.mrClosed(this, keys);
    ByteBuffer allocation = owned;
    if (allocation != null) {
      USERS.getAndBitwiseOr(this, FREED);
      while ((users & ~FREED) != 0) {
        Thread.yield(); // a copy of at most a packet is inside the memory; it may be descheduled
      }
      if (!viewTaken) {
        DirectMemory.free(allocation);
      }
    }
  }

  @Override
  public String toString() {
    return "MR{addr=0x" + Long.toHexString(address) + ", iova=0x" + Long.toHexString(iova) + ", length=" + length
        + ", lkey=0x" + Integer.toHexString(lkey()) + ", rkey=0x" + Integer.toHexString(rkey()) + ", access="
        + access() + '}';
  }
}
