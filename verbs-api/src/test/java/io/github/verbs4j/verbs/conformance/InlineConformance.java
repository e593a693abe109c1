package io.github.verbs4j.verbs.conformance;

import static io.github.verbs4j.verbs.conformance.KitAssertions.assertEinvalNaming;
import static io.github.verbs4j.verbs.conformance.KitAssertions.assertWc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.VerbsException;
import io.github.verbs4j.verbs.WcFlag;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Conformance of inline data ({@code IBV_SEND_INLINE}) from memory that is not registered:
 * {@code ibv_post_send(3)} copies inline data at post time and does not check its lkey, so the
 * source may be any memory the application owns. In verbs4j that is a {@link ByteBuffer} named by
 * a buffer SGE ({@code Sge.set(ByteBuffer)}), direct or heap; an inline <em>address</em> SGE must
 * lie in a region of the context. Covered: SEND, SEND_WITH_IMM, RDMA WRITE (with immediate) and UD
 * SEND of exactly {@code max_inline_data} bytes from an unregistered direct buffer with a non-zero
 * position; the source overwritten right after the post; buffer and region SGEs gathered in order;
 * and the post-time errors (too long, a buffer SGE without INLINE, an inline address in no region).
 * Subclass it and return your {@link KitEnvironment}; see {@link AbstractConformance}.
 */
public abstract class InlineConformance extends AbstractConformance {
  /** Where the data of every unregistered buffer starts: a non-zero position. */
  private static final int POS = 13;
  private static final int IMM = 0x1234;
  private static final int SCRIBBLE = 0xBAD;

  private static int deviceInline(Peer p) {
    int m = p.ctx().queryDevice().maxInlineData();
    Assumptions.assumeTrue(m > 0, "the device supports no inline data");
    return m;
  }

  private static QpCap cap(Peer p, int devMax, int sges) {
    Assumptions.assumeTrue(p.ctx().queryDevice().maxSge() >= sges, "the device has fewer than " + sges + " SGEs");
    return QpCap.builder().maxSendWr(16).maxRecvWr(16).maxSendSge(sges).maxInlineData(devMax).build();
  }

  /** RC fixture: a send area, then {@code slots} receive slots of devMax bytes each. */
  private static RcResources rc(Peer p, int devMax, int sges, int slots) {
    return new RcResources(p, RcResources.options().cap(cap(p, devMax, sges)).msgSize(devMax)
        .mrSize((long) devMax * (1 + slots)));
  }

  /** The sender's (rank 0's) max_inline_data, on both ranks; at most the device's limit. */
  private static int senderMax(Peer p, QueuePair qp, int devMax) {
    int mine = qp.cap().maxInlineData();
    assertTrue(mine >= devMax, "max_inline_data=" + mine + " is below the requested " + devMax);
    assertTrue(mine <= devMax, "max_inline_data=" + mine + " exceeds the device's limit " + devMax);
    long theirs = p.exchange(p.uniqueName("max-inline"), mine)[0];
    return p.rank() == 0 ? mine : (int) theirs;
  }

  /**
   * An unregistered direct buffer holding pattern {@code seed} at [POS, POS + len), with position
   * POS and limit POS + len.
   */
  private static ByteBuffer unregistered(int len, long seed) {
    ByteBuffer b = ByteBuffer.allocateDirect(POS + len + 7);
    Patterns.fill(b, POS, len, seed);
    return b.position(POS).limit(POS + len);
  }

  private static void assertUntouched(ByteBuffer b, int position, int limit) {
    assertEquals(position, b.position(), "the post must not move the buffer's position");
    assertEquals(limit, b.limit(), "the post must not move the buffer's limit");
  }

  private static void postRecvSlot(RcResources r, long wrId, int slot, int len) {
    r.qp().postRecv(new RecvWr().wrId(wrId).sge(r.mr(), r.recvOffset() + (long) slot * r.msgSize(), len));
  }

  /** SEND and SEND_WITH_IMM of exactly max_inline_data bytes from an unregistered direct buffer. */
  @Test
  public void inlineSendAndSendWithImmFromAnUnregisteredDirectBuffer() {
    twoSided("inlineSendAndSendWithImmFromAnUnregisteredDirectBufferBody");
  }

