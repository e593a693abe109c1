package io.github.verbs4j.ib.engine;

import io.github.verbs4j.ib.wire.Aeth;
import io.github.verbs4j.ib.wire.AtomicAckEth;
import io.github.verbs4j.ib.wire.HeaderType;
import io.github.verbs4j.ib.wire.Opcode;
import io.github.verbs4j.ib.wire.Opcode.Flag;
import io.github.verbs4j.ib.wire.Opcode.Op;
import io.github.verbs4j.ib.wire.Opcode.Transport;
import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AsyncEventType;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.VerbsException;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.spi.SoftMemoryRegion;
import io.github.verbs4j.verbs.spi.wire.Grh;
import io.github.verbs4j.verbs.spi.wire.Psn;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * The responder (rxe_resp.c): executes requests arriving at a QP. Each packet walks the checks in
 * the order IBTA and rxe make them — PSN, opcode sequence, operation valid, resources (receive WQE,
 * rd_atomic), length, rkey — then executes, completes, acknowledges. Duplicates are never executed
 * twice: a SEND/WRITE is re-ACKed, a READ or atomic is answered again from the replay cache sized
 * by {@code max_dest_rd_atomic}. Every error step maps to its NAK, completion status and QP
 * transition in {@link #error}. A request that finds an empty SRQ is RNR NAKed, or, with seed-002
 * stop-resend ({@link SrqFlowControl}), dropped and its sender stopped until the device sends it
 * a resend request. Receive WQEs come from a {@link ReceiveConsumer}.
 *
 * <p>Requests that arrive while a READ response is still being sent wait in order behind it (the
 * responder answers in PSN order). ACKs are coalesced: the responder answers only AckReq packets
 * (the requester sets it at the end of signaled messages, of the last one posted, and every {@code
 * ackReqEvery} packets), and of several in one duty cycle only the last leaves.
 *
 * <p>ACKs, NAKs and READ responses leave through its {@link ResponseSender}, which may hold an
 * ACK back (see there).
 *
 * <p>One instance per RC, UC and UD QP; a DCT has one per initiating DCI (keyed by LID and DCI
 * number, reset when the DCI starts a new connection epoch). Engine thread only, under the QP lock.
 */
final class Responder {
  /**
   * The NAK this responder has outstanding for its expected PSN (RC and DC): later packets are
   * dropped behind it until the requester sends the expected PSN again.
   */
  private enum Nak {
    /** None: a packet beyond the expected PSN is a gap and gets one sequence error NAK. */
    NONE,
    /** A PSN sequence error NAK was sent for this gap (C9-54: one per gap). */
    SEQUENCE_ERROR,
    /**
     * An RNR NAK was sent for the expected PSN (IBA 9.7.5.2.8): the requester will wait its RNR
     * timer and send again from that PSN, so packets behind it are dropped silently. A sequence
     * error NAK for them would make the requester spend retry_cnt on what is flow control.
     */
    RNR,
    /**
     * A stop request was sent for the expected PSN (seed 002 §3.1) and the sender's bit is set in
     * the SRQ's retransmission table: the sender holds until a resend request (or its stop probe)
     * and then sends again from that PSN, so packets behind it are dropped silently, as behind an
     * RNR NAK.
     */
    STOPPED
  }

  private enum Step {
    CHK_PSN, CHK_OP_SEQ, CHK_OP_VALID, CHK_RESOURCE, CHK_LENGTH, CHK_RKEY, EXECUTE, COMPLETE, READ_REPLY,
    ATOMIC_REPLY, ACKNOWLEDGE, CLEANUP, DUPLICATE, DONE,
    ERR_PSN_OUT_OF_SEQ, ERR_MISSING_OPCODE_FIRST, ERR_MISSING_OPCODE_LAST, ERR_TOO_MANY_RDMA_ATM_REQ,
    ERR_MISALIGNED_ATOMIC, ERR_BAD_LENGTH, ERR_RNR, ERR_LENGTH, ERR_RKEY_VIOLATION, ERR_MALFORMED_WQE,
    ERR_CQ_OVERFLOW
  }

  private static final int SEQ_NONE = 0;
  private static final int SEQ_SEND = 1;
  private static final int SEQ_WRITE = 2;

  private final EngineQp qp;
  private final IbDevice dev;
  private final FrameSplitter frames;
  /** ACKs, NAKs and READ responses going back. */
  final ResponseSender out;
  private final boolean dc;
  private final boolean uc;
  // DC context identity.
  int replyLid;
  int replyQpn;
  int dcGeneration;
  /** DC: the first PSN of the connection {@link #dcGeneration} names. */
  int dcEpochPsn;
  long lastUse;
  /** DCT: in its QP's list of contexts with work ({@code EngineQp#progress}). */
  boolean dctBusy;

  /** The expected PSN. */
  int psn;
  private int opSeq;
  private Nak nak = Nak.NONE;
  private boolean dropMsg;

  /** The receive WQE the current message fills. */
  private final ReceiveConsumer recvs;
  /** Stop-resend: this responder's sender's slot in the SRQ's table while {@link Nak#STOPPED}. */
  private int stopSlot;

  private long writeVa;
  private int writeRkey;
  private long writeResid;
  private long writeTotal;

  // The current packet's resolved remote access.
  private SoftMemoryRegion mr;
  private long rVa;
  private long rLen;
  private int rRkey;

  private final ReplayCache cache = new ReplayCache();


  private final ArrayDeque<ByteBuf> pending = new ArrayDeque<>();

  Responder(EngineQp qp, boolean dc) {
    this.qp = qp;
    this.dev = qp.dev;
    this.frames = qp.dev.frames;
    this.out = new ResponseSender(this, qp, dc);
    this.dc = dc;
    this.uc = qp.type == QpType.UC;
    this.recvs = new ReceiveConsumer(qp);
  }

  void reset(int startPsn) {
    stop();
    psn = startPsn & Psn.MASK;
    out.reset();
    opSeq = SEQ_NONE;
    forgetStop();
    dropMsg = false;
    recvs.reset();
    cache.reset(dc ? dev.params.device.maxQpRdAtom() : qp.maxDestRdAtomic);
  }

  /**
   * Stops replies and drops waiting requests (ERR, RESET, destroy). A coalesced ACK is sent first:
   * the messages it acknowledges were executed and may already be completed and polled, so the
   * requester must hear of them (rxe acknowledges in the same pass that completes; without this a
   * QP destroyed right after polling its receive left the requester retrying to RETRY_EXC_ERR).
   */
  void stop() {
    out.stop();
    ByteBuf b;
    while ((b = pending.poll()) != null) {
      b.release();
    }
  }

  void release() {
    stop();
    forgetStop();
    recvs.reset();
  }

  /** Leaves {@link Nak#STOPPED}: the sender's bit in the SRQ's table is no longer this one's. */
  private void forgetStop() {
    if (nak == Nak.STOPPED) {
      qp.srqFlow.resumed(this, stopSlot);
    }
    nak = Nak.NONE;
  }

  boolean wantsMore() {
    return out.replying() || !pending.isEmpty();
  }

  /**
   * Flushes a receive WQE this responder took from an SRQ (the QP's RQ entries are flushed by the
   * QP).
   *
   * @return completions pushed
   */
  int flushHeld() {
    return recvs.flushHeld();
  }

  long footprint() {
    return 256L + cache.footprint() + recvs.footprint();
  }

  private int mtu() {
    return qp.mtu;
  }

  // ------------------------------------------------------------------ entry points

  void receive(Packet p, long now) {
    if (qp.type == QpType.UD) {
      recvs.receiveUd(p);
      return;
    }
    if (!dc && p.slid != qp.dlid) {
      dev.counters.inc(IbCounters.Counter.DROP_BAD_SOURCE);
      return;
    }
    if (out.replying() || !pending.isEmpty()) {
      pending.add(p.buf.retainedSlice(p.base, p.length)); // the packet alone, not its train
      return;
    }
    process(p);
  }

  int progress(long now) {
    int work = 0;
    if (out.replying()) {
      work += out.sendReplies(dev.params.responderBudget);
    }
    while (!out.replying() && !pending.isEmpty()) {
      ByteBuf b = pending.poll();
      try {
        Packet p = dev.rx;
        if (p.parse(b, null) == Packet.OK) {
          process(p);
        }
      } finally {
        b.release();
      }
      work++;
      if (qp.owner.state() == QpState.ERR) {
        stop();
        return work;
      }
    }
    out.holdOrFlushAck(now);
    return work;
  }

  private void process(Packet p) {
    Step s = Step.CHK_PSN;
    while (s != Step.DONE) {
      s = switch (s) {
        case CHK_PSN -> checkPsn(p);
        case CHK_OP_SEQ -> checkOpSeq(p);
        case CHK_OP_VALID -> checkOpValid(p);
        case CHK_RESOURCE -> checkResource(p);
        case CHK_LENGTH -> checkLength(p);
        case CHK_RKEY -> checkRkey(p);
        case EXECUTE -> execute(p);
        case COMPLETE -> complete(p);
        case READ_REPLY -> readReply(p);
        case ATOMIC_REPLY -> atomicReply(p);
        case ACKNOWLEDGE -> acknowledge(p);
        case CLEANUP -> cleanup(p);
        case DUPLICATE -> duplicate(p);
        case DONE -> Step.DONE;
        default -> error(s, p);
      };
    }
    mr = null;
  }

  // ------------------------------------------------------------------ checks

  private Step checkPsn(Packet p) {
    if (uc) {
      // UC (IBA 9.8.3): after a gap or an error, wait for the first packet of a new message.
      if (dropMsg || p.psn != psn) {
        if (!p.opcode.is(Flag.START)) {
          dropMsg = true;
          dev.counters.inc(IbCounters.Counter.DROP_OUT_OF_SEQUENCE);
          return Step.DONE;
        }
        psn = p.psn;
        dropMsg = false;
        opSeq = SEQ_NONE;
        recvs.offset = 0;
      }
      return Step.CHK_OP_SEQ;
    }
    int diff = Psn.compare(p.psn, psn);
    if (diff > 0) {
      return Step.ERR_PSN_OUT_OF_SEQ;
    }
    if (diff < 0) {
      return Step.DUPLICATE;
    }
    forgetStop(); // the requester sent the expected PSN again (a stopped one: resent)
    return Step.CHK_OP_SEQ;
  }

  private Step checkOpSeq(Packet p) {
    Opcode op = p.opcode;
    switch (opSeq) {
      case SEQ_SEND:
        return op.is(Flag.SEND) && !op.is(Flag.START) ? Step.CHK_OP_VALID : Step.ERR_MISSING_OPCODE_LAST;
      case SEQ_WRITE:
        return op.is(Flag.WRITE) && !op.is(Flag.START) ? Step.CHK_OP_VALID : Step.ERR_MISSING_OPCODE_LAST;
      default:
        return op.is(Flag.START) ? Step.CHK_OP_VALID : Step.ERR_MISSING_OPCODE_FIRST;
    }
  }

  private Step checkOpValid(Packet p) {
    Opcode op = p.opcode;
    // A QP without the remote access is an access error (CONFORMANCE.md; rxe reports invalid request).
    if (op.is(Flag.WRITE) && (qp.accessFlags & Access.REMOTE_WRITE.value()) == 0
        || op.is(Flag.READ) && (qp.accessFlags & Access.REMOTE_READ.value()) == 0
        || op.is(Flag.ATOMIC) && (qp.accessFlags & Access.REMOTE_ATOMIC.value()) == 0) {
      return Step.ERR_RKEY_VIOLATION;
    }
    return Step.CHK_RESOURCE;
  }

  private Step checkResource(Packet p) {
    Opcode op = p.opcode;
    if (op.is(Flag.READ | Flag.ATOMIC) && cache.isEmpty()) {
      return Step.ERR_TOO_MANY_RDMA_ATM_REQ;
    }
    if (op.is(Flag.RWR) && !recvs.acquire()) {
      return Step.ERR_RNR;
    }
    return Step.CHK_LENGTH;
  }

  private Step checkLength(Packet p) {
    Opcode op = p.opcode;
    int len = p.payloadLength;
    if (op.is(Flag.READ)) {
      return p.rethLength() > Integer.MAX_VALUE ? Step.ERR_BAD_LENGTH : Step.CHK_RKEY; // C9-94
    }
    if (op.is(Flag.ATOMIC)) {
      return Step.CHK_RKEY;
    }
    int mtu = mtu();
    // rxe check_length: ONLY <= mtu, FIRST and MIDDLE == mtu, LAST 1..mtu.
    if (op.is(Flag.START) && op.is(Flag.END)) {
      if (len > mtu) {
        return Step.ERR_BAD_LENGTH;
      }
    } else if (op.is(Flag.START | Flag.MIDDLE)) {
      if (len != mtu) {
        return Step.ERR_BAD_LENGTH;
      }
    } else if (len < 1 || len > mtu) {
      return Step.ERR_BAD_LENGTH;
    }
    if (op.is(Flag.SEND)) {
      return recvs.offset + (long) len > recvs.recv.totalLength() ? Step.ERR_LENGTH : Step.CHK_RKEY;
    }
    if (op.is(Flag.START)) {
      long total = p.rethLength();
      if (total > Integer.MAX_VALUE || (op.is(Flag.END) ? len != total : len >= total)) {
        return Step.ERR_BAD_LENGTH;
      }
    } else if (op.is(Flag.END) ? len != writeResid : len >= writeResid) {
      return Step.ERR_BAD_LENGTH;
    }
    return Step.CHK_RKEY;
  }

  private Step checkRkey(Packet p) {
    Opcode op = p.opcode;
    mr = null;
    if (op.is(Flag.WRITE)) {
      if (op.is(Flag.START)) {
        rVa = p.rethVa();
        rRkey = p.rethRkey();
        rLen = p.rethLength();
      } else {
        rVa = writeVa; // later packets: the region is looked up again (it may be gone)
        rRkey = writeRkey;
        rLen = p.payloadLength;
      }
      if (rLen == 0) {
        return Step.EXECUTE; // C9-88: a zero-length RDMA needs no valid rkey
      }
      return resolve(Access.REMOTE_WRITE) ? Step.EXECUTE : Step.ERR_RKEY_VIOLATION;
    }
    if (op.is(Flag.READ)) {
      rVa = p.rethVa();
      rRkey = p.rethRkey();
      rLen = p.rethLength();
      if (rLen == 0) {
        return Step.EXECUTE;
      }
      return resolve(Access.REMOTE_READ) ? Step.EXECUTE : Step.ERR_RKEY_VIOLATION;
    }
    if (op.is(Flag.ATOMIC)) {
      rVa = p.atomicVa();
      rRkey = p.atomicRkey();
      rLen = 8;
      if ((rVa & 7) != 0) {
        return Step.ERR_MISALIGNED_ATOMIC;
      }
      return resolve(Access.REMOTE_ATOMIC) ? Step.EXECUTE : Step.ERR_RKEY_VIOLATION;
    }
    return Step.EXECUTE;
  }

  /** Key, PD, access and bounds, before any byte is touched (rxe check_rkey / mr_check_range). */
  private boolean resolve(Access access) {
    SoftMemoryRegion m = qp.memory.byRkey(rRkey);
    if (m == null || m.softPd() != qp.pd || !m.allows(access) || !m.contains(rVa, rLen)) {
      return false;
    }
    mr = m;
    return true;
  }

  // ------------------------------------------------------------------ execution

  private Step execute(Packet p) {
    Opcode op = p.opcode;
    int len = p.payloadLength;
    if (op.is(Flag.SEND)) {
      if (len > 0 && !recvs.scatter(recvs.offset, p, len)) {
        return Step.ERR_MALFORMED_WQE;
      }
      recvs.offset += len;
    } else if (op.is(Flag.WRITE)) {
      if (op.is(Flag.START)) {
        writeVa = rVa;
        writeRkey = rRkey;
        writeTotal = rLen;
        writeResid = rLen;
      }
      if (len > 0) {
        ByteBuffer src = frames.payload(p, len);
        if (!mr.copyIn(writeVa, src, src.position(), len)) {
          return Step.ERR_RKEY_VIOLATION; // deregistered since CHK_RKEY: its memory is freed
        }
      }
      writeVa += len;
      writeResid -= len;
    } else if (op.is(Flag.READ)) {
      return Step.READ_REPLY;
    } else if (op.is(Flag.ATOMIC)) {
      return Step.ATOMIC_REPLY;
    }
    return op.is(Flag.COMP) ? Step.COMPLETE : Step.ACKNOWLEDGE;
  }

  private Step complete(Packet p) {
    Opcode op = p.opcode;
    boolean write = op.is(Flag.WRITE);
    WorkCompletion wc = dev.wc;
    wc.reset(recvs.recv.wrId(), WcStatus.SUCCESS, write ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV, qp.qpn);
    wc.byteLen(write ? (int) writeTotal : recvs.offset);
    if (op.is(Flag.IMM)) {
      wc.withImm(p.imm());
    }
    if (dc) {
      wc.source(replyQpn, p.slid, p.sl, false);
    }
    recvs.release();
    dev.stamp(wc);
    if (!qp.recvCq.push(wc, p.solicited)) {
      return Step.ERR_CQ_OVERFLOW;
    }
    return Step.ACKNOWLEDGE;
  }

  private Step acknowledge(Packet p) {
    if (!uc && p.ackReq) {
      out.queueAck(p.psn);
    }
    return Step.CLEANUP;
  }

  private Step cleanup(Packet p) {
    Opcode op = p.opcode;
    if (op.is(Flag.END)) {
      opSeq = SEQ_NONE;
      out.countMessage();
    } else if (op.is(Flag.START)) {
      opSeq = op.is(Flag.SEND) ? SEQ_SEND : SEQ_WRITE;
    }
    psn = Psn.next(p.psn);
    return Step.DONE;
  }

  private Step readReply(Packet p) {
    int mtu = mtu();
    int npkts = (int) Math.max(1, (rLen + mtu - 1) / mtu);
    ReplayEntry e = cache.claim();
    e.type = ReplayEntry.READ;
    e.firstPsn = p.psn;
    e.lastPsn = Psn.add(p.psn, npkts - 1);
    e.va = rVa;
    e.rkey = rRkey;
    e.length = rLen;
    out.countMessage(); // C9-148: a READ counts as a message when it executes
    psn = Psn.add(p.psn, npkts);
    out.flushAck();
    out.startReply(p.psn, rVa, rLen, rRkey);
    return Step.DONE;
  }

  private Step atomicReply(Packet p) {
    long orig;
    try {
      orig = p.opcode.op() == Op.COMPARE_SWAP ? mr.compareSwap(rVa, p.atomicCompare(), p.atomicSwapAdd())
          : mr.fetchAdd(rVa, p.atomicSwapAdd());
    } catch (VerbsException freed) {
      return Step.ERR_RKEY_VIOLATION; // deregistered since CHK_RKEY: its memory is freed
    }
    ReplayEntry e = cache.claim();
    e.type = ReplayEntry.ATOMIC;
    e.firstPsn = p.psn;
    e.lastPsn = p.psn;
    e.orig = orig;
    out.countMessage();
    psn = Psn.next(p.psn);
    out.flushAck();
    out.sendAtomicAck(p.psn, orig);
    return Step.DONE;
  }

  /**
   * A PSN below the expected one (IBA 9.7.5.1.1): SEND/WRITE are re-ACKed with the last PSN
   * accepted (C9-105), a READ is answered again from memory, an atomic with the value it returned
   * the first time. Nothing executes twice.
   */
  private Step duplicate(Packet p) {
    dev.counters.inc(IbCounters.Counter.DUPLICATE_REQUESTS);
    Opcode op = p.opcode;
    if (op.is(Flag.SEND | Flag.WRITE)) {
      if (p.ackReq) {
        out.queueAck(Psn.add(psn, -1));
      }
      return Step.DONE;
    }
    if (op.is(Flag.READ)) {
      ReplayEntry e = cache.findRead(p.psn);
      long va = p.rethVa();
      long len = p.rethLength();
      if (e == null || p.rethRkey() != e.rkey || va < e.va || va + len > e.va + e.length
          || va - e.va != (long) Psn.distance(e.firstPsn, p.psn) * mtu()) {
        return Step.DONE; // not a subset of a READ we still remember: drop (class D)
      }
      dev.counters.inc(IbCounters.Counter.REPLAYS);
      out.flushAck();
      out.startReply(p.psn, va, len, e.rkey);
      return Step.DONE;
    }
    if (op.is(Flag.ATOMIC)) {
      ReplayEntry e = cache.findAtomic(p.psn);
      if (e != null) {
        dev.counters.inc(IbCounters.Counter.REPLAYS);
        out.flushAck();
        out.sendAtomicAck(p.psn, e.orig);
      }
    }
    return Step.DONE;
  }

  // ------------------------------------------------------------------ errors

  /**
   * Every responder error in one place: which NAK goes back, what the local completion says, and
   * whether the QP goes to ERR (IBA 9.7.5.2, rxe's RESPST_ERR_* states, CONFORMANCE.md choices).
   * UC never NAKs: it drops the rest of the message (IBA 9.8.3). A DC context fails alone; the DCT
   * keeps serving other initiators.
   */
  private Step error(Step e, Packet p) {
    switch (e) {
      case ERR_PSN_OUT_OF_SEQ:
        switch (nak) {
          case NONE -> {
            // C9-54: one PSN sequence error NAK per gap, naming the expected PSN; the QP stays.
            nak = Nak.SEQUENCE_ERROR;
            out.flushAck();
            out.sendAck(Aeth.nak(Aeth.NAK_PSN_SEQUENCE_ERROR), psn);
            dev.counters.inc(IbCounters.Counter.SEQ_NAKS_SENT);
          }
          case SEQUENCE_ERROR -> dev.counters.inc(IbCounters.Counter.DROP_OUT_OF_SEQUENCE);
          // IBA 9.7.5.2.8: behind an RNR NAK the requester resends from the NAKed PSN; no NAK.
          case RNR -> dev.counters.inc(IbCounters.Counter.DROP_BEHIND_RNR);
          // Seed 002 §3.1: likewise behind a stop request; the resend starts at the stopped PSN.
          case STOPPED -> dev.counters.inc(IbCounters.Counter.DROP_BEHIND_STOP);
        }
        return Step.DONE;
      case ERR_RNR:
        // IBA 9.7.5.2.8: no receive WQE. RNR NAK with the request's PSN and our min_rnr_timer.
        if (uc) {
          dropMessage();
          dev.counters.inc(IbCounters.Counter.DROP_NO_RECEIVE);
          return Step.DONE;
        }
        // Seed 002 §3.1: with stop-resend an empty SRQ drops the request and stops its sender; the
        // sender's bit in the SRQ's table gets it a resend request once receives are posted.
        if (qp.srqFlow != null && stopSender(p)) {
          return Step.DONE;
        }
        nak = Nak.RNR;
        out.flushAck();
        out.sendAck(Aeth.rnrNak(qp.minRnrTimer), p.psn);
        dev.counters.inc(IbCounters.Counter.RNR_NAKS_SENT);
        return Step.DONE;
      case ERR_MISSING_OPCODE_FIRST:
      case ERR_MISSING_OPCODE_LAST:
      case ERR_TOO_MANY_RDMA_ATM_REQ:
      case ERR_MISALIGNED_ATOMIC:
      case ERR_BAD_LENGTH:
        // IBA 9.7.5.2.4 class C: NAK invalid request; no WC reports it here, so QP_REQ_ERR.
        if (uc) {
          dropMessage();
          return Step.DONE;
        }
        fatal(Aeth.NAK_INVALID_REQUEST, p.psn, AsyncEventType.QP_REQ_ERR);
        return Step.DONE;
      case ERR_LENGTH:
        // Receive buffer too small: LOC_LEN_ERR here, REM_INV_REQ_ERR at the requester, both ERR.
        recvs.completeError(WcStatus.LOC_LEN_ERR);
        if (uc) {
          dropMessage();
          return Step.DONE;
        }
        fatal(Aeth.NAK_INVALID_REQUEST, p.psn, null);
        return Step.DONE;
      case ERR_RKEY_VIOLATION:
        // IBA 9.7.5.2.5: NAK remote access error; QP_ACCESS_ERR (no WC reports it here).
        if (uc) {
          dropMessage();
          return Step.DONE;
        }
        fatal(Aeth.NAK_REMOTE_ACCESS_ERROR, p.psn, AsyncEventType.QP_ACCESS_ERR);
        return Step.DONE;
      case ERR_MALFORMED_WQE:
        // Receive WQE with a bad lkey, range or access: LOC_PROT_ERR here, REM_OP_ERR there.
        recvs.completeError(WcStatus.LOC_PROT_ERR);
        if (uc) {
          dropMessage();
          return Step.DONE;
        }
        fatal(Aeth.NAK_REMOTE_OPERATIONAL_ERROR, p.psn, null);
        return Step.DONE;
      case ERR_CQ_OVERFLOW:
        // Class G: the CQ raised CQ_ERR; the QP goes to ERR and the requester learns REM_OP_ERR.
        if (!uc) {
          out.flushAck();
          out.sendAck(Aeth.nak(Aeth.NAK_REMOTE_OPERATIONAL_ERROR), p.psn);
        }
        qp.error();
        return Step.DONE;
      default:
        throw new IllegalStateException("not an error step: " + e);
    }
  }

  /** @return false if the sender does not fit the SRQ's table (then an RNR NAK goes instead) */
  private boolean stopSender(Packet p) {
    int slot = qp.srqFlow.stop(this, qp, out.responseLid(), out.responseQpn(), p.psn, qp.sl, dev.now);
    if (slot < 0) {
      return false;
    }
    nak = Nak.STOPPED;
    stopSlot = slot;
    out.sendStop(p.psn, qp.srqFlow.srqNum(), slot);
    return true;
  }

  void fatal(int nakCode, int nakPsn, AsyncEventType event) {
    out.flushAck();
    out.sendAck(Aeth.nak(nakCode), nakPsn);
    if (event != null) {
      qp.owner.raise(event);
    }
    if (dc) {
      reset(psn);
      dropMsg = false;
    } else {
      qp.error();
    }
  }

  private void dropMessage() {
    dropMsg = true;
    opSeq = SEQ_NONE;
    recvs.offset = 0;
  }
}
