package io.github.verbs4j.tca.verbs;

import io.github.verbs4j.tca.peach2.TcaMallocPool;
import io.github.verbs4j.verbs.SendFlag;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.Sge;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WrOpcode;
import io.github.verbs4j.verbs.spi.AbstractContext;
import io.github.verbs4j.verbs.spi.InlineData;
import io.github.verbs4j.verbs.spi.SoftAddressHandle;
import java.nio.ByteBuffer;

/**
 * A send work request as the requester keeps it: a copy of the {@link SendWr} taken at post time
 * (inline data included) and its progress. Reused from a free list; never shared between threads
 * without the QP's lock.
 */
final class SendWqe {
  /** Waiting to be started. */
  static final int QUEUED = 0;
  /** An RTS went out; waiting for the target's CTS. */
  static final int WAIT_CTS = 1;
  /** Sent; waiting for its ACK or response. */
  static final int SENT = 2;
  /** Finished (status says how); completed when it reaches the head. */
  static final int DONE = 3;

  long wrId;
  /** Modelled time: the application's time at post ({@code Context.postAt}), or Long.MIN_VALUE. */
  long postTime;
  WrOpcode opcode;
  boolean signaled;
  boolean solicited;
  boolean fence;
  int imm;
  long remoteAddr;
  int rkey;
  long compareAdd;
  long swap;
  int numSge;
  long[] addr = new long[4];
  int[] len = new int[4];
  int[] lkey = new int[4];
  long total;
  /** Inline data copied at post time (grown once per slot, then reused), or null. */
  ByteBuffer inline;
  /** -1: not inline; -2: inline whose source vanished after the post-time check (LOC_PROT_ERR); else the length. */
  int inlineLength;
  /** UD destination. */
  int dlid;
  int remoteQpn;
  int remoteQkey;

  int state;
  int psn;
  /** Channel sequence number of its latest packet that asks for an acknowledgement (SEND, WRITE, FIN). */
  int seq;
  WcStatus status;
  /** Where a long READ's data lands at this node (pool memory), or null. */
  TcaMallocPool.Block landing;
  /** The landing block is the requester's own (single, pool) SGE: nothing to copy. */
  boolean landsInPlace;
  /** Where a long READ asked its data to land (kept across a retransmission), or 0. */
  long landingAddress;
  /** Sent again after a timeout or RNR NAK (its local checks passed already). */
  boolean restarted;
  /**
   * RTSs sent for this message: the number of the latest travels in the RTS and comes back in its
   * CTS, so a CTS that answers an earlier RTS (the requester went back since) is told apart.
   */
  int rtsSent;

  /**
   * Copies a validated WR.
   *
   * @param wr the WR
   * @param ctx the context whose regions inline address SGEs are read from ({@link InlineData})
   */
  void copyFrom(SendWr wr, AbstractContext ctx) {
    wrId = wr.wrId();
    postTime = ctx.postTimeNanos();
    opcode = wr.opcode();
    signaled = wr.hasFlag(SendFlag.SIGNALED);
    solicited = wr.hasFlag(SendFlag.SOLICITED);
    fence = wr.hasFlag(SendFlag.FENCE);
    imm = wr.immData();
    remoteAddr = wr.remoteAddr();
    rkey = wr.rkey();
    compareAdd = wr.compareAdd();
    swap = wr.swap();
    numSge = wr.numSge();
    if (addr.length < numSge) {
      addr = new long[numSge];
      len = new int[numSge];
      lkey = new int[numSge];
    }
    total = 0;
    for (int i = 0; i < numSge; i++) {
      Sge s = wr.sgList().sge(i);
      addr[i] = s.addr();
      len[i] = s.length();
      lkey[i] = s.lkey();
      total += s.length();
    }
    inlineLength = -1;
    if (wr.hasFlag(SendFlag.INLINE)) {
      int n = (int) total;
      if (inline == null || inline.capacity() < n) {
        inline = ByteBuffer.allocateDirect(Math.max(64, n));
      }
      inlineLength = InlineData.copy(wr, ctx, inline, 0) ? n : -2;
    }
    if (wr.ah() instanceof SoftAddressHandle ah) {
      dlid = ah.attr().dlid();
      remoteQpn = wr.remoteQpn();
      remoteQkey = wr.remoteQkey();
    }
    state = QUEUED;
    psn = 0;
    status = WcStatus.SUCCESS;
    landing = null;
    landsInPlace = false;
    landingAddress = 0;
    restarted = false;
    rtsSent = 0;
  }

  /** @return whether the data was copied at post time */
  boolean isInline() {
    return inlineLength != -1;
  }

  /** @return whether an RC or UC QP moves this WR by rendezvous (RTS, CTS, data, FIN) */
  boolean rendezvous(int eagerMax) {
    return total > eagerMax && (opcode == WrOpcode.SEND || opcode == WrOpcode.SEND_WITH_IMM
        || opcode == WrOpcode.RDMA_WRITE || opcode == WrOpcode.RDMA_WRITE_WITH_IMM);
  }

  /** @return whether this WR reads or atomically updates remote memory (it waits for a response) */
  boolean needsResponse() {
    return opcode == WrOpcode.RDMA_READ || opcode.isAtomic();
  }
}
