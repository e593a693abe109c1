package io.github.verbs4j.ib.engine;

import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.SendFlag;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.Sge;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WrOpcode;
import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.spi.AbstractContext;
import io.github.verbs4j.verbs.spi.AbstractProtectionDomain;
import io.github.verbs4j.verbs.spi.InlineData;
import io.github.verbs4j.verbs.spi.SoftMemoryRegion;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;

/**
 * A send work queue entry: the copy of a {@link SendWr} taken at post time, plus the requester's
 * and completer's state for it. Slots are preallocated in the {@link SendQueue} and reused.
 *
 * <p>The byte offset of the packet with PSN {@code p} is {@code (p - firstPsn) * mtu}, so a retry
 * regenerates any packet from its PSN alone (rxe rewinds its DMA cursor the same way).
 */
final class SendWqe {
  /** Not started. */
  static final int POSTED = 0;
  /** First PSN assigned; packets being sent (or sent again after a retry). */
  static final int ACTIVE = 1;
  /** Every packet sent; waiting for the acknowledgement (RC, DC). */
  static final int PENDING = 2;
  /** Finished without an acknowledgement (UC, UD, a UD message above the MTU). */
  static final int DONE = 3;
  /** Failed locally before or while sending; completes with {@link #status}. */
  static final int ERROR = 4;

  // Copied at post.
  long wrId;
  WrOpcode opcode;
  int flags;
  boolean signaled;
  int numSge;
  long[] addr;
  int[] length;
  int[] lkey;
  final SoftMemoryRegion[] mrs;
  boolean inline;
  final ByteBuffer inlineData;
  int immData;
  long remoteAddr;
  int rkey;
  long compareAdd;
  long swap;
  int dlid;
  int sl;
  int remoteQpn;
  int remoteQkey;
  int dctn;
  long dcKey;
  int totalLength;
  boolean inlineSourceMissing;
  /** Modelled time: the application's time at post ({@code Context.postAt}), or Long.MIN_VALUE. */
  long postTime;

  // Engine state.
  int state;
  /** Modelled time: when the last packet of an unreliable WQE left the HCA (its completion's time). */
  long sentTime;
  WcStatus status;
  int firstPsn;
  int lastPsn;
  int npkts;
  boolean hasCredit;
  boolean validated;
  // Gather cursor: byte offset cursorOffset is at sge cursorSge, cursorSgeOffset bytes in.
  int cursorOffset;
  int cursorSge;
  int cursorSgeOffset;

  SendWqe(int maxSge, ByteBuffer inlineData) {
    int n = Math.max(1, maxSge);
    addr = new long[n];
    length = new int[n];
    lkey = new int[n];
    mrs = new SoftMemoryRegion[n];
    this.inlineData = inlineData;
  }

  /**
   * Copies a validated WR. Inline data is copied now, from the buffers and regions its SGEs name
   * ({@link InlineData}).
   *
   * @param wr the WR
   * @param sigAll the QP signals every WR
   * @param ctx the context whose regions inline address SGEs are read from
   */
  void copyFrom(SendWr wr, boolean sigAll, AbstractContext ctx) {
    wrId = wr.wrId();
    // modelled time: the doorbell rang at the application's stated time, else at the clock now
    postTime = ctx.postTimeNanos() != Long.MIN_VALUE || !ctx.modelledTime() ? ctx.postTimeNanos() : ctx.nowNanos();
    sentTime = Long.MIN_VALUE;
    opcode = wr.opcode();
    flags = wr.sendFlags();
    signaled = sigAll || (flags & SendFlag.SIGNALED.value()) != 0;
    numSge = wr.numSge();
    long total = 0;
    for (int i = 0; i < numSge; i++) {
      Sge s = wr.sgList().sge(i);
      addr[i] = s.addr();
      length[i] = s.length();
      lkey[i] = s.lkey();
      mrs[i] = null;
      total += s.length();
    }
    totalLength = (int) total;
    immData = wr.immData();
    remoteAddr = wr.remoteAddr();
    rkey = wr.rkey();
    compareAdd = wr.compareAdd();
    swap = wr.swap();
    if (wr.ah() != null) {
      AhAttr ah = wr.ah().attr();
      dlid = ah.dlid();
      sl = ah.sl();
    } else {
      dlid = 0;
      sl = 0;
    }
    remoteQpn = wr.remoteQpn();
    remoteQkey = wr.remoteQkey();
    dctn = wr.remoteDctn();
    dcKey = wr.dcKey();
    inline = (flags & SendFlag.INLINE.value()) != 0 && inlineData != null;
    // A source that vanished after postSend checked it (deregistered meanwhile): LOC_PROT_ERR.
    inlineSourceMissing = inline && !InlineData.copy(wr, ctx, inlineData, 0);
    state = POSTED;
    status = WcStatus.SUCCESS;
    firstPsn = 0;
    lastPsn = 0;
    npkts = 0;
    hasCredit = false;
    validated = false;
    cursorOffset = 0;
    cursorSge = 0;
    cursorSgeOffset = 0;
  }

