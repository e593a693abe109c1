package io.github.verbs4j.verbs.spi;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.VerbsException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.agrona.BufferUtil;

/**
 * Direct buffers whose size a caller chose ({@code allocateMemory}): a size beyond the JVM's direct
 * memory limit fails with ENOMEM before anything is reserved, instead of an {@link
 * OutOfMemoryError} that reaches the application (and, on the way, makes the JDK run a full GC and
 * sleep); a size within the limit that what is in use leaves no room for lets the JDK collect
 * garbage first (buffers of closed regions), and fails with ENOMEM if that does not free enough.
 * The limit is {@code -XX:MaxDirectMemorySize}, by default the heap's maximum. {@link #free} gives
 * a buffer back at once, so memory released by the application counts against the limit only until
 * it is released, not until a GC collects the buffer.
 */
public final class DirectMemory {
  private static final long LIMIT = maxDirectMemory();
  private static final BufferPoolMXBean POOL = directPool();

  private DirectMemory() {}

  /**
   * Allocates a zeroed direct buffer.
   *
   * @param length bytes
   * @return the buffer
   * @throws VerbsException ENOMEM naming the length and what the limit leaves, if the JVM cannot
   *     give it
   */
  public static ByteBuffer allocate(int length) {
    long free = LIMIT - used();
    if (length > free && length <= LIMIT) {
      // Garbage may hold the rest (buffers of closed regions that a GC frees): the JDK's own
      // reservation collects and retries before it gives up.
      free = LIMIT;
    }
    return allocate(length, free);
  }

  /** {@link #allocate(int)} with {@code free} bytes left under the limit. */
  static ByteBuffer allocate(int length, long free) {
    if (length > free) {
      throw noMemory(length, "direct memory limit " + LIMIT + " bytes, " + Math.max(0, free) + " free");
    }
    try {
      return ByteBuffer.allocateDirect(length);
    } catch (OutOfMemoryError e) {
      throw noMemory(length, e.getMessage());
    }
  }

  /** @return the JVM's direct memory limit, bytes */
  static long limit() {
    return LIMIT;
  }

  /** @return direct memory in use, bytes (the JDK's "direct" buffer pool) */
  static long used() {
    return POOL == null ? 0 : POOL.getMemoryUsed();
  }

  /**
   * Frees a buffer from {@link #allocate} now, through its cleaner (Agrona {@link
   * BufferUtil#free(ByteBuffer)}); the cleaner then does nothing when a GC collects it. The caller
   * guarantees that nothing reads or writes the buffer or any view of it afterwards: that would
   * touch freed native memory.
   *
   * @param buffer the buffer {@link #allocate} returned (not a slice or duplicate of it)
   */
  public static void free(ByteBuffer buffer) {
    try {
      BufferUtil.free(buffer);
    } catch (LinkageError e) {
      // a JVM without --add-exports java.base/jdk.internal.misc: the GC frees it, as before
    }
  }

  /**
   * The error for an allocation the JVM refused.
   *
   * @param length the requested bytes
   * @param why the JVM's or the pool's reason
   * @return ENOMEM naming the length
   */
  public static VerbsException noMemory(long length, String why) {
    return new VerbsException(Errno.ENOMEM, "length=" + length + ": cannot allocate (" + why + ")");
  }

  private static long maxDirectMemory() {
    long heap = Runtime.getRuntime().maxMemory();
    try {
      HotSpotDiagnosticMXBean hs = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
      long v = hs == null ? 0 : Long.parseLong(hs.getVMOption("MaxDirectMemorySize").getValue());
      return v > 0 ? v : heap;
    } catch (RuntimeException | LinkageError e) {
      return heap; // not HotSpot: the JDK's own default
    }
  }

  private static BufferPoolMXBean directPool() {
    for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (b.getName().equals("direct")) {
        return b;
      }
    }
    return null;
  }
}
