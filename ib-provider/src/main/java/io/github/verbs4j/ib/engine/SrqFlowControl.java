package io.github.verbs4j.ib.engine;

import io.github.verbs4j.ib.wire.HeaderType;
import io.github.verbs4j.ib.wire.Opcode;
import io.github.verbs4j.ib.wire.ResendEth;
import io.github.verbs4j.verbs.spi.SoftSharedReceiveQueue;
import io.netty.buffer.ByteBuf;

/**
 * The receiving HCA's half of seed 002's SRQ flow control, one per shared receive queue: when a
 * request finds the SRQ empty its responder drops it, sends the sender a stop request and sets
 * the sender's bit in this SRQ's {@link RetransmissionTable} ({@link #stop}); from then on the
 * device polls the SRQ every {@code t_poll} ({@link SrqFlowParams#pollNanos()}) — no interrupt, no
 * async event, the application only posts receives — and once it finds receive WQEs it sends a
 * resend request to exactly the senders whose bits are set and clears them ({@link #poll}).
 *
 * <p>The poll runs as a device timer carried by the QP whose stop started it (the device's timer
 * list is kept per QP); it keeps running, even if that QP is destroyed meanwhile, until the table
 * is empty.
 *
 * <p>The engine calls {@link #stop} and {@link #poll} under the agent; a QP that is reset or
 * destroyed calls {@link #resumed} from the verbs layer's thread. So every method holds this
 * object's monitor (taken after a QP lock, like an SRQ's own).
 */
public final class SrqFlowControl {
  private final SoftSharedReceiveQueue srq;
  private final IbDevice dev;
  private final RetransmissionTable table;
  private final long pollNanos;
  /** The QP whose timer carries the poll, or null when no sender is stopped. */
  private EngineQp poller;
  private long pollDeadline;

  private SrqFlowControl(SoftSharedReceiveQueue srq, IbDevice dev) {
    this.srq = srq;
    this.dev = dev;
    SrqFlowParams p = dev.params.srqFlow;
    this.table = new RetransmissionTable(p.tableNodes(), p.tableProcs());
    this.pollNanos = p.pollNanos();
  }

  /**
   * @param srq an SRQ of this device
   * @param dev the device
   * @return the SRQ's flow control, created on first use
   */
  static SrqFlowControl of(SoftSharedReceiveQueue srq, IbDevice dev) {
    return srq.providerState(SrqFlowControl.class, () -> new SrqFlowControl(srq, dev));
  }

  /** @return the SRQ number the stop and resend requests name */
  int srqNum() {
    return srq.srqNum();
  }

  /**
   * A request of sender (lid, srcQpn) found the SRQ empty: set its bit and start polling.
   *
   * @param owner the responder that drops the request
   * @param qp its QP (carries the poll timer if none runs)
   * @param lid the sender's LID
   * @param srcQpn the sender's QP number
   * @param psn the dropped PSN
   * @param sl the service level to answer on
   * @param now the time
   * @return the sender's slot, or -1 if it does not fit the table (then: RNR NAK)
   */
  synchronized int stop(Responder owner, EngineQp qp, int lid, int srcQpn, int psn, int sl, long now) {
    int slot = table.record(owner, lid, srcQpn, psn, sl);
    if (slot < 0) {
      dev.counters.inc(IbCounters.Counter.SRQ_TABLE_FULL);
      return -1;
    }
    if (poller == null) {
      poller = qp;
      pollDeadline = now + pollNanos;
      dev.armTimer(qp, pollDeadline);
    }
    return slot;
  }

  /**
   * The sender in {@code slot} needs no resend request any more: its stopped request was taken, or
   * the responder that stopped it was reset or destroyed.
   *
   * @param owner the responder that stopped it
   * @param slot its slot
   */
  synchronized void resumed(Responder owner, int slot) {
    table.clear(slot, owner);
  }

  /** @return whether {@code qp}'s timer carries the poll */
  synchronized boolean polledBy(EngineQp qp) {
    return poller == qp;
  }

  /** @return the next poll (valid while {@link #polledBy} a QP) */
  synchronized long pollDeadline() {
    return pollDeadline;
  }

  /**
   * The poll timer carried by {@code qp}: finds receive WQEs in the SRQ or polls again later.
   *
   * @param qp the QP whose timers fire
   * @param now the time
   * @return whether the poll ran
   */
  synchronized boolean poll(EngineQp qp, long now) {
    if (poller != qp || now - pollDeadline < 0) {
      return false;
    }
    dev.counters.inc(IbCounters.Counter.SRQ_POLLS);
    if (table.count() == 0) {
      poller = null; // every stopped sender came back by itself (its request was taken)
      return true;
    }
    if (srq.size() == 0) {
      pollDeadline = now + pollNanos; // the timer list reads the new deadline after this run
      return true;
    }
    sendResends();
    poller = null;
    return true;
  }

  /** Seed 002 §3.2: a resend request to each sender whose bit is set, and the bit cleared. */
  private void sendResends() {
    int procs = table.procs();
    for (int i = 0; i < table.rowCount() && table.count() > 0; i++) {
      RetransmissionTable.Row row = table.row(i);
      for (int w = 0; w < row.bits.length; w++) {
        long word = row.bits[w];
        while (word != 0) {
          int proc = (w << 6) + Long.numberOfTrailingZeros(word);
          word &= word - 1;
          int slot = row.node * procs + proc;
          Opcode op = Opcode.SRQ_RESEND_REQUEST;
          ByteBuf b = dev.tx.claim(op, 0);
          ResendEth.write(b, op.offset(HeaderType.RESEND_ETH), srq.srqNum(), slot);
          int psn = row.psn[proc];
          int sl = row.sl[proc];
          int qpn = row.srcQpn[proc];
          table.clear(slot, null);
          dev.tx.commit(b, op, row.node, sl, qpn, psn, false, false, 0);
          dev.counters.inc(IbCounters.Counter.SRQ_RESENDS_SENT);
        }
      }
    }
  }

  /** @return senders stopped and not yet asked to resend */
  synchronized int stopped() {
    return table.count();
  }

  /** @return bytes the table holds */
  synchronized long footprint() {
    return table.footprint();
  }

  /**
   * @param srq an SRQ
   * @return bytes its retransmission management table holds (0 if it never had one)
   */
  public static long tableBytes(SoftSharedReceiveQueue srq) {
    SrqFlowControl f = srq.providerStateOrNull(SrqFlowControl.class);
    return f == null ? 0 : f.footprint();
  }
}
