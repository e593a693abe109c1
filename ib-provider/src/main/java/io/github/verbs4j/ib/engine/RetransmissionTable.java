package io.github.verbs4j.ib.engine;

import java.util.Arrays;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.collections.Int2ObjectHashMap;

/**
 * The retransmission management table of one shared receive queue (seed 002 §3.2, fig. 5): one bit
 * per sender, indexed by source node x process in node, set when the responder dropped a request
 * of that sender for want of a receive WQE and sent it a stop request, cleared when the device
 * sends it a resend request (or the stopped request comes again and is taken). The slot of a
 * sender is {@code node * procs + process}.
 *
 * <p>Sparse. The paper keeps the whole table in host memory, nodes x processes bits per SRQ (4 K x
 * 256 = 2^20 bits). Here a node's row — its {@code procs} bits and, for each process that was ever
 * stopped, where its resend request goes — is allocated the first time one of its senders is
 * stopped, so an SRQ pays only for the nodes that overflowed it and an SRQ that never runs dry
 * pays nothing. {@link #footprint()} reports what is allocated.
 *
 * <p>Process numbers: a simulated packet names its source LID and (through the connection) its
 * source QP, not a process. A sender is a (source LID, source QP) pair; the row gives it the next
 * free process number the first time it is stopped, and keeps it. A node with more stopped senders
 * than {@code procs}, or a LID beyond {@code nodes}, does not fit: {@link #record} answers -1 and
 * the responder falls back to an RNR NAK, as a fixed-size hardware table would have to.
 *
 * <p>Grants (ours, not the paper's): when the device asks a sender to resend it clears the
 * sender's bit, as the paper does, and records a <em>grant</em> — a receive WQE the resent request
 * is expected to take — until that request is taken, the sender is stopped again, its responder
 * is reset, or the grant expires ({@link #expireGrants}). The device asks no more senders to
 * resend than the SRQ has WQEs not already granted ({@link SrqFlowControl}), and picks them round
 * robin from where the last round ended ({@link #nextStopped}), so none waits behind the others.
 *
 * <p>Used under its {@link SrqFlowControl}'s monitor.
 */
final class RetransmissionTable {
  /** One node's row. */
  static final class Row {
    final int node;
    final long[] bits;
    /** Senders asked to resend whose resent request has not been taken yet. */
    final long[] granted;
    /** Source QP number to process number. */
    final Int2IntHashMap procOf = new Int2IntHashMap(-1);
    Responder[] owner = new Responder[4];
    int[] srcQpn = new int[4];
    int[] psn = new int[4];
    int[] sl = new int[4];
    long[] grantedAt = new long[4];
    int assigned;

    Row(int node, int procs) {
      this.node = node;
      this.bits = new long[(procs + 63) >>> 6];
      this.granted = new long[bits.length];
    }

    boolean isSet(int proc) {
      return (bits[proc >>> 6] & 1L << proc) != 0;
    }

    boolean isGranted(int proc) {
      return (granted[proc >>> 6] & 1L << proc) != 0;
    }
  }

  private final int nodes;
  private final int procs;
  private final Int2ObjectHashMap<Row> rows = new Int2ObjectHashMap<>();
  private Row[] rowList = new Row[4];
  private int rowCount;
  private int setCount;
  private int grantCount;
  /** Where {@link #nextStopped} looks first: a row index and a process in it. */
  private int cursorRow;
  private int cursorProc;

  RetransmissionTable(int nodes, int procs) {
    this.nodes = nodes;
    this.procs = procs;
  }

  /**
   * Sets the bit of the sender (source LID, source QP) and remembers where its resend goes.
   *
   * @param owner the responder (QP or DC context) that stopped it
   * @param lid the sender's LID (the node)
   * @param srcQpn the sender's QP (its process)
   * @param psn the dropped PSN the resend request names
   * @param sl the service level to answer on
   * @return the slot, or -1 if the sender does not fit the table
   */
  int record(Responder owner, int lid, int srcQpn, int psn, int sl) {
    if (lid < 0 || lid >= nodes) {
      return -1;
    }
    Row row = rows.get(lid);
    if (row == null) {
      row = new Row(lid, procs);
      rows.put(lid, row);
      if (rowCount == rowList.length) {
        rowList = Arrays.copyOf(rowList, rowCount * 2);
      }
      rowList[rowCount++] = row;
    }
    int proc = row.procOf.get(srcQpn);
    if (proc < 0) {
      if (row.assigned >= procs) {
        return -1;
      }
      proc = row.assigned++;
      row.procOf.put(srcQpn, proc);
      if (proc == row.owner.length) {
        int n = Math.min(procs, proc * 2);
        row.owner = Arrays.copyOf(row.owner, n);
        row.srcQpn = Arrays.copyOf(row.srcQpn, n);
        row.psn = Arrays.copyOf(row.psn, n);
        row.sl = Arrays.copyOf(row.sl, n);
        row.grantedAt = Arrays.copyOf(row.grantedAt, n);
      }
      row.srcQpn[proc] = srcQpn;
    }
    ungrant(row, proc);
    if (!row.isSet(proc)) {
      row.bits[proc >>> 6] |= 1L << proc;
      setCount++;
    }
    row.owner[proc] = owner;
    row.psn[proc] = psn;
    row.sl[proc] = sl;
    return lid * procs + proc;
  }

