package io.github.verbs4j.verbs.conformance;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.Mtu;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.WorkCompletion;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.EnumSet;

/**
 * One end of an RC connection between two ranks of a multi-process test: a QP with its own CQ and
 * a registered buffer of {@link #SLOTS} receive slots, connected through the job's key-value store
 * (key {@code rc/<from>-<to>} holds LID, QPN and PSN).
 */
final class RcEnd implements AutoCloseable {
  static final int SLOTS = 32;
  static final int SLOT_BYTES = 4096;
  static final Duration WAIT = Duration.ofSeconds(60);
  /** Local ACK timeout 14 (4.096 us * 2^14 = 67 ms) and 7 retries: the retry bound is 8 timeouts. */
  static final int TIMEOUT = 14;
  static final int RETRY_CNT = 7;

  final Context ctx;
  final CompletionQueue cq;
  final QueuePair qp;
  final MemoryRegion mr;
  private final int self;
  private final int peer;

  RcEnd(Context ctx, ProtectionDomain pd, int peer) {
    this.ctx = ctx;
    this.self = ctx.job().rank();
    this.peer = peer;
    cq = ctx.createCq(4 * SLOTS, null, 0);
    qp = pd.createQp(QpInitAttr.builder(QpType.RC).cq(cq)
        .cap(QpCap.builder().maxSendWr(SLOTS).maxRecvWr(SLOTS).build()).build());
    mr = pd.allocateMemory(2L * SLOTS * SLOT_BYTES, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
  }

  /** Publishes this end, reads the peer's, brings the QP to RTS and posts every receive slot. */
  RcEnd connect() {
    int psn = 0x100 * (self + 1) + peer;
    ByteBuffer me = ByteBuffer.allocate(12).putInt(ctx.queryPort(1).lid()).putInt(qp.qpNum()).putInt(psn);
    ctx.job().put("rc/" + self + "-" + peer, me.array());
    ByteBuffer them = ByteBuffer.wrap(ctx.job().get("rc/" + peer + "-" + self, WAIT));
    int lid = them.getInt();
    int qpn = them.getInt();
    int peerPsn = them.getInt();
    qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1)
        .qpAccessFlags(EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE)));
    for (int i = 0; i < SLOTS; i++) {
      postRecv(i);
    }
    qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(qpn).rqPsn(peerPsn)
        .maxDestRdAtomic(1).minRnrTimer(12).ahAttr(AhAttr.lid(lid)));
    qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(psn).timeout(TIMEOUT).retryCnt(RETRY_CNT).rnrRetry(7)
        .maxRdAtomic(1));
    return this;
  }

  /** @param slot a receive slot, also its wr_id */
  void postRecv(int slot) {
    qp.postRecv(new RecvWr().wrId(slot).sge(mr, (long) slot * SLOT_BYTES, SLOT_BYTES));
  }

  /** @return offset of send slot {@code i} (the upper half of the buffer) */
  static long sendOffset(int i) {
    return (long) (SLOTS + i % SLOTS) * SLOT_BYTES;
  }

  /** Polls until {@code n} completions arrived or {@link #WAIT} passed (a hang guard). */
  WorkCompletion[] poll(int n) {
    WorkCompletion[] out = new WorkCompletion[n];
    WorkCompletion[] wcs = WorkCompletion.array(n);
    long deadline = System.nanoTime() + WAIT.toNanos();
    int got = 0;
    while (got < n) {
      int k = cq.poll(wcs, n - got);
      for (int i = 0; i < k; i++) {
        WorkCompletion c = new WorkCompletion();
        c.reset(wcs[i].wrId(), wcs[i].status(), wcs[i].opcode(), wcs[i].qpNum()).byteLen(wcs[i].byteLen());
        out[got++] = c;
      }
      if (k == 0) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("rank " + self + ": " + got + " of " + n + " completions within " + WAIT);
        }
        Thread.onSpinWait();
      }
    }
    return out;
  }

  @Override
  public void close() {
    qp.close();
    mr.close();
    cq.close();
  }
}
