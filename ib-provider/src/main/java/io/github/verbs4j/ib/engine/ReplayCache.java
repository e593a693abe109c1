package io.github.verbs4j.ib.engine;

import io.github.verbs4j.verbs.spi.wire.Psn;

/**
 * A responder's READ/atomic replay cache (rxe's {@code resp_res} ring; IBTA C9-148..151): {@code
 * max_dest_rd_atomic} entries, the oldest reused first. A duplicate READ is answered again from
 * memory, a duplicate atomic with the value it returned, and neither executes twice. Engine only,
 * under the QP lock.
 */
final class ReplayCache {
  private ReplayEntry[] entries = new ReplayEntry[0];
  private int next;

  /** Empties the cache, resized to {@code size} entries (0: no READ or atomic is accepted). */
  void reset(int size) {
    if (entries.length != size) {
      entries = new ReplayEntry[size];
      for (int i = 0; i < size; i++) {
        entries[i] = new ReplayEntry();
      }
    }
    for (ReplayEntry e : entries) {
      e.clear();
    }
    next = 0;
  }

  /** @return whether it has no entries (max_dest_rd_atomic = 0) */
  boolean isEmpty() {
    return entries.length == 0;
  }

  /** @return the entry to record the next READ or atomic in (the oldest) */
  ReplayEntry claim() {
    ReplayEntry e = entries[next];
    next = (next + 1) % entries.length;
    return e;
  }

  /** @return the READ whose response PSNs include {@code psn}, or null */
  ReplayEntry findRead(int psn) {
    for (ReplayEntry e : entries) {
      if (e.type == ReplayEntry.READ && Psn.compare(psn, e.firstPsn) >= 0 && Psn.compare(psn, e.lastPsn) <= 0) {
        return e;
      }
    }
    return null;
  }

  /** @return the atomic executed at {@code psn}, or null */
  ReplayEntry findAtomic(int psn) {
    for (ReplayEntry e : entries) {
      if (e.type == ReplayEntry.ATOMIC && e.firstPsn == psn) {
        return e;
      }
    }
    return null;
  }

  /** @return bytes it holds, roughly */
  long footprint() {
    return entries.length * 64L;
  }
}
