package io.github.verbs4j.tca.peach2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.util.internal.PlatformDependent;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A board's link frame buffers, reused without allocating on whatever thread builds a frame.
 * Netty's pooled allocator recycles its buffer objects only on Netty's own threads (a {@code
 * FastThreadLocalThread}); with {@code verbs.threading=invoker} (and in posts and polls of {@code
 * dedicated}) the proxies and the link layer run on application threads, where every frame would
 * cost a new buffer object and its NIO view. Here a frame of at most {@link #SMALL}, {@link
 * #MEDIUM} or {@link #LARGE} bytes comes from a free list of direct buffers of that capacity;
 * releasing it (the fabric releases a frame once delivered or dropped, the replay buffer its view
 * once acknowledged, on any thread) puts it back. At most a class's maximum of buffers are made;
 * beyond that, and above {@link #LARGE}, frames come from the fabric's allocator. {@link #close}
 * frees the free buffers, and each buffer still in use when it is released.
 *
 * <p>Thread-safety: any thread may take and return buffers (the proxies, the link thread, DMA
 * channels and the callers that run them all build frames).
 */
final class FramePool {
  /** DLLPs, PIO writes and low-latency ring packets. */
  static final int SMALL = 256;
  /** A high-bandwidth ring packet of the largest size. */
  static final int MEDIUM = LinkFrame.capacity(16 * 1024);
  /** A frame of the most data a board puts in one ({@link Peach2Board#MAX_FRAME_DATA}). */
  static final int LARGE = LinkFrame.capacity(Peach2Board.MAX_FRAME_DATA);
  /** Small buffers a board makes at most (1 MiB). */
  static final int MAX_SMALL = 4096;
  /** Medium buffers a board makes at most (4 MiB). */
  static final int MAX_MEDIUM = 256;
  /** Large buffers a board makes at most (4 MiB). */
  static final int MAX_LARGE = 64;

  private final ByteBufAllocator fallback;
  private final SizeClass small;
  private final SizeClass medium;
  private final SizeClass large;

  /** @param fallback where frames come from beyond the limits */
  FramePool(ByteBufAllocator fallback) {
    this(fallback, MAX_SMALL, MAX_MEDIUM, MAX_LARGE);
  }

  /**
   * @param fallback where frames come from beyond the limits
   * @param maxSmall most small buffers made
   * @param maxMedium most medium buffers made
   * @param maxLarge most large buffers made
   */
  FramePool(ByteBufAllocator fallback, int maxSmall, int maxMedium, int maxLarge) {
    this.fallback = fallback;
    this.small = new SizeClass(SMALL, maxSmall);
    this.medium = new SizeClass(MEDIUM, maxMedium);
    this.large = new SizeClass(LARGE, maxLarge);
  }

  /**
   * @param capacity the bytes the frame needs at most
   * @return an empty buffer (reader and writer index 0) of at least that capacity, reference count 1
   */
  ByteBuf allocate(int capacity) {
    ByteBuf b = null;
    if (capacity <= SMALL) {
      b = small.take();
    } else if (capacity <= MEDIUM) {
      b = medium.take();
    } else if (capacity <= LARGE) {
      b = large.take();
    }
    if (b == null) {
      return fallback.directBuffer(capacity);
    }
    return b.clear();
  }

  /** @return buffers made and not freed, for tests */
  int created() {
    return small.created.get() + medium.created.get() + large.created.get();
  }

  /** The board closes: frees the free buffers now and the others as they are released. Idempotent. */
  void close() {
    small.close();
    medium.close();
    large.close();
  }

  private static final class SizeClass {
    final int capacity;
    final int max;
    final Queue<Recycled> free;
    final AtomicInteger created = new AtomicInteger();
    volatile boolean closed;

    SizeClass(int capacity, int max) {
      this.capacity = capacity;
      this.max = max;
      this.free = PlatformDependent.newFixedMpmcQueue(Math.max(2, max));
    }

    /** @return a free buffer, a new one while fewer than max exist, else null */
    Recycled take() {
      Recycled p = free.poll();
      if (p != null) {
        p.reuse();
        return p;
      }
      if (created.incrementAndGet() > max) {
        created.decrementAndGet();
        return null;
      }
      return new Recycled(this);
    }

    void close() {
      closed = true;
      drain();
    }

    void drain() {
      Recycled p;
      while ((p = free.poll()) != null) {
        p.destroy();
      }
    }
  }

  /** A direct buffer that goes back to its free list when its reference count reaches zero. */
  private static final class Recycled extends UnpooledDirectByteBuf {
    private final SizeClass home;

    Recycled(SizeClass home) {
      super(UnpooledByteBufAllocator.DEFAULT, home.capacity, home.capacity);
      this.home = home;
    }

    void reuse() {
      setRefCnt(1);
    }

    @Override
    protected void deallocate() {
      if (home.closed || !home.free.offer(this)) {
        destroy(); // the pool is closed or the list is full: free the memory
      } else if (home.closed) {
        home.drain(); // closed while this went back
      }
    }

    void destroy() {
      home.created.decrementAndGet();
      super.deallocate();
    }
  }
}