  /**
   * Body of {@link #inlineSendAndSendWithImmFromAnUnregisteredDirectBuffer()}.
   *
   * @param p the rank
   */
  public void inlineSendAndSendWithImmFromAnUnregisteredDirectBufferBody(Peer p) {
    int devMax = deviceInline(p);
    try (RcResources r = rc(p, devMax, 1, 2).connect()) {
      int max = senderMax(p, r.qp(), devMax);
      int qpn = r.qp().qpNum();
      if (p.rank() == 1) {
        postRecvSlot(r, 0, 0, max);
        postRecvSlot(r, 1, 1, max);
      }
      p.barrier("recvs-posted");
      if (p.rank() == 0) {
        ByteBuffer src = unregistered(max, 201);
        SendWr wr = new SendWr().wrId(1).opcode(WrOpcode.SEND).inline(true).signaled(true).sge(src);
        r.qp().postSend(wr);
        assertUntouched(src, POS, POS + max);
        Patterns.fill(src, POS, max, 202); // copied at post: the buffer is the application's again
        assertWc(p.pollOne(r.cq()), 1, WcStatus.SUCCESS, WcOpcode.SEND, qpn);
        // the same WR and buffer again (what a steady-state sender does), now with an immediate
        wr.wrId(2).opcode(WrOpcode.SEND_WITH_IMM).immData(SendWr.htonl(IMM)).sgList().sge(0).set(src);
        r.qp().postSend(wr);
        Patterns.fill(src, POS, max, SCRIBBLE);
        assertWc(p.pollOne(r.cq()), 2, WcStatus.SUCCESS, WcOpcode.SEND, qpn);
      } else {
        WorkCompletion wc = p.pollOne(r.cq());
        assertWc(wc, 0, WcStatus.SUCCESS, WcOpcode.RECV, qpn);
        assertEquals(max, wc.byteLen());
        assertFalse(wc.hasFlag(WcFlag.WITH_IMM), wc::toString);
        Patterns.verify("inline SEND from an unregistered buffer", r.buffer(), r.recvOffset(), max, 201);
        WorkCompletion imm = p.pollOne(r.cq());
        assertWc(imm, 1, WcStatus.SUCCESS, WcOpcode.RECV, qpn);
        assertEquals(max, imm.byteLen());
        assertTrue(imm.hasFlag(WcFlag.WITH_IMM), imm::toString);
        assertEquals(IMM, SendWr.ntohl(imm.immData()));
        Patterns.verify("inline SEND_WITH_IMM from an unregistered buffer", r.buffer(), r.recvOffset() + r.msgSize(),
            max, 202);
      }
      p.barrier("checked");
    }
  }

  /** RDMA WRITE and WRITE_WITH_IMM of exactly max_inline_data bytes from an unregistered direct buffer. */
  @Test
  public void inlineRdmaWriteFromAnUnregisteredDirectBuffer() {
    twoSided("inlineRdmaWriteFromAnUnregisteredDirectBufferBody");
  }

