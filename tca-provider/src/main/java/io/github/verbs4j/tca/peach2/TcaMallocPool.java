package io.github.verbs4j.tca.peach2;

import io.github.verbs4j.verbs.spi.DirectAddress;
import io.netty.buffer.ByteBuf;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The driver's pinned memory pool, the {@code tcaMalloc()} of seed 000 §2.4: the only CPU memory
 * the DMA controller may read or write. A pool covers one sub-slice of a node's global address
 * window (host memory, or one device's memory for the accelerator pool), so every pool byte has a
 * global address the other boards can write to.
 *
 * <p>Memory is pinned in segments: an allocation of at least {@link #DEDICATED_MIN} bytes gets its
 * own segment, smaller ones are carved first-fit from 4 MiB slabs. Segment addresses are never
 * reused after a segment is released, so a late write to released memory finds nothing mapped and
 * is dropped rather than landing in a new owner's data.
 *
 * <p>Thread-safe: allocation takes the pool's lock; lookups by address ({@link #segmentAt}) are
 * lock-free over a copy-on-write array. All data access is by absolute index, so the board's
 * receive path, the DMA controller and the CPU may touch the same segment concurrently.
 */
public final class TcaMallocPool {
  /** Allocations of at least this many bytes get a dedicated segment. */
  public static final int DEDICATED_MIN = 1 << 20;
  /** Size of a slab for smaller allocations. */
  public static final int SLAB_SIZE = 4 << 20;
  /** Alignment of every allocation (so the low four address bits are under the caller's control). */
  public static final int MIN_ALIGN = 64;

  private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INTS = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private final String name;
  private final long globalBase;
  private final long localBase;
  private final long capacity;
  private final boolean device;
  private volatile Segment[] segments = new Segment[0];
  private long nextOffset;
  private long inUse;
  private long pinned;

  /**
   * @param name for messages, e.g. {@code host pool of node 3}
   * @param globalBase global address of the sub-slice
   * @param localBase the sub-slice's offset within the node's slice
   * @param capacity most bytes that may be pinned
   * @param device whether this pool is device (GPU) memory
   */
  public TcaMallocPool(String name, long globalBase, long localBase, long capacity, boolean device) {
    if (capacity <= 0) {
      throw new IllegalArgumentException(name + ": capacity=" + capacity + " must be positive");
    }
    this.name = name;
    this.globalBase = globalBase;
    this.localBase = localBase;
    this.capacity = capacity;
    this.device = device;
  }

  /** A pinned segment: one direct buffer at a fixed place in the sub-slice. */
  public static final class Segment {
    final long start;
    final int length;
    final ByteBuffer memory;
    final long nativeAddress;
    // Free list of a slab: sorted (offset, length) pairs; null for dedicated segments.
    int[] freeOff;
    int[] freeLen;
    int freeCount;
    int blocks;

    Segment(long start, int length, boolean slab) {
      this.start = start;
      this.length = length;
      this.memory = ByteBuffer.allocateDirect(length).order(ByteOrder.LITTLE_ENDIAN);
      this.nativeAddress = DirectAddress.of(memory);
      if (slab) {
        freeOff = new int[16];
        freeLen = new int[16];
        freeOff[0] = 0;
        freeLen[0] = length;
        freeCount = 1;
      }
    }

    /** @return the segment's memory (absolute access only) */
    public ByteBuffer memory() {
      return memory;
    }

    /** @return its offset from the pool's global base */
    public long start() {
      return start;
    }

    /** @return its length */
    public int length() {
      return length;
    }
  }

  /** An allocation: {@code length} bytes at a global address. */
  public static final class Block {
    private final TcaMallocPool pool;
    private final Segment segment;
    private final int offset;
    private final int length;
    private boolean freed;
    private volatile ByteBuffer shared;

    Block(TcaMallocPool pool, Segment segment, int offset, int length) {
      this.pool = pool;
      this.segment = segment;
      this.offset = offset;
      this.length = length;
    }

    /** @return the global address of the first byte */
    public long address() {
      return pool.globalBase + segment.start + offset;
    }

    /** @return bytes */
    public int length() {
      return length;
    }

    /** @return a little-endian view of exactly this block (position 0, limit length) */
    public ByteBuffer buffer() {
      return segment.memory.slice(offset, length).order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * @return one little-endian view of this block, made on first use and shared by every caller:
     *     for absolute gets and puts only (nobody moves its position or limit), so that code writing
     *     the block again and again (a DMA descriptor per transfer) makes no view each time
     */
    public ByteBuffer sharedBuffer() {
      ByteBuffer b = shared;
      if (b == null) {
        b = buffer();
        shared = b;
      }
      return b;
    }

    /** @return the pool */
    public TcaMallocPool pool() {
      return pool;
    }

    /** Returns the block to the pool. Idempotent. */
    public void free() {
      pool.free(this);
    }

    @Override
    public String toString() {
      return "Block{0x" + Long.toHexString(address()) + ", " + length + " bytes}";
    }
  }

  /** @return the pool's name */
  public String name() {
    return name;
  }

  /** @return whether this is device memory */
  public boolean isDevice() {
    return device;
  }

  /** @return global address of the sub-slice */
  public long globalBase() {
    return globalBase;
  }

  /** @return the most bytes that may be pinned */
  public long capacity() {
    return capacity;
  }

  /** @return bytes currently allocated to blocks */
  public synchronized long inUse() {
    return inUse;
  }

  /** @return bytes currently pinned in segments */
  public synchronized long pinned() {
    return pinned;
  }

  /**
   * Allocates pinned memory ({@code tcaMalloc}). The memory is zeroed on first use of a segment.
   *
   * @param length bytes, at least 1
   * @param align alignment of the global address, a power of two
   * @return the block
   * @throws IllegalStateException naming the pool when it is exhausted
   */
  public synchronized Block allocate(int length, int align) {
    if (length < 1) {
      throw new IllegalArgumentException(name + ": length=" + length + " must be positive");
    }
    int a = Math.max(MIN_ALIGN, align);
    if (Integer.bitCount(a) != 1 || a > SLAB_SIZE) {
      throw new IllegalArgumentException(name + ": align=" + align + " must be a power of two <= " + SLAB_SIZE);
    }
    int rounded = roundUp(length, MIN_ALIGN);
    if (rounded >= DEDICATED_MIN || a > 4096) {
      Segment s = newSegment(roundUp(length, 4096), false);
      s.blocks = 1;
      inUse += length;
      return new Block(this, s, 0, length);
    }
    for (Segment s : segments) {
      if (s.freeOff != null) {
        int off = carve(s, rounded, a);
        if (off >= 0) {
          s.blocks++;
          inUse += rounded;
          return new Block(this, s, off, length);
        }
      }
    }
    Segment s = newSegment(SLAB_SIZE, true);
    int off = carve(s, rounded, a);
    s.blocks++;
    inUse += rounded;
    return new Block(this, s, off, length);
  }

  private static int roundUp(int v, int a) {
    long r = ((long) v + a - 1) & -(long) a;
    if (r > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("length=" + v + " is too large");
    }
    return (int) r;
  }

  private Segment newSegment(int length, boolean slab) {
    if (pinned + length > capacity) {
      throw new IllegalStateException(name + " is exhausted: " + pinned + " of " + capacity
          + " bytes pinned, cannot pin " + length + " more");
    }
    long start = (nextOffset + 65535) & -65536L;
    Segment s = new Segment(start, length, slab);
    nextOffset = start + length;
    pinned += length;
    Segment[] cur = segments;
    Segment[] next = Arrays.copyOf(cur, cur.length + 1);
    next[cur.length] = s;
    segments = next; // starts only grow, so the array stays sorted
    return s;
  }

  private static int carve(Segment s, int len, int align) {
    for (int i = 0; i < s.freeCount; i++) {
      int off = s.freeOff[i];
      int aligned = (off + align - 1) & -align;
      int end = s.freeOff[i] + s.freeLen[i];
      if (aligned + len <= end) {
        int before = aligned - off;
        int after = end - (aligned + len);
        if (before == 0 && after == 0) {
          removeFree(s, i);
        } else if (before == 0) {
          s.freeOff[i] = aligned + len;
          s.freeLen[i] = after;
        } else {
          s.freeLen[i] = before;
          if (after > 0) {
            insertFree(s, i + 1, aligned + len, after);
          }
        }
        return aligned;
      }
    }
    return -1;
  }

  private static void removeFree(Segment s, int i) {
    System.arraycopy(s.freeOff, i + 1, s.freeOff, i, s.freeCount - i - 1);
    System.arraycopy(s.freeLen, i + 1, s.freeLen, i, s.freeCount - i - 1);
    s.freeCount--;
  }

  private static void insertFree(Segment s, int i, int off, int len) {
    if (s.freeCount == s.freeOff.length) {
      s.freeOff = Arrays.copyOf(s.freeOff, s.freeCount * 2);
      s.freeLen = Arrays.copyOf(s.freeLen, s.freeCount * 2);
    }
    System.arraycopy(s.freeOff, i, s.freeOff, i + 1, s.freeCount - i);
    System.arraycopy(s.freeLen, i, s.freeLen, i + 1, s.freeCount - i);
    s.freeOff[i] = off;
    s.freeLen[i] = len;
    s.freeCount++;
  }

  synchronized void free(Block b) {
    if (b.freed) {
      return;
    }
    b.freed = true;
    Segment s = b.segment;
    if (s.freeOff == null) {
      inUse -= b.length;
      release(s);
      return;
    }
    int len = roundUp(b.length, MIN_ALIGN);
    inUse -= len;
    // Zero the block so a later owner never sees this owner's data.
    fill(s.memory, b.offset, len);
    int i = 0;
    while (i < s.freeCount && s.freeOff[i] < b.offset) {
      i++;
    }
    insertFree(s, i, b.offset, len);
    if (i + 1 < s.freeCount && s.freeOff[i] + s.freeLen[i] == s.freeOff[i + 1]) {
      s.freeLen[i] += s.freeLen[i + 1];
      removeFree(s, i + 1);
    }
    if (i > 0 && s.freeOff[i - 1] + s.freeLen[i - 1] == s.freeOff[i]) {
      s.freeLen[i - 1] += s.freeLen[i];
      removeFree(s, i);
    }
    s.blocks--;
  }

  private static void fill(ByteBuffer m, int off, int len) {
    int i = 0;
    for (; i + 8 <= len; i += 8) {
      m.putLong(off + i, 0L);
    }
    for (; i < len; i++) {
      m.put(off + i, (byte) 0);
    }
  }

  private void release(Segment s) {
    Segment[] cur = segments;
    int idx = -1;
    for (int i = 0; i < cur.length; i++) {
      if (cur[i] == s) {
        idx = i;
      }
    }
    if (idx < 0) {
      return;
    }
    Segment[] next = new Segment[cur.length - 1];
    System.arraycopy(cur, 0, next, 0, idx);
    System.arraycopy(cur, idx + 1, next, idx, cur.length - idx - 1);
    segments = next;
    pinned -= s.length;
  }

  /**
   * The segment holding {@code [offset, offset + len)} of this pool, or null if that range is not
   * entirely pinned memory.
   *
   * @param offset offset from the pool's global base
   * @param len bytes
   * @return the segment, or null
   */
  public Segment segmentAt(long offset, long len) {
    Segment[] a = segments;
    int lo = 0;
    int hi = a.length - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      Segment s = a[mid];
      if (offset < s.start) {
        hi = mid - 1;
      } else if (offset >= s.start + s.length) {
        lo = mid + 1;
      } else {
        return len <= s.start + s.length - offset ? s : null;
      }
    }
    return null;
  }

  /**
   * @param address a global address
   * @param len bytes
   * @return whether {@code [address, address + len)} is pinned memory of this pool
   */
  public boolean contains(long address, long len) {
    long off = address - globalBase;
    return off >= 0 && len >= 0 && segmentAt(off, Math.max(1, len)) != null;
  }

  /**
   * The global address of native memory if it is pool memory (a view of a block registered again,
   * as {@code tcaMalloc} memory is registered with {@code ibv_reg_mr}).
   *
   * @param nativeAddress a native address
   * @param len bytes from it
   * @return the global address, or -1 if the range is not pool memory
   */
  public long globalAddressOfNative(long nativeAddress, long len) {
    for (Segment s : segments) {
      long off = nativeAddress - s.nativeAddress;
      if (off >= 0 && off < s.length && len <= s.length - off) {
        return globalBase + s.start + off;
      }
    }
    return -1;
  }

  /**
   * The board's write of incoming data at a local offset (seed 001 §3.4, after offset
   * subtraction). Ascending order, the last byte published last; aligned 4- and 8-byte writes are
   * single release stores so a polled word is never torn.
   *
   * @param offset offset from the pool's global base
   * @param src the data
   * @param srcIndex its first byte
   * @param len bytes
   * @return false if the range is not pinned memory (nothing written)
   */
  public boolean write(long offset, ByteBuf src, int srcIndex, int len) {
    Segment s = segmentAt(offset, Math.max(1, len));
    if (s == null) {
      return false;
    }
    if (len == 0) {
      return true;
    }
    int off = (int) (offset - s.start);
    ByteBuffer m = s.memory;
    if (len == 8 && (off & 7) == 0) {
      LONGS.setRelease(m, off, src.getLongLE(srcIndex));
      return true;
    }
    if (len == 4 && (off & 3) == 0) {
      INTS.setRelease(m, off, src.getIntLE(srcIndex));
      return true;
    }
    copyIn(m, off, src, srcIndex, len - 1);
    VarHandle.releaseFence();
    m.put(off + len - 1, src.getByte(srcIndex + len - 1));
    return true;
  }

  private static void copyIn(ByteBuffer m, int off, ByteBuf src, int srcIndex, int len) {
    if (len <= 0) {
      return;
    }
    if (src.nioBufferCount() == 1) {
      ByteBuffer nio = src.internalNioBuffer(srcIndex, len);
      m.put(off, nio, nio.position(), len);
    } else {
      // a frame spread over the decoder's reads: copied component by component into one view of the
      // memory (nioBuffers would make a buffer object per component)
      src.getBytes(srcIndex, m.slice(off, len));
    }
  }

  /**
   * Writes bytes from a local buffer (a local DMA or a CPU store), with the same ordering rules as
   * {@link #write(long, ByteBuf, int, int)}.
   *
   * @param offset offset from the pool's global base
   * @param src source memory (absolute index)
   * @param srcIndex first byte
   * @param len bytes
   * @return false if the range is not pinned memory
   */
  public boolean write(long offset, ByteBuffer src, int srcIndex, int len) {
    Segment s = segmentAt(offset, Math.max(1, len));
    if (s == null) {
      return false;
    }
    if (len == 0) {
      return true;
    }
    int off = (int) (offset - s.start);
    ByteBuffer m = s.memory;
    if (len == 8 && (off & 7) == 0) {
      LONGS.setRelease(m, off, src.order() == ByteOrder.LITTLE_ENDIAN ? src.getLong(srcIndex)
          : Long.reverseBytes(src.getLong(srcIndex)));
      return true;
    }
    if (len > 1) {
      m.put(off, src, srcIndex, len - 1);
    }
    VarHandle.releaseFence();
    m.put(off + len - 1, src.get(srcIndex + len - 1));
    return true;
  }

  /**
   * Reads an 8-byte little-endian word with acquire semantics (a polled flag or PSN pair).
   *
   * @param m a segment's or block's memory
   * @param index byte index, 8-aligned
   * @return the value
   */
  public static long getLongAcquire(ByteBuffer m, int index) {
    return (long) LONGS.getAcquire(m, index);
  }

  /**
   * Stores an 8-byte little-endian word with release semantics.
   *
   * @param m memory
   * @param index byte index, 8-aligned
   * @param value the value
   */
  public static void setLongRelease(ByteBuffer m, int index, long value) {
    LONGS.setRelease(m, index, value);
  }

  @Override
  public String toString() {
    return "TcaMallocPool{" + name + ", base=0x" + Long.toHexString(globalBase) + ", pinned=" + pinned() + "/"
        + capacity + "}";
  }
}
