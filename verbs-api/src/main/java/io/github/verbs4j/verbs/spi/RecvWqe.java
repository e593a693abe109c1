package io.github.verbs4j.verbs.spi;

import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.Sge;

/**
 * A receive work queue entry: the copy of a {@link RecvWr} a provider keeps after {@code
 * postRecv} returns. Slots are preallocated and reused; nothing is allocated per post.
 */
public final class RecvWqe {
  private long wrId;
  private int numSge;
  private long[] addr;
  private int[] length;
  private int[] lkey;

  RecvWqe(int maxSge) {
    int n = Math.max(1, maxSge);
    addr = new long[n];
    length = new int[n];
    lkey = new int[n];
  }

  void copyFrom(RecvWr wr) {
    wrId = wr.wrId();
    numSge = wr.numSge();
    if (numSge > addr.length) {
      addr = new long[numSge];
      length = new int[numSge];
      lkey = new int[numSge];
    }
    for (int i = 0; i < numSge; i++) {
      Sge s = wr.sgList().sge(i);
      addr[i] = s.addr();
      length[i] = s.length();
      lkey[i] = s.lkey();
    }
  }

  /**
   * Copies another entry (used when a provider takes an SRQ entry out of the shared queue).
   *
   * @param other the source
   */
  public void copyFrom(RecvWqe other) {
    wrId = other.wrId;
    numSge = other.numSge;
    if (numSge > addr.length) {
      addr = new long[numSge];
      length = new int[numSge];
      lkey = new int[numSge];
    }
    System.arraycopy(other.addr, 0, addr, 0, numSge);
    System.arraycopy(other.length, 0, length, 0, numSge);
    System.arraycopy(other.lkey, 0, lkey, 0, numSge);
  }

  /** Creates an empty entry for a provider's own use (e.g. the entry in progress on a QP). */
  public RecvWqe() {
    this(1);
  }

  /** @return the WR id */
  public long wrId() {
    return wrId;
  }

  /** @return the number of SGEs */
  public int numSge() {
    return numSge;
  }

  /**
   * @param i SGE index
   * @return its address
   */
  public long addr(int i) {
    return addr[i];
  }

  /**
   * @param i SGE index
   * @return its length
   */
  public int length(int i) {
    return length[i];
  }

  /**
   * @param i SGE index
   * @return its lkey
   */
  public int lkey(int i) {
    return lkey[i];
  }

  /** @return the sum of SGE lengths */
  public long totalLength() {
    long sum = 0;
    for (int i = 0; i < numSge; i++) {
      sum += length[i];
    }
    return sum;
  }
}