  /**
   * Body of {@link #inlineRdmaWriteFromAnUnregisteredDirectBuffer()}.
   *
   * @param p the rank
   */
  public void inlineRdmaWriteFromAnUnregisteredDirectBufferBody(Peer p) {
    int devMax = deviceInline(p);
    try (RcResources r = rc(p, devMax, 1, 1).connect()) {
      int max = senderMax(p, r.qp(), devMax);
      int qpn = r.qp().qpNum();
      if (p.rank() == 1) {
        Traffic.fill(r.buffer(), 0, 2 * devMax, (byte) 0);
        r.qp().postRecv(new RecvWr().wrId(7)); // for the immediate; a WRITE_WITH_IMM uses no SGE
      }
      p.barrier("recv-posted");
      if (p.rank() == 0) {
        ByteBuffer src = unregistered(max, 211);
        SendWr wr = new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).inline(true).signaled(true).sge(src)
            .rdma(r.remote().addr(), r.remote().rkey());
        r.qp().postSend(wr);
        assertUntouched(src, POS, POS + max);
        Patterns.fill(src, POS, max, 212);
        assertWc(p.pollOne(r.cq()), 1, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, qpn);
        wr.wrId(2).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(SendWr.htonl(IMM))
            .rdma(r.remote().addr() + devMax, r.remote().rkey()).sgList().sge(0).set(src);
        r.qp().postSend(wr);
        Patterns.fill(src, POS, max, SCRIBBLE);
        assertWc(p.pollOne(r.cq()), 2, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, qpn);
      } else {
        WorkCompletion wc = p.pollOne(r.cq()); // after the WRITE before it: RC executes in order
        assertWc(wc, 7, WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, qpn);
        assertEquals(max, wc.byteLen());
        assertEquals(IMM, SendWr.ntohl(wc.immData()));
        Patterns.verify("inline RDMA WRITE from an unregistered buffer", r.buffer(), 0, max, 211);
        Patterns.verify("inline WRITE_WITH_IMM from an unregistered buffer", r.buffer(), devMax, max, 212);
      }
      p.barrier("checked");
    }
  }

  /** UD SEND inline of max_inline_data bytes (at most the MTU) from an unregistered direct buffer. */
  @Test
  public void udInlineSendFromAnUnregisteredDirectBuffer() {
    twoSided("udInlineSendFromAnUnregisteredDirectBufferBody");
  }

  /**
   * Body of {@link #udInlineSendFromAnUnregisteredDirectBuffer()}.
   *
   * @param p the rank
   */
  public void udInlineSendFromAnUnregisteredDirectBufferBody(Peer p) {
    int devMax = deviceInline(p);
    int size = Math.min(devMax, p.ctx().queryPort(1).activeMtu().bytes());
    try (UdResources u = new UdResources(p, UdResources.options().msgSize(size).cap(cap(p, devMax, 1)))
        .exchangeInfo()) {
      if (p.rank() == 1) {
        u.postRecv(0);
      }
      p.barrier("recv-posted");
      if (p.rank() == 0) {
        assertTrue(u.qp().cap().maxInlineData() >= size, u.qp().cap()::toString);
        ByteBuffer src = unregistered(size, 221);
        u.qp().postSend(u.send(1, 0).inline(true).sge(src));
        assertUntouched(src, POS, POS + size);
        Patterns.fill(src, POS, size, SCRIBBLE);
        assertWc(p.pollOne(u.cq()), 1, WcStatus.SUCCESS, WcOpcode.SEND, u.qp().qpNum());
      } else {
        WorkCompletion wc = p.pollOne(u.cq());
        assertWc(wc, 0, WcStatus.SUCCESS, WcOpcode.RECV, u.qp().qpNum());
        assertEquals(size + UdResources.GRH_SIZE, wc.byteLen());
        Patterns.verify("UD inline SEND from an unregistered buffer", u.recvMr().buffer(), UdResources.GRH_SIZE, size,
            221);
      }
      p.barrier("checked");
    }
  }

  /**
   * The data is captured at post: a WR posted while the send queue is drained (SQD) is sent only
   * after SQD→RTS, yet what arrives is what the buffer and the region held at post time.
   */
  @Test
  public void sourcesOverwrittenRightAfterThePostDoNotChangeWhatArrives() {
    twoSided("sourcesOverwrittenRightAfterThePostDoNotChangeWhatArrivesBody");
  }

  /**
   * Body of {@link #sourcesOverwrittenRightAfterThePostDoNotChangeWhatArrives()}.
   *
   * @param p the rank
   */
  public void sourcesOverwrittenRightAfterThePostDoNotChangeWhatArrivesBody(Peer p) {
    int devMax = deviceInline(p);
    try (RcResources r = rc(p, devMax, 2, 1).connect()) {
      int max = senderMax(p, r.qp(), devMax);
      int half = max / 2;
      int qpn = r.qp().qpNum();
      if (p.rank() == 1) {
        postRecvSlot(r, 0, 0, max);
      }
      p.barrier("recv-posted");
      if (p.rank() == 0) {
        ByteBuffer src = unregistered(half, 231);
        Patterns.fill(r.buffer(), 0, max - half, 232);
        r.qp().modify(new QpAttr().qpState(QpState.SQD));
        SendWr wr = new SendWr().wrId(1).opcode(WrOpcode.SEND).inline(true).signaled(true);
        wr.sgList().numSge(2);
        wr.sgList().sge(0).set(src);
        wr.sgList().sge(1).set(r.mr(), 0, max - half);
        r.qp().postSend(wr);
        Patterns.fill(src, POS, half, SCRIBBLE);
        Patterns.fill(r.buffer(), 0, max - half, SCRIBBLE);
        p.expectNoCompletion(r.cq(), Peer.QUIET); // held in SQD: nothing was sent yet
        r.qp().modify(new QpAttr().qpState(QpState.RTS));
        assertWc(p.pollOne(r.cq()), 1, WcStatus.SUCCESS, WcOpcode.SEND, qpn);
      } else {
        WorkCompletion wc = p.pollOne(r.cq());
        assertWc(wc, 0, WcStatus.SUCCESS, WcOpcode.RECV, qpn);
        assertEquals(max, wc.byteLen());
        Patterns.verify("buffer part as at post time", r.buffer(), r.recvOffset(), half, 231);
        Patterns.verify("region part as at post time", r.buffer(), r.recvOffset() + half, max - half, 232);
      }
      p.barrier("checked");
    }
  }

  /** A direct buffer, a region and a heap buffer in one inline WR of max_inline_data bytes gather in SGE order. */
  @Test
  public void bufferAndRegionSgesGatherInOrder() {
    twoSided("bufferAndRegionSgesGatherInOrderBody");
  }

  /**
   * Body of {@link #bufferAndRegionSgesGatherInOrder()}.
   *
   * @param p the rank
   */
  public void bufferAndRegionSgesGatherInOrderBody(Peer p) {
    int devMax = deviceInline(p);
    try (RcResources r = rc(p, devMax, 3, 1).connect()) {
      int max = senderMax(p, r.qp(), devMax);
      int a = max / 3;
      int b = max / 3;
      int c = max - a - b;
      int qpn = r.qp().qpNum();
      if (p.rank() == 1) {
        postRecvSlot(r, 0, 0, max);
      }
      p.barrier("recv-posted");
      if (p.rank() == 0) {
        ByteBuffer direct = unregistered(a, 241);
        Patterns.fill(r.buffer(), 5, b, 242);
        ByteBuffer heap = ByteBuffer.allocate(3 + c + 4);
        Patterns.fill(heap, 3, c, 243);
        heap.position(3).limit(3 + c);
        SendWr wr = new SendWr().wrId(1).opcode(WrOpcode.SEND).inline(true).signaled(true);
        wr.sgList().numSge(3);
        wr.sgList().sge(0).set(direct);
        wr.sgList().sge(1).set(r.mr(), 5, b);
        wr.sgList().sge(2).set(heap);
        r.qp().postSend(wr);
        assertUntouched(direct, POS, POS + a);
        assertUntouched(heap, 3, 3 + c);
        assertWc(p.pollOne(r.cq()), 1, WcStatus.SUCCESS, WcOpcode.SEND, qpn);
      } else {
        WorkCompletion wc = p.pollOne(r.cq());
        assertWc(wc, 0, WcStatus.SUCCESS, WcOpcode.RECV, qpn);
        assertEquals(max, wc.byteLen());
        int at = r.recvOffset();
        Patterns.verify("sge[0]: direct buffer", r.buffer(), at, a, 241);
        Patterns.verify("sge[1]: region", r.buffer(), at + a, b, 242);
        Patterns.verify("sge[2]: heap buffer", r.buffer(), at + a + b, c, 243);
      }
      p.barrier("checked");
    }
  }

  /** An RC QP in RTS connected to itself, for post-time errors. */
  private static final class Loopback implements AutoCloseable {
    private final Closer closer = new Closer();
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final MemoryRegion mr;
    final QueuePair qp;

    Loopback(Peer p, int devMax) {
      try {
        pd = closer.add(p.ctx().allocPd());
        cq = closer.add(p.ctx().createCq(64, null, 0));
        mr = closer.add(pd.allocateMemory(4096, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE,
            Access.REMOTE_READ)));
        qp = closer.add(createQp(pd, cq, QpType.RC, cap(p, devMax, 2)));
        toInit(qp);
        toRtrLoopback(p, qp);
        toRts(qp);
      } catch (RuntimeException e) {
        closer.close();
        throw e;
      }
    }

    @Override
    public void close() {
      closer.close();
    }
  }

  /** max_inline_data + 1 bytes, from a buffer or split over a buffer and a region: EINVAL naming the limit. */
  @Test
  public void inlineBeyondMaxInlineDataFromABufferFailsWithEinval() {
    oneSided(p -> {
      int devMax = deviceInline(p);
      try (Loopback l = new Loopback(p, devMax)) {
        int max = l.qp.cap().maxInlineData();
        ByteBuffer src = unregistered(max + 1, 251);
        VerbsException e = assertEinvalNaming("max_inline_data=" + max, () -> l.qp.postSend(new SendWr().wrId(1)
            .opcode(WrOpcode.SEND).inline(true).signaled(true).sge(src)));
        assertEquals(0, e.badWrIndex(), e.getMessage());
        ByteBuffer part = unregistered(max / 2, 252);
        SendWr split = new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).inline(true).signaled(true)
            .rdma(l.mr.address(), l.mr.rkey());
        split.sgList().numSge(2);
        split.sgList().sge(0).set(part);
        split.sgList().sge(1).set(l.mr, 0, max - max / 2 + 1);
        e = assertEinvalNaming("inline length=" + (max + 1), () -> l.qp.postSend(split));
        assertTrue(e.getMessage().contains("max_inline_data=" + max), e.getMessage());
        assertUntouched(src, POS, POS + max + 1);
        p.expectNoCompletion(l.cq, Peer.QUIET);
        assertEquals(QpState.RTS, l.qp.state());
      }
    });
  }

  /**
   * A buffer SGE without INLINE is EINVAL at post, naming the SGE and the WR index (the provider
   * would read it after the call returns, and it has no lkey); so are a READ into a buffer and a
   * receive into one. The WRs before it in the chain are posted.
   */
  @Test
  public void bufferSgeWithoutInlineFailsWithEinval() {
    oneSided(p -> {
      int devMax = deviceInline(p);
      try (Loopback l = new Loopback(p, devMax)) {
        ByteBuffer src = unregistered(16, 261);
        SendWr bad = new SendWr().wrId(2).opcode(WrOpcode.SEND).signaled(true).sge(src);
        VerbsException e = assertEinvalNaming("sge[0] is a ByteBuffer SGE", () -> l.qp.postSend(bad));
        assertTrue(e.getMessage().contains("IBV_SEND_INLINE") && e.getMessage().endsWith("(wr #0)"), e.getMessage());
        assertEquals(0, e.badWrIndex());
        SendWr read = new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ).signaled(true).sge(src)
            .rdma(l.mr.address(), l.mr.rkey());
        assertEinvalNaming("sge[0] is a ByteBuffer SGE", () -> l.qp.postSend(read));
        RecvWr recv = new RecvWr().wrId(4);
        recv.sgList().numSge(1);
        recv.sgList().sge(0).set(src);
        assertEinvalNaming("sge[0] is a ByteBuffer SGE", () -> l.qp.postRecv(recv));
        // a chain [good, bad]: the good one is posted (a 0-byte WRITE to itself), bad_wr = 1
        SendWr good = new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).signaled(true)
            .rdma(l.mr.address(), l.mr.rkey()).next(bad);
        e = assertEinvalNaming("sge[0] is a ByteBuffer SGE", () -> l.qp.postSend(good));
        assertEquals(1, e.badWrIndex(), e.getMessage());
        assertWc(p.pollOne(l.cq), 1, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, l.qp.qpNum());
        p.expectNoCompletion(l.cq, Peer.QUIET);
        assertEquals(QpState.RTS, l.qp.state());
      }
    });
  }

  /**
   * An inline address SGE that lies in no region of the context (past a region's end, a wild
   * address, a deregistered region) is EINVAL at post naming the SGE, the address and the WR
   * index — never read, and never a LOC_PROT_ERR completion later.
   */
  @Test
  public void inlineFromAnAddressInNoRegionFailsWithEinval() {
    oneSided(p -> {
      int devMax = deviceInline(p);
      try (Loopback l = new Loopback(p, devMax)) {
        ByteBuffer head = unregistered(8, 271);
        long pastEnd = l.mr.address() + l.mr.length() - 8;
        SendWr bad = new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).inline(true).signaled(true)
            .rdma(l.mr.address(), l.mr.rkey());
        bad.sgList().numSge(2);
        bad.sgList().sge(0).set(head);
        bad.sgList().sge(1).set(pastEnd, 16, l.mr.lkey());
        SendWr good = new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).signaled(true)
            .rdma(l.mr.address(), l.mr.rkey()).next(bad);
        VerbsException e = assertEinvalNaming("sge[1].addr=0x" + Long.toHexString(pastEnd), () -> l.qp.postSend(good));
        assertEquals(1, e.badWrIndex(), e.getMessage());
        assertTrue(e.getMessage().endsWith("(wr #1)"), e.getMessage());
        assertWc(p.pollOne(l.cq), 1, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, l.qp.qpNum());

        SendWr wild = new SendWr().wrId(3).opcode(WrOpcode.SEND).inline(true).signaled(true);
        wild.sgList().numSge(1);
        wild.sgList().sge(0).set(0x10, 8, 0);
        assertEinvalNaming("sge[0].addr=0x10", () -> l.qp.postSend(wild));

        MemoryRegion gone = l.pd.allocateMemory(4096, EnumSet.of(Access.LOCAL_WRITE));
        long addr = gone.address();
        int lkey = gone.lkey();
        gone.close();
        SendWr stale = new SendWr().wrId(4).opcode(WrOpcode.SEND).inline(true).signaled(true);
        stale.sgList().numSge(1);
        stale.sgList().sge(0).set(addr, 64, lkey);
        assertEinvalNaming("sge[0].addr=0x" + Long.toHexString(addr), () -> l.qp.postSend(stale));

        p.expectNoCompletion(l.cq, Peer.QUIET);
        assertEquals(QpState.RTS, l.qp.state());
      }
    });
  }
}
