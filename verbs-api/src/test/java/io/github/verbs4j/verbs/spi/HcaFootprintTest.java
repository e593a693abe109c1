package io.github.verbs4j.verbs.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpType;
import org.junit.jupiter.api.Test;

class HcaFootprintTest {
  private static QpCap cap(int sendWr, int recvWr, int sendSge, int recvSge, int inline) {
    return QpCap.builder().maxSendWr(sendWr).maxRecvWr(recvWr).maxSendSge(sendSge).maxRecvSge(recvSge)
        .maxInlineData(inline).build();
  }

  @Test
  void powersOfTwoRoundUp() {
    assertEquals(1, HcaFootprint.pow2(0));
    assertEquals(1, HcaFootprint.pow2(1));
    assertEquals(512, HcaFootprint.pow2(272));
    assertEquals(4096, HcaFootprint.pow2(4096));
    assertEquals(8192, HcaFootprint.pow2(4097));
  }

  @Test
  void sendWqesAreWholeBasicBlocksOfTheTypesSegments() {
    assertEquals(64, HcaFootprint.sendWqe(QpType.RC, cap(1, 1, 1, 1, 0))); // 16+16+16 + 16
    assertEquals(128, HcaFootprint.sendWqe(QpType.RC, cap(1, 1, 2, 1, 0))); // 48 + 32
    assertEquals(64, HcaFootprint.sendWqe(QpType.UC, cap(1, 1, 2, 1, 0))); // 32 + 32
    assertEquals(128, HcaFootprint.sendWqe(QpType.UD, cap(1, 1, 1, 1, 0))); // 64 + 16
    assertEquals(128, HcaFootprint.sendWqe(QpType.DCI, cap(1, 0, 1, 0, 0))); // 80 + 16
    assertEquals(192, HcaFootprint.sendWqe(QpType.RC, cap(1, 1, 1, 1, 128))); // 48 + align(4+128, 16)
  }

  /**
   * Seed 003 §2.3.3 measured 31,152 B for LLC's RC QP (RQ 272, SQ 256 entries) on Connect-IB; the
   * mlx5 layout predicts 768 + 64 + 24,576 (256 × 64 B SQ + 512 × 16 B RQ, page-aligned) + 4,096 +
   * 4,096 (per-WQE bookkeeping) = 33,600 B, 7.9 % more (the measured driver kept less per WQE).
   */
  @Test
  void theSeedsRcQpIsPredictedWithinTenPercent() {
    long qp = HcaFootprint.qp(QpType.RC, cap(256, 272, 1, 1, 0), false);
    assertEquals(33_600, qp);
    assertTrue(Math.abs(qp / 31_152.0 - 1) < 0.10, "predicted " + qp + " vs measured 31152");
  }

  @Test
  void receiveQueuesVanishWithAnSrqAndForDcis() {
    QpCap c = cap(16, 1024, 1, 1, 0);
    long withRq = HcaFootprint.qp(QpType.RC, c, false);
    long withSrq = HcaFootprint.qp(QpType.RC, c, true);
    // SQ 16 × 64 B; RQ 1,024 × 16 B: one buffer of 20,480 B (page-aligned) against 4,096, plus 8 B per RQ WQE.
    assertEquals(20_480 - 4096 + 1024 * 8, withRq - withSrq);
    assertEquals(HcaFootprint.QP_STRUCT, HcaFootprint.qp(QpType.DCT, cap(0, 0, 0, 0, 0), true));
    assertEquals(HcaFootprint.qp(QpType.DCI, cap(100, 0, 1, 0, 0), false),
        HcaFootprint.qp(QpType.DCI, cap(100, 64, 1, 1, 0), false));
  }

  @Test
  void cqsAndSrqsRoundTheirCountsUp() {
    assertEquals(336 + 64 + 4096L * 64, HcaFootprint.cq(4095));
    assertEquals(336 + 64 + 8192L * 64, HcaFootprint.cq(4096));
    // 2,048 WRs of 1 SGE: 4,096 WQEs (max_wr + 1 rounded up) of 32 B, and 8 B of wrid each.
    assertEquals(256 + 64 + 4096L * 32 + 4096L * 8, HcaFootprint.srq(2048, 1));
  }

  @Test
  void dcTypesHaveTheirOwnComponents() {
    assertEquals(MemoryComponent.DCI, HcaFootprint.componentOf(QpType.DCI));
    assertEquals(MemoryComponent.DCT, HcaFootprint.componentOf(QpType.DCT));
    assertEquals(MemoryComponent.QP, HcaFootprint.componentOf(QpType.UD));
  }

  @Test
  void theAccountAddsRecountsAndReleases() {
    MemoryAccount a = new MemoryAccount();
    Object cq = new Object();
    Object qp = new Object();
    a.add(cq, MemoryComponent.CQ, 1000);
    a.add(qp, MemoryComponent.QP, 500);
    assertEquals(1500, a.total());
    a.add(cq, MemoryComponent.CQ, 3000);
    assertEquals(3000, a.bytes(MemoryComponent.CQ));
    assertEquals(1, a.count(MemoryComponent.CQ));
    a.release(cq);
    a.release(cq);
    assertEquals(0, a.bytes(MemoryComponent.CQ));
    assertEquals(500, a.total());
  }
}
