package io.github.verbs4j.ib.engine;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.util.internal.PlatformDependent;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The device's packet buffers, reused without allocating on whatever thread runs the engine.
 * Netty's pooled allocator recycles its buffer objects only on Netty's own threads (a {@code
 * FastThreadLocalThread}); with {@code verbs.threading=invoker} (and in posts and polls of {@code dedicated}) the engine runs on application
 * threads, where every packet would cost a new buffer object and its NIO view. Here a packet of at
 * most {@link #SMALL} or {@link #LARGE} bytes comes from a free list of direct buffers of that
 * size; releasing it (the fabric releases a packet once written or delivered, on any thread) puts it
 * back. At most {@code maxSmall} and {@code maxLarge} buffers are made; beyond that, and above
 * {@link #LARGE}, packets come from the fabric's allocator.
 *
 * <p>Thread-safety: {@link #allocate} is called by the one thread running the engine (the agent);
 * buffers come back from any thread.
 */
final class PacketPool {
  /** Headers, ACKs, atomics and small inline payloads. */
  static final int SMALL = 256;
  /** A full packet of the largest IB MTU with every header. */
  static final int LARGE = 4096 + 128;
  /** Small buffers a device makes at most (1 MiB). */
  static final int MAX_SMALL = 4096;
  /** Large buffers a device makes at most (4.1 MiB): a 1 MiB message in flight is 256 of them. */
  static final int MAX_LARGE = 1024;

  private final ByteBufAllocator fallback;
  private final SizeClass small;
  private final SizeClass large;

  /**
   * @param fallback where packets come from beyond the limits
   * @param maxSmall most small buffers made
   * @param maxLarge most large buffers made
   */
  PacketPool(ByteBufAllocator fallback, int maxSmall, int maxLarge) {
    this.fallback = fallback;
    this.small = new SizeClass(SMALL, maxSmall);
    this.large = new SizeClass(LARGE, maxLarge);
  }

  /**
   * @param size the packet's length
   * @return a buffer with reader index 0 and writer index {@code size}, reference count 1
   */
  ByteBuf allocate(int size) {
    ByteBuf b = null;
    if (size <= SMALL) {
      b = small.take();
    } else if (size <= LARGE) {
      b = large.take();
    }
    if (b == null) {
      b = fallback.directBuffer(size, size);
    }
    return b.setIndex(0, size);
  }

  /** @return buffers made so far (small + large), for tests and gauges */
  int created() {
    return small.created.get() + large.created.get();
  }

  private static final class SizeClass {
    final int capacity;
    final int max;
    final Queue<Recycled> free;
    final AtomicInteger created = new AtomicInteger();

    SizeClass(int capacity, int max) {
      this.capacity = capacity;
      this.max = max;
      this.free = PlatformDependent.newFixedMpscQueue(Math.max(2, max));
    }

    /** @return a free buffer, a new one while fewer than max exist, else null */
    Recycled take() {
      Recycled p = free.poll();
      if (p != null) {
        p.reuse();
        return p;
      }
      if (created.get() >= max) {
        return null;
      }
      created.incrementAndGet();
      return new Recycled(this);
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
      if (!home.free.offer(this)) {
        home.created.decrementAndGet();
        super.deallocate(); // the list is full: free the memory
      }
    }
  }
}
