package io.github.verbs4j.verbs.conformance;

import static io.github.verbs4j.verbs.conformance.KitAssertions.assertErrWc;
import static io.github.verbs4j.verbs.conformance.KitAssertions.assertWc;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AtomicCap;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.Sge;
import io.github.verbs4j.verbs.VerbsException;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Conformance of RC atomics (CMP_AND_SWP, FETCH_AND_ADD): results, byte order, queuing beyond
 * max_rd_atomic, and their errors (§6 scenarios 24–26 and 38–42; §3.6; CONFORMANCE.md: operands
 * little-endian in memory, misaligned atomics EINVAL at post, a responder QP without REMOTE_ATOMIC
 * gives REM_ACCESS_ERR). Skipped when the device reports {@code atomic_cap == NONE}, as pyverbs
 * does. Subclass it and return your {@link KitEnvironment}; see {@link AbstractConformance}.
 */
public abstract class AtomicConformance extends AbstractConformance {
  private static final long ONES = 0x0101010101010101L;
  private static final long TWOS = 0x0202020202020202L;
  private static final long THREES = 0x0303030303030303L;
  private static final Set<Access> ATOMIC_ACCESS = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE,
      Access.REMOTE_READ, Access.REMOTE_ATOMIC);
  /** Where the local 8-byte results go. */
  private static final int RESULT_OFFSET = 64;

  private static void assumeAtomics(Peer p) {
    Assumptions.assumeTrue(p.ctx().queryDevice().atomicCap() != AtomicCap.NONE, "the device reports atomic_cap NONE");
  }

  private static RcResources.Options atomicOptions() {
    return RcResources.options().msgSize(8).mrSize(256).mrAccess(ATOMIC_ACCESS).qpAccess(ATOMIC_ACCESS);
  }

  /** The first 8-byte aligned offset of a region (atomics need an aligned remote address). */
  static int aligned(MemoryRegion mr) {
    return (int) ((8 - (mr.address() & 7)) & 7);
  }

  private static ByteBuffer le(MemoryRegion mr) {
    return mr.buffer().order(ByteOrder.LITTLE_ENDIAN);
  }

  /** The remote target: the peer's first aligned word. */
  private static long target(RcResources r) {
    return (r.remote().addr() + 7) & ~7L;
  }

  private static SendWr fetchAdd(RcResources r, long wrId, int localOffset, long add) {
    return new SendWr().wrId(wrId).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
        .sge(r.mr(), localOffset, 8).atomic(target(r), r.remote().rkey(), add, 0);
  }

  private static SendWr cmpSwap(RcResources r, long wrId, long compare, long swap) {
    return new SendWr().wrId(wrId).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).signaled(true)
        .sge(r.mr(), RESULT_OFFSET, 8).atomic(target(r), r.remote().rkey(), compare, swap);
  }

  /** Scenario 24: FETCH_ADD of 0x0202… on 0x0101…: remote 0x0303…, local 0x0101…, WC FETCH_ADD; both directions. */
  @Test
  public void fetchAndAddReturnsTheOldValueAndAddsInBothDirections() {
    twoSided("fetchAndAddReturnsTheOldValueAndAddsInBothDirectionsBody");
  }

  /**
   * Body of {@link #fetchAndAddReturnsTheOldValueAndAddsInBothDirections()}.
   *
   * @param p the rank
   */
  public void fetchAndAddReturnsTheOldValueAndAddsInBothDirectionsBody(Peer p) {
    assumeAtomics(p);
    try (RcResources r = new RcResources(p, atomicOptions()).connect()) {
      int mine = aligned(r.mr());
      for (int initiator = 0; initiator < 2; initiator++) {
        le(r.mr()).putLong(mine, ONES);
        le(r.mr()).putLong(RESULT_OFFSET, 0);
        p.barrier("set-" + initiator);
        if (p.rank() == initiator) {
          r.qp().postSend(fetchAdd(r, 24, RESULT_OFFSET, TWOS));
          WorkCompletion wc = p.pollOne(r.cq());
          assertWc(wc, 24, WcStatus.SUCCESS, WcOpcode.FETCH_ADD, r.qp().qpNum());
          assertEquals(8, wc.byteLen());
          assertEquals(ONES, le(r.mr()).getLong(RESULT_OFFSET), "the local SGE gets the original remote value");
        }
        p.barrier("added-" + initiator);
        if (p.rank() != initiator) {
          assertEquals(THREES, le(r.mr()).getLong(mine), "the remote value becomes old + add");
        }
      }
    }
  }

  /** Scenario 25: CMP_SWP with compare ≠ remote leaves it; with compare = remote swaps; the old value comes back. */
  @Test
  public void compareAndSwapSwapsOnlyWhenEqual() {
    twoSided("compareAndSwapSwapsOnlyWhenEqualBody");
  }

  /**
   * Body of {@link #compareAndSwapSwapsOnlyWhenEqual()}.
   *
   * @param p the rank
   */
  public void compareAndSwapSwapsOnlyWhenEqualBody(Peer p) {
    assumeAtomics(p);
    try (RcResources r = new RcResources(p, atomicOptions()).connect()) {
      if (p.rank() == 1) {
        le(r.mr()).putLong(aligned(r.mr()), ONES);
      }
      p.barrier("set");
      if (p.rank() == 0) {
        r.qp().postSend(cmpSwap(r, 1, TWOS, THREES));
        assertWc(p.pollOne(r.cq()), 1, WcStatus.SUCCESS, WcOpcode.COMP_SWAP, r.qp().qpNum());
        assertEquals(ONES, le(r.mr()).getLong(RESULT_OFFSET));
      }
      p.barrier("not-swapped");
      if (p.rank() == 1) {
        assertEquals(ONES, le(r.mr()).getLong(aligned(r.mr())), "compare != remote: unchanged");
      }
      p.barrier("checked");
      if (p.rank() == 0) {
        le(r.mr()).putLong(RESULT_OFFSET, 0);
        r.qp().postSend(cmpSwap(r, 2, ONES, 0));
        assertWc(p.pollOne(r.cq()), 2, WcStatus.SUCCESS, WcOpcode.COMP_SWAP, r.qp().qpNum());
        assertEquals(ONES, le(r.mr()).getLong(RESULT_OFFSET));
      }
      p.barrier("swapped");
      if (p.rank() == 1) {
        assertEquals(0, le(r.mr()).getLong(aligned(r.mr())), "compare == remote: swapped");
      }
    }
  }

  /** Scenario 26: K back-to-back FETCH_ADDs beyond max_rd_atomic all succeed, in order; remote = v + K·add. */
  @Test
  public void backToBackFetchAndAddsBeyondMaxRdAtomicAllSucceed() {
    twoSided("backToBackFetchAndAddsBeyondMaxRdAtomicAllSucceedBody");
  }

  /**
   * Body of {@link #backToBackFetchAndAddsBeyondMaxRdAtomicAllSucceed()}.
   *
   * @param p the rank
   */
  public void backToBackFetchAndAddsBeyondMaxRdAtomicAllSucceedBody(Peer p) {
    assumeAtomics(p);
    int k = 8;
    try (RcResources r = new RcResources(p, atomicOptions().maxRdAtomic(1)).connect()) {
      if (p.rank() == 1) {
        le(r.mr()).putLong(aligned(r.mr()), 5);
      }
      p.barrier("set");
      if (p.rank() == 0) {
        for (int i = 0; i < k; i++) {
          r.qp().postSend(fetchAdd(r, i, RESULT_OFFSET + 8 * i, 3));
        }
        List<WorkCompletion> wcs = p.pollUntil(r.cq(), k);
        for (int i = 0; i < k; i++) {
          assertWc(wcs.get(i), i, WcStatus.SUCCESS, WcOpcode.FETCH_ADD, r.qp().qpNum());
          assertEquals(5 + 3L * i, le(r.mr()).getLong(RESULT_OFFSET + 8 * i), "result of atomic " + i);
        }
      }
      p.barrier("added");
      if (p.rank() == 1) {
        assertEquals(5 + 3L * k, le(r.mr()).getLong(aligned(r.mr())));
      }
    }
  }

  /** CONFORMANCE.md: the remote operand is a little-endian u64 in memory and the result is stored little-endian. */
  @Test
  public void atomicOperandsAreLittleEndianInMemory() {
    twoSided("atomicOperandsAreLittleEndianInMemoryBody");
  }

  /**
   * Body of {@link #atomicOperandsAreLittleEndianInMemory()}.
   *
   * @param p the rank
   */
  public void atomicOperandsAreLittleEndianInMemoryBody(Peer p) {
    assumeAtomics(p);
    try (RcResources r = new RcResources(p, atomicOptions()).connect()) {
      int off = aligned(r.mr());
      if (p.rank() == 1) {
        ByteBuffer b = r.mr().buffer();
        for (int i = 0; i < 8; i++) {
          b.put(off + i, (byte) (8 - i)); // bytes 08 07 06 05 04 03 02 01 = LE 0x0102030405060708
        }
      }
      p.barrier("set");
      if (p.rank() == 0) {
        r.qp().postSend(fetchAdd(r, 1, RESULT_OFFSET, 0x10));
        assertWc(p.pollOne(r.cq()), 1, WcStatus.SUCCESS, WcOpcode.FETCH_ADD, r.qp().qpNum());
        ByteBuffer b = r.mr().buffer();
        for (int i = 0; i < 8; i++) {
          assertEquals((byte) (8 - i), b.get(RESULT_OFFSET + i), "result byte " + i);
        }
      }
      p.barrier("added");
      if (p.rank() == 1) {
        ByteBuffer b = r.mr().buffer();
        assertEquals((byte) 0x18, b.get(off), "least significant byte first");
        for (int i = 1; i < 8; i++) {
          assertEquals((byte) (8 - i), b.get(off + i), "remote byte " + i);
        }
      }
    }
  }

  /** Scenario 38: an atomic whose local SGE has lkey + 1 completes LOC_PROT_ERR and the QP enters ERR. */
  @Test
  public void atomicWithABadLkeyCompletesWithLocProtErrAndTheQpEntersErr() {
    twoSided("atomicWithABadLkeyCompletesWithLocProtErrAndTheQpEntersErrBody");
  }

  /**
   * Body of {@link #atomicWithABadLkeyCompletesWithLocProtErrAndTheQpEntersErr()}.
   *
   * @param p the rank
   */
  public void atomicWithABadLkeyCompletesWithLocProtErrAndTheQpEntersErrBody(Peer p) {
    assumeAtomics(p);
    try (RcResources r = new RcResources(p, atomicOptions()).connect()) {
      p.barrier("connected");
      if (p.rank() == 0) {
        r.qp().postSend(fetchAdd(r, 38, RESULT_OFFSET, 1).sgList(new Sge(r.mr().address() + RESULT_OFFSET, 8,
            r.mr().lkey() + 1)));
        WorkCompletion wc = p.pollOne(r.cq());
        assertErrWc(wc, 38, WcStatus.LOC_PROT_ERR, r.qp().qpNum());
        assertEquals(WcOpcode.FETCH_ADD, wc.opcode(), "verbs4j fills the opcode of a failed WR");
        p.awaitState(r.qp(), QpState.ERR);
      }
      p.barrier("done");
    }
  }

  /** Scenario 39: an atomic with rkey + 1 completes REM_ACCESS_ERR; both QPs end in ERR. */
  @Test
  public void atomicWithABadRkeyCompletesWithRemoteAccessError() {
    twoSided("atomicWithABadRkeyCompletesWithRemoteAccessErrorBody");
  }

  /**
   * Body of {@link #atomicWithABadRkeyCompletesWithRemoteAccessError()}.
   *
   * @param p the rank
   */
  public void atomicWithABadRkeyCompletesWithRemoteAccessErrorBody(Peer p) {
    assumeAtomics(p);
    try (RcResources r = new RcResources(p, atomicOptions()).connect()) {
      p.barrier("connected");
      if (p.rank() == 0) {
        r.qp().postSend(fetchAdd(r, 39, RESULT_OFFSET, 1).atomic(target(r), r.remote().rkey() + 1, 1, 0));
        assertErrWc(p.pollOne(r.cq()), 39, WcStatus.REM_ACCESS_ERR, r.qp().qpNum());
      }
      p.barrier("done");
      p.awaitState(r.qp(), QpState.ERR);
    }
  }

  /** Scenario 40: an atomic to a remote region registered without REMOTE_ATOMIC completes REM_ACCESS_ERR. */
  @Test
  public void atomicToARegionWithoutRemoteAtomicCompletesWithRemoteAccessError() {
    twoSided("atomicToARegionWithoutRemoteAtomicCompletesWithRemoteAccessErrorBody");
  }

  /**
   * Body of {@link #atomicToARegionWithoutRemoteAtomicCompletesWithRemoteAccessError()}.
   *
   * @param p the rank
   */
  public void atomicToARegionWithoutRemoteAtomicCompletesWithRemoteAccessErrorBody(Peer p) {
    assumeAtomics(p);
    try (RcResources r = new RcResources(p, atomicOptions()).connect();
        MemoryRegion localOnly = r.pd().allocateMemory(64, EnumSet.of(Access.LOCAL_WRITE))) {
      long[] theirs = p.exchange("local-only", (localOnly.address() + 7) & ~7L, localOnly.rkey());
      if (p.rank() == 0) {
        r.qp().postSend(fetchAdd(r, 40, RESULT_OFFSET, 1).atomic(theirs[0], (int) theirs[1], 1, 0));
        assertErrWc(p.pollOne(r.cq()), 40, WcStatus.REM_ACCESS_ERR, r.qp().qpNum());
      }
      p.barrier("done");
      p.awaitState(r.qp(), QpState.ERR);
    }
  }

  /** Scenario 41 (CONFORMANCE.md): an atomic to a responder QP without REMOTE_ATOMIC access completes REM_ACCESS_ERR. */
  @Test
  public void atomicToAQpWithoutRemoteAtomicAccessCompletesWithRemoteAccessError() {
    twoSided("atomicToAQpWithoutRemoteAtomicAccessCompletesWithRemoteAccessErrorBody");
  }

  /**
   * Body of {@link #atomicToAQpWithoutRemoteAtomicAccessCompletesWithRemoteAccessError()}.
   *
   * @param p the rank
   */
  public void atomicToAQpWithoutRemoteAtomicAccessCompletesWithRemoteAccessErrorBody(Peer p) {
    assumeAtomics(p);
    RcResources.Options o = atomicOptions();
    if (p.rank() == 1) {
      o.qpAccess(EnumSet.of(Access.LOCAL_WRITE));
    }
    try (RcResources r = new RcResources(p, o).connect()) {
      p.barrier("connected");
      if (p.rank() == 0) {
        r.qp().postSend(fetchAdd(r, 41, RESULT_OFFSET, 1));
        assertErrWc(p.pollOne(r.cq()), 41, WcStatus.REM_ACCESS_ERR, r.qp().qpNum());
      }
      p.barrier("done");
      p.awaitState(r.qp(), QpState.ERR);
      if (p.rank() == 1) {
        assertEquals(0, le(r.mr()).getLong(aligned(r.mr())), "the target word is untouched");
      }
    }
  }

  /** Scenario 42 (CONFORMANCE.md): an atomic at remote_addr + 1 (9-byte message) fails with EINVAL at post. */
  @Test
  public void misalignedAtomicFailsWithEinvalAtPost() {
    twoSided("misalignedAtomicFailsWithEinvalAtPostBody");
  }

  /**
   * Body of {@link #misalignedAtomicFailsWithEinvalAtPost()}.
   *
   * @param p the rank
   */
  public void misalignedAtomicFailsWithEinvalAtPostBody(Peer p) {
    assumeAtomics(p);
    try (RcResources r = new RcResources(p, atomicOptions()).connect()) {
      p.barrier("connected");
      if (p.rank() == 0) {
        SendWr wr = new SendWr().wrId(42).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
            .sge(r.mr(), RESULT_OFFSET, 9).atomic(target(r) + 1, r.remote().rkey(), 1, 0);
        VerbsException e = KitAssertions.assertErrno(Errno.EINVAL, () -> r.qp().postSend(wr));
        assertEquals(0, e.badWrIndex());
        p.expectNoCompletion(r.cq(), Peer.QUIET);
        assertEquals(QpState.RTS, r.qp().state(), "a post-time error does not change the QP state");
      }
      p.barrier("done");
    }
  }
}
