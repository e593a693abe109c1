package io.github.verbs4j.verbs.spi;

import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.VerbsException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A device-wide count of one kind of object against its {@code ibv_device_attr} limit ({@code
 * max_qp}, {@code max_cq}, {@code max_srq}, {@code max_pd}): creating one more than the limit fails
 * with ENOMEM naming the limit, as the kernel's {@code rxe_pool} does when a pool is full. Thread-safe.
 */
final class ObjectLimit {
  private final String limitName;
  private final String objects;
  private final int limit;
  private final AtomicInteger used = new AtomicInteger();

  /**
   * @param limitName the attribute, e.g. {@code max_qp}
   * @param objects what is counted, plural, e.g. {@code QPs}
   * @param limit the attribute's value
   */
  ObjectLimit(String limitName, String objects, int limit) {
    this.limitName = limitName;
    this.objects = objects;
    this.limit = limit;
  }

  /**
   * Counts one more object.
   *
   * @throws VerbsException ENOMEM naming the limit and its value if {@code limit} objects exist
   */
  void acquire() {
    if (used.incrementAndGet() > limit) {
      used.decrementAndGet();
      throw new VerbsException(Errno.ENOMEM, limitName + "=" + limit + " " + objects + " are already allocated");
    }
  }

  /** Counts one object less (it was destroyed, or its creation failed after {@link #acquire}). */
  void release() {
    used.decrementAndGet();
  }
}
