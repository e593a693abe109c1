package io.github.verbs4j.ib.engine;

import io.github.verbs4j.ib.wire.Aeth;
import io.github.verbs4j.ib.wire.AtomicAckEth;
import io.github.verbs4j.ib.wire.HeaderType;
import io.github.verbs4j.ib.wire.Opcode;
import io.github.verbs4j.ib.wire.Opcode.Op;
import io.github.verbs4j.ib.wire.Opcode.Transport;
import io.github.verbs4j.ib.wire.SrqFlowEth;
import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AsyncEventType;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.spi.SoftMemoryRegion;
import io.github.verbs4j.verbs.spi.wire.Psn;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;

/**
 * What a {@link Responder} sends back (the response half of rxe_resp.c): ACKs (coalesced: of
 * several in one duty cycle only the last leaves), NAKs, atomic ACKs and READ responses, in PSN
 * order, with the MSN it counts.
 *
 * <p>ACK hold ({@link IbParams#ackDelayNanos} &gt; 0, RC only): on the simulated wire every frame
 * costs a socket write, and in a ping-pong the ACK of a request and the reply to it are two frames
 * a few microseconds apart. So an ACK may wait, at most the delay, for the device to send anything
 * (the reply): it then leaves at the end of that duty cycle, in the same frame ({@code
 * ACKS_BUNDLED}). Holds happen on the engine thread, and in {@code CALLER} mode only when an
 * application's verbs call runs the agent ({@link AckPolicy#mayHold}). A hold that runs out
 * sends the ACK alone ({@code ACK_HOLDS_EXPIRED}) and makes the next ACKs immediate — 16 after the
 * first expiry, doubling up to 1024 while holds keep expiring, back to 16 once one is bundled — so
 * traffic that never answers (a write followed by a wait for its completion) pays the delay on at
 * most one ACK in 17 and then one in 1025. Any other response (READ data, atomic ACK, NAK), a
 * stop, and an application about to block in a completion channel send a held ACK first, so
 * responses stay in PSN order and nobody waits on a sleeping thread.
 *
 *
 * <p>Engine only, under the QP lock.
 */
final class ResponseSender {
  private static final int QUICK_ACKS_MIN = 16;
  private static final int QUICK_ACKS_MAX = 1024;

  private final Responder r;
  private final EngineQp qp;
  private final IbDevice dev;
  private final Transmitter tx;
  private final AckPolicy acks;
  private final boolean dc;
  private final boolean uc;

  private int msn;

  private boolean replying;
  private int replyPsn;
  private long replyVa;
  private long replyResid;
  private int replyRkey;
  private int replyPkts;
  private int replySent;

  private boolean ackPending;
  private int ackPsn;
  private boolean ackHeld;
  private boolean holdStarting;
  private long ackReady = Long.MIN_VALUE;
  private long ackDeadline;
  private int quickAcks;
  private int quickAckBudget = QUICK_ACKS_MIN;

  ResponseSender(Responder r, EngineQp qp, boolean dc) {
    this.r = r;
    this.qp = qp;
    this.dev = qp.dev;
    this.tx = qp.dev.tx;
    this.acks = qp.dev.acks;
    this.dc = dc;
    this.uc = qp.type == QpType.UC;
  }

  /** A new connection (or context): MSN 0, no quick ACKs owed. */
  void reset() {
    msn = 0;
    quickAcks = 0;
    quickAckBudget = QUICK_ACKS_MIN;
  }

  /** Sends a coalesced ACK and stops a READ response (ERR, RESET, destroy). */
  void stop() {
    flushAck();
    replying = false;
  }

  /** @return whether a READ response is being sent */
  boolean replying() {
    return replying;
  }

  /** A message completed (C9-148: a READ or atomic counts when it executes). */
  void countMessage() {
    msn = Psn.next(msn);
  }

  private Transport responseTransport() {
    return dc ? Transport.DC : Transport.RC;
  }

  int responseLid() {
    return dc ? r.replyLid : qp.dlid;
  }

  int responseQpn() {
    return dc ? r.replyQpn : qp.destQpn;
  }

  /** @return whether an ACK is held (then {@link #ackDeadline()} is valid) */
  boolean ackHeld() {
    return ackHeld;
  }

  long ackDeadline() {
    return ackDeadline;
  }

  /** The device sent another packet in this duty cycle: the held ACK shares its frame. */
  void releaseHeldAck() {
    if (ackHeld) {
      dev.counters.inc(IbCounters.Counter.ACKS_BUNDLED);
      quickAckBudget = QUICK_ACKS_MIN;
      flushAck();
    }
  }

  /**
   * The held ACK leaves alone (its time ran out, or the application stopped calling), and the
   * next ACKs leave at once.
   */
  void expireHeldAck() {
    if (!ackHeld) {
      return;
    }
    dev.counters.inc(IbCounters.Counter.ACK_HOLDS_EXPIRED);
    quickAcks = quickAckBudget;
    quickAckBudget = Math.min(quickAckBudget * 2, QUICK_ACKS_MAX);
    flushAck();
  }

  void holdOrFlushAck(long now) {
    if (!ackPending || ackHeld) {
      return;
    }
    long delay = dev.params.ackDelayNanos;
    if (delay == 0 || dc || uc || !acks.mayHold()) {
      flushAck();
    } else if (quickAcks > 0) {
      quickAcks--;
      flushAck();
    } else {
      ackHeld = true;
      holdStarting = true;
      ackDeadline = now + delay; // until the duty cycle ends (startHold)
      acks.hold(qp);
    }
  }

