package io.github.verbs4j.ib.engine;

import io.github.verbs4j.ib.wire.HeaderType;
import io.github.verbs4j.ib.wire.Opcode;
import io.github.verbs4j.ib.wire.SrqFlowEth;
import io.github.verbs4j.verbs.spi.SoftSharedReceiveQueue;
import io.netty.buffer.ByteBuf;

/**
 * The receiving HCA's half of seed 002's SRQ flow control, one per shared receive queue: when a
 * request finds the SRQ empty its responder drops it, sends the sender a stop request and sets
 * the sender's bit in this SRQ's {@link RetransmissionTable} ({@link #stop}); from then on the
 * device polls the SRQ every {@code t_poll} ({@link SrqFlowParams#pollNanos()}) — no interrupt, no
 * async event, the application only posts receives — and once it finds receive WQEs it sends
 * resend requests to senders whose bits are set and clears their bits ({@link #poll}).
 *
 * <p>As many senders as receives: a poll asks at most as many stopped senders to resend as the
 * SRQ holds WQEs not already promised to senders asked before (the table's grants), round robin;
 * the others stay stopped and the poll goes on. (The paper asks every recorded sender; with 64
 * senders stopped and one WQE posted, 63 of them would resend only to be stopped again — three
 * packets each per receive, a flood that delayed the answers to probes past the senders' local
 * ACK timeout on a loaded machine.) A grant lapses after {@link #GRANT_TIMEOUTS} local ACK
 * timeouts of the QP that stopped the sender: by then a live sender whose resend request was
 * lost has come back with its stop probe.
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
  /**
   * Local ACK timeouts after which a grant lapses: a stopped sender probes after {@link
   * Requester#STOP_PROBE_TIMEOUTS}, so one more is enough for a live one to have come back.
   */
  static final int GRANT_TIMEOUTS = Requester.STOP_PROBE_TIMEOUTS + 1;
  /** A grant's life when the stopping QP has no timeout of its own (a DCT; code 0): 4.096 us x 2^14. */
  private static final long DEFAULT_GRANT_NANOS = GRANT_TIMEOUTS * (4096L << 14);
  /** The longest grant life among the QPs that stopped senders. */
  private long grantNanos;
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
    long life = qp.timeoutNanos > 0 ? GRANT_TIMEOUTS * qp.timeoutNanos : DEFAULT_GRANT_NANOS;
    if (life > grantNanos) {
      grantNanos = life;
    }
    if (poller == null) {
      poller = qp;
      pollDeadline = now + pollNanos;
      dev.armTimer(qp, pollDeadline);
    }
    return slot;
  }

  /**
   * The sender in {@code slot} needs no resend request and no grant any more: its stopped request
   * was taken, or the responder that stopped it was reset or destroyed.
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
   * The poll timer carried by {@code qp}: finds receive WQEs in the SRQ not yet promised and asks
   * as many stopped senders to resend, or polls again later.
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
    if (table.grants() > 0) {
      table.expireGrants(now - grantNanos);
    }
    int free = srq.size() - table.grants();
    if (free > 0 && table.count() > 0) {
      sendResends(free, now);
    }
    if (table.count() == 0) {
      poller = null; // every stopped sender was asked, or came back by itself (its request was taken)
    } else {
      pollDeadline = now + pollNanos; // the timer list reads the new deadline after this run
    }
    return true;
  }

  /** Seed 002 §3.2: a resend request to up to {@code n} senders whose bits are set, round robin. */
  private void sendResends(int n, long now) {
    for (int i = 0; i < n; i++) {
      int slot = table.nextStopped();
      if (slot < 0) {
        return;
      }
      RetransmissionTable.Row row = table.rowOf(slot);
      int proc = slot - row.node * table.procs();
      Opcode op = Opcode.SRQ_RESEND_REQUEST;
      ByteBuf b = dev.tx.claim(op, 0);
      SrqFlowEth.write(b, op.offset(HeaderType.SRQ_FLOW_ETH), srq.srqNum(), slot);
      table.grant(slot, now);
      dev.tx.commit(b, op, row.node, row.sl[proc], row.srcQpn[proc], row.psn[proc], false, false, 0);
      dev.counters.inc(IbCounters.Counter.SRQ_RESENDS_SENT);
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
