package io.github.verbs4j.verbs.spi;

import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.VerbsException;
import java.security.SecureRandom;
import java.util.SplittableRandom;

/**
 * Allocates 32-bit memory keys and resolves them in O(1) without boxing.
 *
 * <p>A key is {@code random16 << 16 | index16}: the low 16 bits index a table, the high 16 bits
 * are random and compared on lookup, so keys are not guessable in sequence (one chance in 65535
 * per guess) and a stale key of a reused slot is rejected. lkey and rkey of one region share the
 * index and differ in their random part. Thread-safe.
 *
 * @param <T> the keyed object
 */
public final class KeyTable<T> {
  /** Most objects a table can hold. */
  public static final int MAX_ENTRIES = 1 << 16;

  private final Object[] objects = new Object[MAX_ENTRIES];
  private final int[] lkeys = new int[MAX_ENTRIES];
  private final int[] rkeys = new int[MAX_ENTRIES];
  private final SplittableRandom random;
  private int nextFree = 1;
  private int count;

  /** A table with keys from a securely seeded generator. */
  public KeyTable() {
    this(new SecureRandom().nextLong());
  }

  /**
   * A table with reproducible keys (tests).
   *
   * @param seed the seed
   */
  public KeyTable(long seed) {
    this.random = new SplittableRandom(seed);
  }

  /**
   * Keys of an inserted object.
   *
   * @param lkey local key
   * @param rkey remote key
   */
  public record Keys(int lkey, int rkey) {}

  /**
   * Inserts an object and allocates its keys.
   *
   * @param object the object
   * @param limit the device's object limit
   * @return the keys
   * @throws VerbsException ENOMEM when {@code limit} objects exist
   */
  public synchronized Keys insert(T object, int limit) {
    if (count >= Math.min(limit, MAX_ENTRIES - 1)) {
      throw new VerbsException(Errno.ENOMEM, "memory regions=" + count + " reached max_mr=" + limit);
    }
    int index = nextFree;
    while (objects[index] != null) {
      index = index + 1 == MAX_ENTRIES ? 1 : index + 1;
    }
    nextFree = index + 1 == MAX_ENTRIES ? 1 : index + 1;
    int lkey = randomHigh() | index;
    int rkey;
    do {
      rkey = randomHigh() | index;
    } while (rkey == lkey);
    objects[index] = object;
    lkeys[index] = lkey;
    rkeys[index] = rkey;
    count++;
    return new Keys(lkey, rkey);
  }

  private int randomHigh() {
    return (1 + random.nextInt(0xFFFF)) << 16;
  }

  /**
   * Removes the object with these keys; later lookups of either key fail.
   *
   * @param keys its keys
   */
  public synchronized void remove(Keys keys) {
    int index = keys.lkey() & 0xFFFF;
    if (objects[index] != null && lkeys[index] == keys.lkey()) {
      objects[index] = null;
      lkeys[index] = 0;
      rkeys[index] = 0;
      count--;
    }
  }

  /**
   * @param lkey a local key
   * @return the object, or null if the key is not valid
   */
  @SuppressWarnings("unchecked")
  public T byLkey(int lkey) {
    int index = lkey & 0xFFFF;
    synchronized (this) {
      return lkeys[index] == lkey && lkey != 0 ? (T) objects[index] : null;
    }
  }

  /**
   * @param rkey a remote key
   * @return the object, or null if the key is not valid
   */
  @SuppressWarnings("unchecked")
  public T byRkey(int rkey) {
    int index = rkey & 0xFFFF;
    synchronized (this) {
      return rkeys[index] == rkey && rkey != 0 ? (T) objects[index] : null;
    }
  }

  /** @return the number of objects */
  public synchronized int size() {
    return count;
  }
}
