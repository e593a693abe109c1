package io.github.verbs4j.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * A region that goes away while a peer reads it, and the fence between a READ and a WRITE to the
 * same memory (issue #23). {@code ibv_dereg_mr(3)}: once it returns, the region's keys give no more
 * access, so a READ that is still being served either completes with bytes the region held before
 * the deregistration returned or fails with {@code IBV_WC_REM_ACCESS_ERR}; it never returns bytes
 * the application wrote into the memory afterwards. {@code IBV_SEND_FENCE} ({@code
 * ibv_post_send(3)}): the fenced WR starts only when the READs before it have completed, so a READ
 * followed by a fenced WRITE to the same address returns the old bytes. Subclass it and return your
 * {@link KitEnvironment}; see {@link AbstractConformance}.
 */
public abstract class DeregDuringTransferConformance extends AbstractConformance {
  private static final int SIZE = 4 * 1024 * 1024;
  private static final int ROUNDS = 100;
  /** Rank 1 deregisters 0 to this many nanoseconds after the start barrier, a twentieth more each round. */
  private static final long SPREAD_NANOS = 3_000_000;

  private static RcResources.Options options() {
    // timeout 18 (1.07 s), retry_cnt 7: the scenario tests access, not loss; a loaded machine may
    // hold a rank's threads up for longer than the default timeout
    return RcResources.options().mrSize(64).cap(QpCap.builder().maxSendWr(8).maxRecvWr(8).build()).retryCnt(7)
        .timeout(18);
  }

  /**
   * Beyond pyverbs: 100 times, rank 1 deregisters a 4 MiB region at a different moment of a READ
   * of it by rank 0 and at once overwrites the memory; the READ either completes with the old
   * bytes only or ends in REM_ACCESS_ERR.
   */
  @Test
  public void readOfRegionDeregisteredMidTransferNeverReturnsLaterBytes() {
    twoSided("readOfRegionDeregisteredMidTransferNeverReturnsLaterBytesBody");
  }

  /**
   * Body of {@link #readOfRegionDeregisteredMidTransferNeverReturnsLaterBytes()}.
   *
   * @param p the rank
   */
  public void readOfRegionDeregisteredMidTransferNeverReturnsLaterBytesBody(Peer p) {
    readDuringDereg(p, false, ROUNDS);
  }

  /**
   * Beyond pyverbs: the same 40 times with a region from {@code allocateMemory}, whose memory the
   * provider may free when the region closes (issue #20): the READ completes with the region's
   * bytes or ends in REM_ACCESS_ERR, and the device never reads the memory after dereg returned
   * (that would read freed memory: wrong bytes or a crashed JVM).
   */
  @Test
  public void readOfAllocatedRegionFreedMidTransferNeverTouchesFreedMemory() {
    twoSided("readOfAllocatedRegionFreedMidTransferNeverTouchesFreedMemoryBody");
  }

  /**
   * Body of {@link #readOfAllocatedRegionFreedMidTransferNeverTouchesFreedMemory()}.
   *
   * @param p the rank
   */
  public void readOfAllocatedRegionFreedMidTransferNeverTouchesFreedMemoryBody(Peer p) {
    readDuringDereg(p, true, 40);
  }

  private void readDuringDereg(Peer p, boolean allocated, int rounds) {
    ByteBuffer memory = allocated ? null : ByteBuffer.allocateDirect(SIZE);
    int succeeded = 0;
    int failed = 0;
    for (int round = 0; round < rounds; round++) {
      byte before = (byte) (2 * round + 1);
      byte after = (byte) 0xB5;
      try (RcResources r = new RcResources(p, options()).connect()) {
        if (p.rank() == 1) {
          EnumSet<Access> access = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ);
          MemoryRegion mr;
          if (allocated) {
            mr = r.pd().allocateMemory(SIZE, access);
            Traffic.fill(mr.buffer(), 0, SIZE, before);
          } else {
            Traffic.fill(memory, 0, SIZE, before);
            mr = r.pd().registerMemory(memory, access);
          }
          p.exchange("dereg-region-" + round, mr.rkey(), mr.iova());
          p.barrier("dereg-go-" + round);
          // a different moment of the transfer each round, from before it starts to after it ends
          LockSupport.parkNanos(SPREAD_NANOS * (round % 20) / 20);
          mr.close();
          if (!allocated) {
            Traffic.fill(memory, 0, SIZE, after); // after dereg returned: a READ must never see these
          }
          p.barrier("dereg-done-" + round);
        } else {
          ByteBuffer landing = ByteBuffer.allocateDirect(SIZE);
          try (MemoryRegion mine = r.pd().registerMemory(landing, EnumSet.of(Access.LOCAL_WRITE))) {
            long[] t = p.exchange("dereg-region-" + round, 0, 0);
            p.barrier("dereg-go-" + round);
            r.qp().postSend(new SendWr().wrId(round).opcode(WrOpcode.RDMA_READ).signaled(true)
                .sge(mine, 0, SIZE).rdma(t[1], (int) t[0]));
            WorkCompletion wc = p.pollOne(r.cq());
            assertEquals(round, wc.wrId(), "wr_id");
            if (wc.status() == WcStatus.SUCCESS) {
              assertEquals(WcOpcode.RDMA_READ, wc.opcode(), "opcode");
              for (int i = 0; i < SIZE; i++) {
                if (landing.get(i) != before) {
                  fail("round " + round + ": a READ that succeeded returned 0x"
                      + Integer.toHexString(landing.get(i) & 0xff) + " at offset " + i + ", not 0x"
                      + Integer.toHexString(before & 0xff) + (landing.get(i) == after
                      ? " (written after the region was deregistered)" : ""));
                }
              }
              succeeded++;
            } else {
              assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(), "round " + round + ": status of a READ whose "
                  + "region was deregistered");
              failed++;
            }
            p.barrier("dereg-done-" + round);
          }
        }
      }
    }
    if (p.rank() == 0) {
      assertEquals(rounds, succeeded + failed, "READs completed");
      assertTrue(failed > 0, "no round deregistered the region before or during its READ (" + succeeded
          + " succeeded): the scenario did not test anything");
    }
  }

  /**
   * Beyond pyverbs: a READ followed by a WRITE with {@code IBV_SEND_FENCE} to the same remote
   * bytes returns the bytes from before the WRITE, for a short and a long (4 MiB) READ.
   */
  @Test
  public void fencedWriteAfterReadDoesNotChangeWhatTheReadReturns() {
    twoSided("fencedWriteAfterReadDoesNotChangeWhatTheReadReturnsBody");
  }

  /**
   * Body of {@link #fencedWriteAfterReadDoesNotChangeWhatTheReadReturns()}.
   *
   * @param p the rank
   */
  public void fencedWriteAfterReadDoesNotChangeWhatTheReadReturnsBody(Peer p) {
    int[] lengths = {8, 64 * 1024, SIZE};
    try (RcResources r = new RcResources(p, options().mrSize(2L * SIZE)).connect()) {
      ByteBuffer b = r.buffer();
      for (int k = 0; k < lengths.length; k++) {
        int len = lengths[k];
        long oldSeed = 4200 + k;
        long newSeed = 4300 + k;
        if (p.rank() == 1) {
          Patterns.fill(b, 0, len, oldSeed);
        } else {
          Traffic.fill(b, 0, len, (byte) 0);
          Patterns.fill(b, SIZE, len, newSeed);
        }
        p.barrier("fence-go-" + k);
        if (p.rank() == 0) {
          long remote = r.remote().addr();
          int rkey = r.remote().rkey();
          SendWr read = new SendWr().wrId(2 * k).opcode(WrOpcode.RDMA_READ).signaled(true).sge(r.mr(), 0, len)
              .rdma(remote, rkey);
          SendWr write = new SendWr().wrId(2 * k + 1).opcode(WrOpcode.RDMA_WRITE).signaled(true).fence(true)
              .sge(r.mr(), SIZE, len).rdma(remote, rkey);
          r.qp().postSend(read.next(write));
          List<WorkCompletion> wcs = p.pollUntil(r.cq(), 2);
          KitAssertions.assertWc(wcs.get(0), 2 * k, WcStatus.SUCCESS, WcOpcode.RDMA_READ, r.qp().qpNum());
          KitAssertions.assertWc(wcs.get(1), 2 * k + 1, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, r.qp().qpNum());
          Patterns.verify("READ of " + len + " bytes before a fenced WRITE to them", b, 0, len, oldSeed);
        }
        p.barrier("fence-done-" + k);
        if (p.rank() == 1) {
          Patterns.verify("the fenced WRITE of " + len + " bytes", b, 0, len, newSeed);
        }
      }
    }
  }
}