  /**
   * The sender in {@code slot} needs neither a resend request nor its grant any more (its stopped
   * request was taken, or its responder was reset), if {@code owner} stopped it.
   *
   * @param slot a slot from {@link #record}
   * @param owner the responder that set it
   * @return whether a bit or a grant was cleared
   */
  boolean clear(int slot, Responder owner) {
    Row row = rows.get(slot / procs);
    int proc = slot % procs;
    if (row == null || proc >= row.assigned || row.owner[proc] != owner) {
      return false;
    }
    boolean was = ungrant(row, proc);
    if (row.isSet(proc)) {
      row.bits[proc >>> 6] &= ~(1L << proc);
      setCount--;
      was = true;
    }
    row.owner[proc] = null;
    return was;
  }

  /**
   * The device asked the sender in {@code slot} to resend: its bit is cleared (seed 002 §3.2) and
   * a grant recorded.
   *
   * @param slot a set slot
   * @param now the time
   */
  void grant(int slot, long now) {
    Row row = rows.get(slot / procs);
    int proc = slot % procs;
    row.bits[proc >>> 6] &= ~(1L << proc);
    setCount--;
    row.granted[proc >>> 6] |= 1L << proc;
    row.grantedAt[proc] = now;
    grantCount++;
  }

  private boolean ungrant(Row row, int proc) {
    if (!row.isGranted(proc)) {
      return false;
    }
    row.granted[proc >>> 6] &= ~(1L << proc);
    grantCount--;
    return true;
  }

  /**
   * Drops the grants recorded before {@code before}: their senders never came back (a lost resend
   * request and probe, or a sender that died).
   *
   * @param before the time limit
   */
  void expireGrants(long before) {
    for (int i = 0; i < rowCount && grantCount > 0; i++) {
      Row row = rowList[i];
      for (int proc = 0; proc < row.assigned; proc++) {
        if (row.isGranted(proc) && row.grantedAt[proc] - before < 0) {
          ungrant(row, proc);
        }
      }
    }
  }

  /**
   * The next set slot round robin: from where the last call left off, through every row, so that
   * with fewer receive WQEs than stopped senders each is asked in turn.
   *
   * @return a set slot, or -1 if none is set
   */
  int nextStopped() {
    if (setCount == 0) {
      return -1;
    }
    for (int n = 0; n <= rowCount; n++) {
      int ri = (cursorRow + n) % rowCount;
      Row row = rowList[ri];
      for (int proc = n == 0 ? cursorProc : 0; proc < row.assigned; proc++) {
        if (row.isSet(proc)) {
          cursorRow = ri;
          cursorProc = proc + 1;
          return row.node * procs + proc;
        }
      }
    }
    return -1;
  }

  /** @param slot a slot @return its row (it has one) */
  Row rowOf(int slot) {
    return rows.get(slot / procs);
  }

  /** @return senders asked to resend whose resent request was not taken yet */
  int grants() {
    return grantCount;
  }

  /** @return the number of set bits: senders stopped and not yet asked to resend */
  int count() {
    return setCount;
  }

  /** @return processes per node */
  int procs() {
    return procs;
  }

  /** @return bytes allocated: each row's bits and resend addresses, and the row index */
  long footprint() {
    long b = 64L + rowList.length * 8L;
    for (int i = 0; i < rowCount; i++) {
      Row r = rowList[i];
      b += 48L + r.bits.length * 16L + r.owner.length * (8L + 4 + 4 + 4 + 8) + r.procOf.capacity() * 8L;
    }
    return b;
  }
}
