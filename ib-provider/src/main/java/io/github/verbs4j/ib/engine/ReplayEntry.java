package io.github.verbs4j.ib.engine;

/**
 * One entry of a responder's READ/atomic replay cache (rxe's {@code resp_res}; IBTA C9-148..151):
 * enough to answer a duplicate READ again from memory (by rkey, re-looked-up per packet, never a
 * held region: rxe commit 8a1a0be894da) or a duplicate atomic with the value it returned, without
 * executing it twice. A responder keeps {@code max_dest_rd_atomic} of them in a ring.
 */
final class ReplayEntry {
  static final int FREE = 0;
  static final int READ = 1;
  static final int ATOMIC = 2;

  int type;
  int firstPsn;
  int lastPsn;
  long va;
  int rkey;
  long length;
  long orig;

  void clear() {
    type = FREE;
  }
}