  /** @return whether this is an RDMA READ or an atomic (holds an rd_atomic credit) */
  boolean isReadOrAtomic() {
    return opcode == WrOpcode.RDMA_READ || opcode.isAtomic();
  }

  /** @return whether the fence flag is set */
  boolean fenced() {
    return (flags & SendFlag.FENCE.value()) != 0;
  }

  /** @return whether the solicited flag is set */
  boolean solicited() {
    return (flags & SendFlag.SOLICITED.value()) != 0;
  }

  /** @return an estimate of the bytes this slot holds, for the memory gauges */
  long footprint() {
    return 160L + addr.length * (8L + 4 + 4 + 8) + (inlineData == null ? 0 : inlineData.capacity());
  }

  /**
   * Copies {@code len} bytes at message offset {@code offset} of the WQE's data into the packet.
   *
   * @return false if a region was deregistered after the post
   */
  boolean gather(int offset, ByteBuf b, int at, int len) {
    ByteBuffer dst = b.internalNioBuffer(at, len);
    int pos = dst.position();
    if (inline) {
      dst.put(pos, inlineData, offset, len);
      return true;
    }
    int sge;
    int sgeOff;
    if (offset == cursorOffset) {
      sge = cursorSge;
      sgeOff = cursorSgeOffset;
    } else {
      sge = 0;
      sgeOff = offset;
      while (sge < numSge && sgeOff >= length[sge]) {
        sgeOff -= length[sge];
        sge++;
      }
    }
    int left = len;
    while (left > 0) {
      while (sge < numSge && sgeOff >= length[sge]) {
        sgeOff = 0;
        sge++;
      }
      if (sge >= numSge) {
        return false;
      }
      SoftMemoryRegion mr = mrs[sge];
      if (mr == null || !mr.isValid()) {
        return false; // deregistered after the post: the key no longer resolves
      }
      int n = Math.min(left, length[sge] - sgeOff);
      if (!mr.copyOut(addr[sge] + sgeOff, dst, pos, n)) {
        return false; // deregistered during the copy's check: its memory is freed
      }
      pos += n;
      sgeOff += n;
      left -= n;
    }
    cursorOffset = offset + len;
    cursorSge = sge;
    cursorSgeOffset = sgeOff;
    return true;
  }

  /**
   * Checks the local SGEs once, before anything is sent: key, PD, bounds, and LOCAL_WRITE for the
   * buffers a READ or atomic writes (rxe do_read / do_atomic report these as LOC_PROT_ERR).
   */
  WcStatus validate(MemoryDirectory memory, AbstractProtectionDomain pd) {
    if (inline) {
      return inlineSourceMissing ? WcStatus.LOC_PROT_ERR : WcStatus.SUCCESS;
    }
    boolean writes = isReadOrAtomic();
    for (int i = 0; i < numSge; i++) {
      if (length[i] == 0) {
        continue;
      }
      SoftMemoryRegion mr = memory.byLkey(lkey[i]);
      if (mr == null || mr.softPd() != pd || !mr.contains(addr[i], length[i])
          || (writes && !mr.allows(Access.LOCAL_WRITE))) {
        return WcStatus.LOC_PROT_ERR;
      }
      mrs[i] = mr;
    }
    validated = true;
    return WcStatus.SUCCESS;
  }
}
