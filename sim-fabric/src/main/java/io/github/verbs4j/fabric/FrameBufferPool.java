package io.github.verbs4j.fabric;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.util.internal.PlatformDependent;
import java.util.Arrays;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A provider's frame buffers, reused without allocating on whatever thread builds a frame. Netty's
 * pooled allocator recycles its buffer objects only on Netty's own threads (a {@code
 * FastThreadLocalThread}); with {@code verbs.threading=invoker} (and in posts and polls of {@code
 * dedicated}) a provider's engine runs on application threads, where every frame would cost a new
 * buffer object and its NIO view. Here a frame comes from a free list of direct buffers of the
 * smallest {@link Size} that holds it; releasing it (the fabric releases a frame once written,
 * delivered or dropped, on any thread; a view's last release releases its parent) puts it back. At
 * most a size's {@code max} buffers are made; beyond that, and above the largest size, frames come
 * from the fallback allocator. {@link #close} frees the free buffers, and each one still in use
 * when it is released.
 *
 * <p>Thread-safety: any thread may take and return buffers.
 */
public final class FrameBufferPool {
  /**
   * A size class.
   *
   * @param capacity bytes of each buffer
   * @param max buffers made at most
   */
  public record Size(int capacity, int max) {
    /** Checks the numbers. */
    public Size {
      if (capacity < 1 || max < 1) {
        throw new IllegalArgumentException("size class capacity=" + capacity + ", max=" + max + ": both must be >= 1");
      }
    }
  }

  private final ByteBufAllocator fallback;
  private final SizeClass[] classes;

  /**
   * @param fallback where frames come from beyond the limits and above the largest size
   * @param sizes the size classes, smallest first
   */
  public FrameBufferPool(ByteBufAllocator fallback, Size... sizes) {
    this.fallback = fallback;
    this.classes = new SizeClass[sizes.length];
    for (int i = 0; i < sizes.length; i++) {
      if (i > 0 && sizes[i].capacity() <= sizes[i - 1].capacity()) {
        throw new IllegalArgumentException("size classes must grow: " + Arrays.toString(sizes));
      }
      classes[i] = new SizeClass(sizes[i]);
    }
  }

  /**
   * @param capacity the bytes the frame needs at most
   * @return an empty buffer (reader and writer index 0) of at least that capacity, reference count 1
   */
  public ByteBuf allocate(int capacity) {
    for (SizeClass c : classes) {
      if (capacity <= c.capacity) {
        Recycled b = c.take();
        if (b != null) {
          return b.clear();
        }
        break;
      }
    }
    return fallback.directBuffer(capacity);
  }

  /** @return buffers made and not freed, for tests and gauges */
  public int created() {
    int n = 0;
    for (SizeClass c : classes) {
      n += c.created.get();
    }
    return n;
  }

  /** The owner closes: frees the free buffers now and the others as they are released. Idempotent. */
  public void close() {
    for (SizeClass c : classes) {
      c.close();
    }
  }

  private static final class SizeClass {
    final int capacity;
    final int max;
    final Queue<Recycled> free;
    final AtomicInteger created = new AtomicInteger();
    volatile boolean closed;

    SizeClass(Size s) {
      this.capacity = s.capacity();
      this.max = s.max();
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
        destroy(); // the owner closed or the list is full: free the memory
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
