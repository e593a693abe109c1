package io.github.verbs4j.ib.engine;

import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.VerbsException;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A device's QP numbers and the engine contexts attached to them: numbers are reserved first (the
 * verbs QP is built around its number), then attached; lookups by the engine take no lock.
 */
final class QpTable {
  private final AtomicReferenceArray<EngineQp> table;
  private final boolean[] reserved;
  private int nextIndex;
  /** One past the highest index a QP was ever attached at: the part of the table to scan. */
  private volatile int high;

  QpTable(int maxQp) {
    table = new AtomicReferenceArray<>(maxQp);
    reserved = new boolean[maxQp];
  }

  /**
   * @return a reserved QP number
   * @throws VerbsException ENOMEM if {@code max_qp} QPs exist
   */
  synchronized int allocate() {
    int n = reserved.length;
    for (int i = 0; i < n; i++) {
      int idx = (nextIndex + i) % n;
      if (!reserved[idx]) {
        reserved[idx] = true;
        nextIndex = (idx + 1) % n; // rotate, so a stale packet rarely meets a reused number
        return IbDevice.FIRST_QPN + idx;
      }
    }
    throw new VerbsException(Errno.ENOMEM, "max_qp=" + n + " QPs are already allocated");
  }

  /** @param qpn a reserved number that will not be attached after all */
  synchronized void release(int qpn) {
    int idx = qpn - IbDevice.FIRST_QPN;
    if (table.get(idx) == null) {
      reserved[idx] = false;
    }
  }

  /** @param qp a context whose number was reserved: it receives packets from now on */
  void attach(EngineQp qp) {
    int idx = qp.qpn - IbDevice.FIRST_QPN;
    table.set(idx, qp);
    synchronized (this) {
      high = Math.max(high, idx + 1);
    }
  }

  synchronized void detach(EngineQp qp) {
    int idx = qp.qpn - IbDevice.FIRST_QPN;
    if (table.get(idx) == qp) {
      table.set(idx, null);
      reserved[idx] = false;
    }
  }

  /** @return the context attached at {@code qpn}, or null */
  EngineQp lookup(int qpn) {
    int idx = qpn - IbDevice.FIRST_QPN;
    if (idx < 0 || idx >= reserved.length) {
      return null;
    }
    EngineQp qp = table.get(idx);
    return qp != null && qp.qpn == qpn ? qp : null;
  }

  /** @return one past the highest index ever attached (scan {@link #at} below it) */
  int high() {
    return high;
  }

  /** @return the context at table index {@code i}, or null */
  EngineQp at(int i) {
    return table.get(i);
  }
}