  /**
   * The duty cycle that held the ACK ends at {@code end}: the hold runs from there, so it measures
   * how soon the application answers, not how long the engine took.
   */
  void startHold(long end) {
    if (holdStarting) {
      holdStarting = false;
      ackDeadline = end + dev.params.ackDelayNanos;
    }
  }

  void queueAck(int ackedPsn) {
    if (ackPending) {
      dev.counters.inc(IbCounters.Counter.ACKS_COALESCED);
    }
    ackPending = true;
    ackPsn = ackedPsn;
    ackReady = dev.rxNow(); // modelled: the ACK is ready when the packet it answers was processed
  }

  void flushAck() {
    if (ackPending) {
      ackPending = false;
      ackHeld = false;
      tx.answer(ackReady);
      sendAck(Aeth.SYNDROME_ACK, ackPsn);
    }
  }

  void sendAck(int syndrome, int ackedPsn) {
    Opcode op = Opcode.of(responseTransport(), Op.ACKNOWLEDGE);
    ByteBuf b = tx.claim(op, 0);
    Aeth.write(b, op.offset(HeaderType.AETH), syndrome, msn);
    tx.commit(b, op, responseLid(), qp.sl, responseQpn(), ackedPsn, false, false, 0);
    if (syndrome == Aeth.SYNDROME_ACK) {
      dev.counters.inc(IbCounters.Counter.ACKS_SENT);
    }
  }

  /**
   * A seed-002 stop request for {@code stoppedPsn}, after any coalesced ACK (PSN order).
   *
   * @param stoppedPsn the dropped request's PSN
   * @param srqNum the SRQ that was empty
   * @param slot the sender's bit in its table
   */
  void sendStop(int stoppedPsn, int srqNum, int slot) {
    flushAck();
    Opcode op = Opcode.SRQ_STOP_REQUEST;
    ByteBuf b = tx.claim(op, 0);
    SrqFlowEth.write(b, op.offset(HeaderType.SRQ_FLOW_ETH), srqNum, slot);
    tx.commit(b, op, responseLid(), qp.sl, responseQpn(), stoppedPsn, false, false, 0);
    dev.counters.inc(IbCounters.Counter.SRQ_STOPS_SENT);
  }

  void sendAtomicAck(int ackedPsn, long orig) {
    Opcode op = Opcode.of(responseTransport(), Op.ATOMIC_ACKNOWLEDGE);
    ByteBuf b = tx.claim(op, 0);
    Aeth.write(b, op.offset(HeaderType.AETH), Aeth.SYNDROME_ACK, msn);
    AtomicAckEth.write(b, op.offset(HeaderType.ATOMIC_ACK_ETH), orig);
    tx.commit(b, op, responseLid(), qp.sl, responseQpn(), ackedPsn, false, false, 0);
  }

  void startReply(int firstPsn, long va, long len, int rkey) {
    int mtu = qp.mtu;
    replying = true;
    replyPsn = firstPsn;
    replyVa = va;
    replyResid = len;
    replyRkey = rkey;
    replyPkts = (int) Math.max(1, (len + mtu - 1) / mtu);
    replySent = 0;
    sendReplies(dev.params.responderBudget);
  }

  /**
   * Sends READ response packets, at most {@code budget}: the region is looked up by rkey for every
   * packet (rxe 570a4bf7440e), so a region deregistered mid-reply is never read.
   */
  int sendReplies(int budget) {
    int n = 0;
    int mtu = qp.mtu;
    Transport t = responseTransport();
    while (replying && n < budget) {
      int lid = responseLid();
      if (!dev.port.isWritable(lid)) {
        break;
      }
      int len = (int) Math.min(mtu, replyResid);
      int o;
      if (replyPkts == 1) {
        o = Op.READ_RESPONSE_ONLY;
      } else if (replySent == 0) {
        o = Op.READ_RESPONSE_FIRST;
      } else if (replySent == replyPkts - 1) {
        o = Op.READ_RESPONSE_LAST;
      } else {
        o = Op.READ_RESPONSE_MIDDLE;
      }
      Opcode op = Opcode.of(t, o);
      SoftMemoryRegion m = null;
      if (len > 0) {
        m = qp.memory.byRkey(replyRkey);
        if (m == null || m.softPd() != qp.pd || !m.allows(Access.REMOTE_READ) || !m.contains(replyVa, len)) {
          replying = false;
          r.fatal(Aeth.NAK_REMOTE_ACCESS_ERROR, replyPsn, AsyncEventType.QP_ACCESS_ERR);
          return n;
        }
      }
      ByteBuf b = tx.claim(op, len, lid);
      int base = tx.base();
      if (op.has(HeaderType.AETH)) {
        Aeth.write(b, base + op.offset(HeaderType.AETH), Aeth.SYNDROME_ACK, msn);
      }
      if (len > 0) {
        ByteBuffer dst = b.internalNioBuffer(base + op.headerLength(), len);
        if (!m.copyOut(replyVa, dst, dst.position(), len)) { // deregistered since the check: freed
          tx.abort(b);
          replying = false;
          r.fatal(Aeth.NAK_REMOTE_ACCESS_ERROR, replyPsn, AsyncEventType.QP_ACCESS_ERR);
          return n;
        }
      }
      tx.commit(b, base, op, lid, qp.sl, responseQpn(), replyPsn, false, false, len);
      replyPsn = Psn.next(replyPsn);
      replyVa += len;
      replyResid -= len;
      replySent++;
      if (replySent == replyPkts) {
        replying = false;
      }
      n++;
    }
    return n;
  }
}
