package io.github.verbs4j.examples.mp;

import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.spi.AbstractContext;
import io.github.verbs4j.verbs.spi.MemoryAccount;
import io.github.verbs4j.verbs.spi.MemoryComponent;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * The message-passing layer's own share of the context's {@code verbs4j.memory.bytes{component}}
 * meters: {@code mp-buffers} (eager rings and control buffers: the bytes registered for them) and
 * {@code mp-peers} (the hashed rank table and a record per peer and per connection, sized from the JVM's
 * object layout below). Verbs objects (QPs, CQs, MR metadata, AHs) are counted by the provider's
 * SPI as before. A context that is not an SPI {@link AbstractContext} has no account; then nothing
 * is counted.
 */
final class MpMemory {
  /**
   * A {@link Peer} with its two empty queues: object header 12 B + fields ≈ 72 B, two {@code
   * ArrayDeque}s of 24 B with their 17-slot arrays of 88 B (64-bit JVM, compressed references,
   * 8-byte alignment).
   */
  static final int PEER_BYTES = 72 + 2 * (24 + 88);
  /**
   * A {@link Link} record without its free-slot queue: header 12 B + 8 ints, 5 references, 2
   * booleans and a long, aligned (JOL 0.17's class layout on JDK 17: 80 B).
   */
  static final int LINK_BYTES = 80;
  /** An array's header. */
  static final int TABLE_HEADER = 16;
  static final int REFERENCE = 4;

  private final MemoryAccount account;
  /** What this layer counted, by identity (rings are ByteBuffers, whose equals compares content). */
  private final Set<Object> counted = Collections.newSetFromMap(new IdentityHashMap<>());

  MpMemory(Context ctx) {
    this.account = ctx instanceof AbstractContext a ? a.memoryAccount() : null;
  }

  /**
   * @param slots send slots of a link
   * @return the bytes of a link record with its free-slot queue ({@code ArrayDeque} of 24 B and an
   *     array of the next power of two above {@code slots} references; slot numbers below 128 are
   *     cached {@code Integer}s)
   */
  static long linkBytes(int slots) {
    long array = (TABLE_HEADER + (long) REFERENCE * Integer.highestOneBit(slots) * 2 + 7) / 8 * 8;
    return LINK_BYTES + 24 + array;
  }

  /** @return the bytes of a primitive array of {@code bytes} bytes of elements (header, 8-byte alignment) */
  static long arrayBytes(long bytes) {
    return (TABLE_HEADER + bytes + 7) / 8 * 8;
  }

  void add(Object key, MemoryComponent c, long bytes) {
    if (account != null) {
      account.add(key, c, bytes);
      counted.add(key);
    }
  }

  void release(Object key) {
    if (account != null) {
      account.release(key);
      counted.remove(key);
    }
  }

  /**
   * Counts a new link's record (a DC link has no free-slot queue of its own); its ring is counted by
   * the {@link RingPool} from registration to deregistration, spare or not.
   */
  void link(Link l, int slots) {
    add(l, MemoryComponent.MP_PEERS, l.dc() ? LINK_BYTES : linkBytes(slots));
  }

  /** Stops counting a link's record: the link is closed. */
  void linkClosed(Link l) {
    release(l);
  }

  /** Stops counting everything (the communicator is closed). */
  void releaseAll() {
    if (account != null) {
      for (Object o : counted) {
        account.release(o);
      }
      counted.clear();
    }
  }
}
