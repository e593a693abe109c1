package io.github.verbs4j.verbs.conformance;

import static io.github.verbs4j.verbs.conformance.KitAssertions.assertErrWc;
import static io.github.verbs4j.verbs.conformance.KitAssertions.assertWc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.Sge;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Conformance beyond the pyverbs scenarios (CONFORMANCE.md): byte-exact data for boundary sizes
 * through several SGEs at odd offsets, ordered placement (the last byte of a WRITE is visible last;
 * a SEND after a WRITE completes after the WRITE's data is visible), PSNs across the 24-bit wrap,
 * and a peer that goes away. Subclass it and return your {@link KitEnvironment}; see {@link
 * AbstractConformance}.
 */
public abstract class DataIntegrityConformance extends AbstractConformance {
  /** The fixtures' path MTU. */
  private static final int MTU = 1024;
  /** Message sizes: 0, 1, 3, MTU−1, MTU, MTU+1, 64 KiB+7, 4 MiB. */
  static final int[] SIZES = {0, 1, 3, MTU - 1, MTU, MTU + 1, 64 * 1024 + 7, 4 * 1024 * 1024};
  private static final byte SENTINEL = (byte) 0xEE;
  private static final int SLACK = 13;

  /** One SGE of a message: where it is in the region and which bytes of the message it holds. */
  record Piece(long offset, int length, long from) {}

  /** Splits {@code len} bytes into at most {@code k} non-empty pieces; two shapes so that send and receive differ. */
  static int[] split(int len, int k, boolean recvShape) {
    if (len == 0) {
      return new int[0];
    }
    int n = Math.min(k, len);
    int[] out = new int[n];
    if (n == 1) {
      out[0] = len;
    } else if (len < 4 * n) {
      for (int i = 0; i < n - 1; i++) {
        out[i] = 1;
      }
      out[n - 1] = len - (n - 1);
    } else if (n == 2) {
      out[0] = recvShape ? len / 4 : len / 2;
      out[1] = len - out[0];
    } else {
      out[0] = recvShape ? len / 4 : len / 3;
      out[1] = recvShape ? len / 2 : len / 3;
      out[2] = len - out[0] - out[1];
    }
    return out;
  }

  private static long nextOdd(long off) {
    long o = off + 2;
    return (o & 1) == 0 ? o + 1 : o;
  }

  /** Scatter/gather layout of every message, pieces at odd offsets with gaps between them. */
  static List<List<Piece>> scatter(int[] sizes, int k, boolean recvShape) {
    List<List<Piece>> all = new ArrayList<>();
    long off = 1;
    for (int len : sizes) {
      List<Piece> pieces = new ArrayList<>();
      long from = 0;
      int[] parts = split(len, k, recvShape);
      for (int part : parts) {
        pieces.add(new Piece(off, part, from));
        from += part;
        off = nextOdd(off + part);
      }
      if (recvShape) {
        if (pieces.isEmpty()) {
          pieces.add(new Piece(off, 0, 0));
        }
        off = nextOdd(off + SLACK); // the last receive SGE is SLACK bytes longer than the data
      }
      all.add(pieces);
    }
    return all;
  }

  /** Contiguous layout (RDMA targets): each message at an odd offset. */
  static long[] contiguous(int[] sizes) {
    long[] offs = new long[sizes.length];
    long off = 1;
    for (int i = 0; i < sizes.length; i++) {
      offs[i] = off;
      off = nextOdd(off + sizes[i] + 4);
    }
    return offs;
  }

  static long end(List<List<Piece>> layout) {
    long end = 0;
    for (List<Piece> m : layout) {
      for (Piece pc : m) {
        end = Math.max(end, pc.offset() + pc.length() + SLACK);
      }
    }
    return end + 8;
  }

  private static long regionSize(int k) {
    long c = contiguous(SIZES)[SIZES.length - 1] + SIZES[SIZES.length - 1] + 8;
    return Math.max(c, Math.max(end(scatter(SIZES, k, false)), end(scatter(SIZES, k, true))));
  }

  private static Sge[] sges(RcResources r, List<Piece> pieces, boolean withSlack) {
    Sge[] s = new Sge[pieces.size()];
    for (int i = 0; i < s.length; i++) {
      Piece pc = pieces.get(i);
      int len = pc.length() + (withSlack && i == s.length - 1 ? SLACK : 0);
      s[i] = new Sge().set(r.mr(), pc.offset(), len);
    }
    return s;
  }

  private static void fillPieces(ByteBuffer b, List<Piece> pieces, long seed) {
    for (Piece pc : pieces) {
      Patterns.fill(b, (int) pc.offset(), pc.length(), seed, pc.from());
    }
  }

  private static void verifyPieces(String what, ByteBuffer b, List<Piece> pieces, long seed) {
    for (Piece pc : pieces) {
      Patterns.verify(what, b, (int) pc.offset(), pc.length(), seed, pc.from());
    }
  }

  /** Every byte outside [offset, offset+length) of every piece still holds the sentinel. */
  private static void verifyUntouched(String what, ByteBuffer b, List<List<Piece>> layout, long size) {
    boolean[] data = new boolean[(int) size];
    for (List<Piece> m : layout) {
      for (Piece pc : m) {
        for (int i = 0; i < pc.length(); i++) {
          data[(int) pc.offset() + i] = true;
        }
      }
    }
    for (int i = 0; i < size; i++) {
      if (!data[i] && b.get(i) != SENTINEL) {
        fail(what + ": byte at offset " + i + " outside every message was overwritten (0x"
            + Integer.toHexString(b.get(i) & 0xff) + ")");
      }
    }
  }

  private static int sgeCount(Peer p, boolean read) {
    return Math.min(3, read ? p.ctx().queryDevice().maxSgeRd() : p.ctx().queryDevice().maxSge());
  }

  private static RcResources.Options bulkOptions(int k, long size) {
    return RcResources.options().mrSize(size).cap(QpCap.builder().maxSendWr(64).maxRecvWr(64).maxSendSge(k)
        .maxRecvSge(k).build());
  }

  /**
   * Beyond pyverbs: SENDs of 0, 1, 3, MTU−1, MTU, MTU+1, 64 KiB+7 and 4 MiB bytes, gathered from
   * and scattered to up to three SGEs at odd offsets, arrive byte-exact and in order, with nothing
   * written outside the receive SGEs' data.
   */
  @Test
  public void sendOfBoundarySizesArrivesByteExactThroughOddOffsetSges() {
    twoSided("sendOfBoundarySizesArrivesByteExactThroughOddOffsetSgesBody");
  }

  /**
   * Body of {@link #sendOfBoundarySizesArrivesByteExactThroughOddOffsetSges()}.
   *
   * @param p the rank
   */
  public void sendOfBoundarySizesArrivesByteExactThroughOddOffsetSgesBody(Peer p) {
    int k = sgeCount(p, false);
    long size = regionSize(k);
    List<List<Piece>> gather = scatter(SIZES, k, false);
    List<List<Piece>> scatterTo = scatter(SIZES, k, true);
    try (RcResources r = new RcResources(p, bulkOptions(k, size)).connect()) {
      ByteBuffer b = r.buffer();
      int qpn = r.qp().qpNum();
      if (p.rank() == 1) {
        Traffic.fill(b, 0, (int) size, SENTINEL);
        for (int m = 0; m < SIZES.length; m++) {
          r.qp().postRecv(new RecvWr().wrId(m).sgList(sges(r, scatterTo.get(m), true)));
        }
      } else {
        for (int m = 0; m < SIZES.length; m++) {
          fillPieces(b, gather.get(m), 500 + m);
        }
      }
      p.barrier("posted");
      if (p.rank() == 0) {
        SendWr head = null;
        for (int m = SIZES.length - 1; m >= 0; m--) {
          head = new SendWr().wrId(m).opcode(WrOpcode.SEND).signaled(true).sgList(sges(r, gather.get(m), false))
              .next(head);
        }
        r.qp().postSend(head);
        List<WorkCompletion> wcs = p.pollUntil(r.cq(), SIZES.length);
        for (int m = 0; m < SIZES.length; m++) {
          assertWc(wcs.get(m), m, WcStatus.SUCCESS, WcOpcode.SEND, qpn);
        }
      } else {
        List<WorkCompletion> wcs = p.pollUntil(r.cq(), SIZES.length);
        for (int m = 0; m < SIZES.length; m++) {
          assertWc(wcs.get(m), m, WcStatus.SUCCESS, WcOpcode.RECV, qpn);
          assertEquals(SIZES[m], wcs.get(m).byteLen(), "byte_len of message " + m);
          verifyPieces("SEND of " + SIZES[m] + " bytes", b, scatterTo.get(m), 500 + m);
        }
        verifyUntouched("SEND", b, scatterTo, size);
      }
    }
  }

  /** Beyond pyverbs: RDMA WRITEs of the boundary sizes, gathered from odd-offset SGEs, land byte-exact at odd remote offsets. */
  @Test
  public void rdmaWriteOfBoundarySizesArrivesByteExactFromOddOffsetSges() {
    twoSided("rdmaWriteOfBoundarySizesArrivesByteExactFromOddOffsetSgesBody");
  }

  /**
   * Body of {@link #rdmaWriteOfBoundarySizesArrivesByteExactFromOddOffsetSges()}.
   *
   * @param p the rank
   */
  public void rdmaWriteOfBoundarySizesArrivesByteExactFromOddOffsetSgesBody(Peer p) {
    int k = sgeCount(p, false);
    long size = regionSize(k);
    List<List<Piece>> gather = scatter(SIZES, k, false);
    long[] targets = contiguous(SIZES);
    try (RcResources r = new RcResources(p, bulkOptions(k, size)).connect()) {
      ByteBuffer b = r.buffer();
      if (p.rank() == 1) {
        Traffic.fill(b, 0, (int) size, SENTINEL);
      } else {
        for (int m = 0; m < SIZES.length; m++) {
          fillPieces(b, gather.get(m), 600 + m);
        }
      }
      p.barrier("filled");
      if (p.rank() == 0) {
        SendWr head = null;
        for (int m = SIZES.length - 1; m >= 0; m--) {
          head = new SendWr().wrId(m).opcode(WrOpcode.RDMA_WRITE).signaled(true).sgList(sges(r, gather.get(m), false))
              .rdma(r.remote().addr() + targets[m], r.remote().rkey()).next(head);
        }
        r.qp().postSend(head);
        List<WorkCompletion> wcs = p.pollUntil(r.cq(), SIZES.length);
        for (int m = 0; m < SIZES.length; m++) {
          assertWc(wcs.get(m), m, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, r.qp().qpNum());
        }
      }
      p.barrier("written");
      if (p.rank() == 1) {
        List<List<Piece>> placed = new ArrayList<>();
        for (int m = 0; m < SIZES.length; m++) {
          Patterns.verify("WRITE of " + SIZES[m] + " bytes", b, (int) targets[m], SIZES[m], 600 + m);
          placed.add(List.of(new Piece(targets[m], SIZES[m], 0)));
        }
        verifyUntouched("WRITE", b, placed, size);
        p.expectNoCompletion(r.cq(), Peer.QUIET);
      }
    }
  }

  /** Beyond pyverbs: RDMA READs of the boundary sizes from odd remote offsets scatter byte-exact into odd-offset SGEs. */
  @Test
  public void rdmaReadOfBoundarySizesArrivesByteExactIntoOddOffsetSges() {
    twoSided("rdmaReadOfBoundarySizesArrivesByteExactIntoOddOffsetSgesBody");
  }

  /**
   * Body of {@link #rdmaReadOfBoundarySizesArrivesByteExactIntoOddOffsetSges()}.
   *
   * @param p the rank
   */
  public void rdmaReadOfBoundarySizesArrivesByteExactIntoOddOffsetSgesBody(Peer p) {
    int k = sgeCount(p, true);
    long size = regionSize(k);
    List<List<Piece>> scatterTo = scatter(SIZES, k, true);
    long[] sources = contiguous(SIZES);
    try (RcResources r = new RcResources(p, bulkOptions(k, size)).connect()) {
      ByteBuffer b = r.buffer();
      if (p.rank() == 1) {
        for (int m = 0; m < SIZES.length; m++) {
          Patterns.fill(b, (int) sources[m], SIZES[m], 700 + m);
        }
      } else {
        Traffic.fill(b, 0, (int) size, SENTINEL);
      }
      p.barrier("filled");
      if (p.rank() == 0) {
        SendWr head = null;
        for (int m = SIZES.length - 1; m >= 0; m--) {
          List<Piece> pieces = scatterTo.get(m);
          Sge[] s = SIZES[m] == 0 ? new Sge[0] : sges(r, pieces, false);
          head = new SendWr().wrId(m).opcode(WrOpcode.RDMA_READ).signaled(true).sgList(s)
              .rdma(r.remote().addr() + sources[m], r.remote().rkey()).next(head);
        }
        r.qp().postSend(head);
        List<WorkCompletion> wcs = p.pollUntil(r.cq(), SIZES.length);
        for (int m = 0; m < SIZES.length; m++) {
          assertWc(wcs.get(m), m, WcStatus.SUCCESS, WcOpcode.RDMA_READ, r.qp().qpNum());
          assertEquals(SIZES[m], wcs.get(m).byteLen(), "byte_len of READ " + m);
          verifyPieces("READ of " + SIZES[m] + " bytes", b, scatterTo.get(m), 700 + m);
        }
        verifyUntouched("READ", b, scatterTo, size);
      }
      p.barrier("read");
    }
  }

  /** Waits until {@code b[index] == expected}, with back-off and fences (a plain read could be hoisted). */
  private static void awaitByte(Peer p, ByteBuffer b, int index, byte expected) {
    Backoff backoff = new Backoff();
    long deadline = System.nanoTime() + p.timeout().toNanos();
    while (b.get(index) != expected) {
      VarHandle.fullFence();
      p.checkAborted();
      if (System.nanoTime() - deadline > 0) {
        fail("rank " + p.rank() + ": byte " + index + " never became 0x" + Integer.toHexString(expected & 0xff)
            + " within " + p.timeout());
      }
      backoff.idle();
    }
    VarHandle.acquireFence();
  }

  /**
   * Beyond pyverbs (perftest write_lat): in a WRITE ping-pong of 64 KiB+7 bytes each side polls the
   * last byte of its buffer; once it shows the new value the whole payload is there.
   */
  @Test
  public void rdmaWritePayloadIsCompleteWhenItsLastByteIsVisible() {
    twoSided("rdmaWritePayloadIsCompleteWhenItsLastByteIsVisibleBody");
  }

  /**
   * Body of {@link #rdmaWritePayloadIsCompleteWhenItsLastByteIsVisible()}.
   *
   * @param p the rank
   */
  public void rdmaWritePayloadIsCompleteWhenItsLastByteIsVisibleBody(Peer p) {
    int s = 64 * 1024 + 7;
    int iters = 20;
    try (RcResources r = new RcResources(p, RcResources.options().msgSize(s)).connect()) {
      ByteBuffer b = r.buffer();
      p.barrier("connected");
      for (int i = 0; i < iters; i++) {
        byte marker = (byte) (i + 1);
        if (p.rank() == i % 2) {
          Patterns.fill(b, s, s - 1, 800 + i);
          b.put(2 * s - 1, marker);
          r.qp().postSend(new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).signaled(true).sge(r.mr(), s, s)
              .rdma(r.remote().addr(), r.remote().rkey()));
          assertWc(p.pollOne(r.cq()), i, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, r.qp().qpNum());
        } else {
          awaitByte(p, b, s - 1, marker);
          Patterns.verify("payload when the last byte of iteration " + i + " is visible", b, 0, s - 1, 800 + i);
        }
      }
    }
  }

  /**
   * Beyond pyverbs: a SEND posted after a WRITE on the same QP completes at the target after the
   * WRITE's data is visible; ten WRITE+SEND pairs posted back-to-back to different regions.
   */
  @Test
  public void sendAfterWriteCompletesOnlyAfterTheWriteIsVisible() {
    twoSided("sendAfterWriteCompletesOnlyAfterTheWriteIsVisibleBody");
  }

  /**
   * Body of {@link #sendAfterWriteCompletesOnlyAfterTheWriteIsVisible()}.
   *
   * @param p the rank
   */
  public void sendAfterWriteCompletesOnlyAfterTheWriteIsVisibleBody(Peer p) {
    int s = 64 * 1024 + 7;
    int n = 10;
    long recvArea = (long) n * s + 1;
    try (RcResources r = new RcResources(p, RcResources.options().mrSize(recvArea + 64 * n)).connect()) {
      ByteBuffer b = r.buffer();
      int qpn = r.qp().qpNum();
      if (p.rank() == 1) {
        for (int i = 0; i < n; i++) {
          r.qp().postRecv(new RecvWr().wrId(i).sge(r.mr(), recvArea + 64L * i, 64));
        }
      } else {
        for (int i = 0; i < n; i++) {
          Patterns.fill(b, i * s, s, 900 + i);
        }
      }
      p.barrier("posted");
      if (p.rank() == 0) {
        for (int i = 0; i < n; i++) {
          r.qp().postSend(new SendWr().wrId(100 + i).opcode(WrOpcode.RDMA_WRITE).sge(r.mr(), (long) i * s, s)
              .rdma(r.remote().addr() + (long) i * s, r.remote().rkey())
              .next(new SendWr().wrId(i).opcode(WrOpcode.SEND).signaled(true).sge(r.mr(), recvArea, 8)));
        }
        List<WorkCompletion> wcs = p.pollUntil(r.cq(), n);
        for (int i = 0; i < n; i++) {
          assertWc(wcs.get(i), i, WcStatus.SUCCESS, WcOpcode.SEND, qpn);
        }
      } else {
        for (int i = 0; i < n; i++) {
          assertWc(p.pollOne(r.cq()), i, WcStatus.SUCCESS, WcOpcode.RECV, qpn);
          VarHandle.acquireFence();
          Patterns.verify("WRITE " + i + " when the SEND after it has completed", b, i * s, s, 900 + i);
        }
      }
    }
  }

  /**
   * Beyond pyverbs: with initial PSNs 0xFFFFF0 on both sides, multi-packet SENDs, WRITEs and READs
   * (8 KiB at MTU 1024) cross the 24-bit PSN wrap and all complete with the right data.
   */
  @Test
  public void multiPacketMessagesCrossThe24BitPsnWrap() {
    twoSided("multiPacketMessagesCrossThe24BitPsnWrapBody");
  }

  /**
   * Body of {@link #multiPacketMessagesCrossThe24BitPsnWrap()}.
   *
   * @param p the rank
   */
  public void multiPacketMessagesCrossThe24BitPsnWrapBody(Peer p) {
    int m = 8192;
    try (RcResources r = new RcResources(p, RcResources.options().psn(0xFFFFF0).msgSize(m).mrSize(16L * m)
        .maxRdAtomic(4).maxDestRdAtomic(4)).connect()) {
      ByteBuffer b = r.buffer();
      int qpn = r.qp().qpNum();
      assertEquals(0xFFFFF0, r.remote().psn());
      if (p.rank() == 1) {
        for (int i = 0; i < 4; i++) {
          r.qp().postRecv(new RecvWr().wrId(i).sge(r.mr(), (long) (4 + i) * m, m));
        }
        Patterns.fill(b, 10 * m, m, 1010);
        Patterns.fill(b, 11 * m, m, 1011);
      } else {
        for (int i = 0; i < 4; i++) {
          Patterns.fill(b, i * m, m, 1000 + i);
        }
      }
      p.barrier("posted");
      if (p.rank() == 0) {
        List<SendWr> wrs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          wrs.add(new SendWr().wrId(i).opcode(WrOpcode.SEND).signaled(true).sge(r.mr(), (long) i * m, m));
        }
        for (int i = 0; i < 2; i++) {
          wrs.add(new SendWr().wrId(4 + i).opcode(WrOpcode.RDMA_WRITE).signaled(true).sge(r.mr(), (long) i * m, m)
              .rdma(r.remote().addr() + (long) (8 + i) * m, r.remote().rkey()));
        }
        for (int i = 0; i < 2; i++) {
          wrs.add(new SendWr().wrId(6 + i).opcode(WrOpcode.RDMA_READ).signaled(true).sge(r.mr(), (long) (12 + i) * m, m)
              .rdma(r.remote().addr() + (long) (10 + i) * m, r.remote().rkey()));
        }
        for (SendWr wr : wrs) {
          r.qp().postSend(wr);
        }
        List<WorkCompletion> wcs = p.pollUntil(r.cq(), 8);
        WcOpcode[] ops = {WcOpcode.SEND, WcOpcode.SEND, WcOpcode.SEND, WcOpcode.SEND, WcOpcode.RDMA_WRITE,
            WcOpcode.RDMA_WRITE, WcOpcode.RDMA_READ, WcOpcode.RDMA_READ};
        for (int i = 0; i < 8; i++) {
          assertWc(wcs.get(i), i, WcStatus.SUCCESS, ops[i], qpn);
        }
        Patterns.verify("READ 0 across the wrap", b, 12 * m, m, 1010);
        Patterns.verify("READ 1 across the wrap", b, 13 * m, m, 1011);
      } else {
        List<WorkCompletion> wcs = p.pollUntil(r.cq(), 4);
        for (int i = 0; i < 4; i++) {
          assertWc(wcs.get(i), i, WcStatus.SUCCESS, WcOpcode.RECV, qpn);
          assertEquals(m, wcs.get(i).byteLen());
          Patterns.verify("SEND " + i + " across the wrap", b, (4 + i) * m, m, 1000 + i);
        }
      }
      p.barrier("done");
      if (p.rank() == 1) {
        Patterns.verify("WRITE 0 across the wrap", b, 8 * m, m, 1000);
        Patterns.verify("WRITE 1 across the wrap", b, 9 * m, m, 1001);
      }
    }
  }

  /**
   * Beyond pyverbs: when the peer closes its QP and its context (as a crashed process would), the
   * survivor's outstanding sends end with RETRY_EXC_ERR then WR_FLUSH_ERR, in order, within the
   * timeout × retry bound (timeout 10 ≈ 4 ms, retry_cnt 2; the kit's timeout is only a hang guard).
   */
  @Test
  public void survivorOfAClosedPeerGetsRetryExcErrThenFlushWithinTheRetryBound() {
    twoSided("survivorOfAClosedPeerGetsRetryExcErrThenFlushWithinTheRetryBoundBody");
  }

  /**
   * Body of {@link #survivorOfAClosedPeerGetsRetryExcErrThenFlushWithinTheRetryBound()}.
   *
   * @param p the rank
   */
  public void survivorOfAClosedPeerGetsRetryExcErrThenFlushWithinTheRetryBoundBody(Peer p) {
    try (RcResources r = new RcResources(p, RcResources.options().timeout(10).retryCnt(2)).connect()) {
      p.barrier("connected");
      if (p.rank() == 1) {
        r.close();
        p.barrier("peer-gone");
        p.closeContextEarly();
        return;
      }
      p.barrier("peer-gone");
      int qpn = r.qp().qpNum();
      for (int i = 1; i <= 3; i++) {
        r.qp().postSend(r.send(i, 64));
      }
      List<WorkCompletion> wcs = p.pollUntil(r.cq(), 3);
      assertErrWc(wcs.get(0), 1, WcStatus.RETRY_EXC_ERR, qpn);
      assertErrWc(wcs.get(1), 2, WcStatus.WR_FLUSH_ERR, qpn);
      assertErrWc(wcs.get(2), 3, WcStatus.WR_FLUSH_ERR, qpn);
      assertEquals(QpState.ERR, r.qp().state());
    }
  }
}
