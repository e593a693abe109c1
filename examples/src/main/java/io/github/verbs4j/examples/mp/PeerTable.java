package io.github.verbs4j.examples.mp;

import java.util.Iterator;
import org.agrona.collections.Int2ObjectHashMap;

/**
 * The rank table of a communicator: the {@link Peer} record of each rank this rank has talked to,
 * hashed by rank (seed 003 §3.1: a table of n entries becomes hashed lists, so its size follows the
 * peers talked to, not the job). Not thread-safe; a report after a timeout may read it from another
 * thread once the ranks have stopped.
 */
final class PeerTable implements Iterable<Peer> {
  /** Agrona's default load factor: a resize once the entries pass 65 % of the capacity. */
  private static final float LOAD_FACTOR = 0.65f;
  /** Agrona's smallest capacity. */
  private static final int MIN_CAPACITY = 8;
  /**
   * The map object: header 12 B, a float, two ints, a boolean and five references (the two arrays,
   * three cached views), aligned to 8 (JOL's layout with compressed references).
   */
  private static final int MAP_BYTES = 48;

  private final int ranks;
  private final Int2ObjectHashMap<Peer> byRank = new Int2ObjectHashMap<>(MIN_CAPACITY, LOAD_FACTOR, false);

  /** @param ranks the communicator's size */
  PeerTable(int ranks) {
    this.ranks = ranks;
  }

  /** @return the communicator's size (the ranks a peer may have, not the peers held) */
  int ranks() {
    return ranks;
  }

  /** @return the record of rank {@code r}, or null if this rank has not talked to it */
  Peer get(int r) {
    return byRank.get(r);
  }

  /** Adds a peer's record. */
  void add(Peer p) {
    byRank.put(p.rank, p);
  }

  /** @return the records held */
  int peers() {
    return byRank.size();
  }

  @Override
  public Iterator<Peer> iterator() {
    return byRank.values().iterator();
  }

  /** @return the bytes of the table as it is now (the map and its key and value arrays) */
  long bytes() {
    return bytesAtCapacity(byRank.capacity());
  }

  /**
   * @param entries records in the table
   * @return the bytes of a table holding that many records (the capacity Agrona grows to)
   */
  static long bytes(int entries) {
    int capacity = MIN_CAPACITY;
    while (entries > (int) (capacity * LOAD_FACTOR)) {
      capacity <<= 1;
    }
    return bytesAtCapacity(capacity);
  }

  private static long bytesAtCapacity(int capacity) {
    return MAP_BYTES + 2 * MpMemory.arrayBytes(4L * capacity);
  }
}
