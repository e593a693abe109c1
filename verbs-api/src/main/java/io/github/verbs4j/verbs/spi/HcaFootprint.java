package io.github.verbs4j.verbs.spi;

import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpType;

/**
 * The host memory a verbs object would hold on a real HCA with its user-space driver, modelled on
 * mlx5 (rdma-core {@code providers/mlx5}): queue buffers of WQEs and CQEs sized and rounded the way
 * the driver sizes them, the driver's per-WQE bookkeeping, and a fixed struct per object. HCA-side
 * state (QP contexts, MTTs in the adapter's memory) and kernel memory are not counted, as in seed
 * 003's accounting (§2.3). {@code verbs4j memory-model} shares the CQ size and checks the RC QP
 * this predicts against the one the paper measured; each constant says where it comes from.
 */
public final class HcaFootprint {
  /** Send WQE basic block: MLX5_SEND_WQE_BB (rdma-core mlx5 {@code wqe.h}). */
  public static final int SEND_WQE_BB = 64;
  /** Control segment of a send WQE: struct mlx5_wqe_ctrl_seg. */
  public static final int CTRL_SEG = 16;
  /** Remote-address segment: struct mlx5_wqe_raddr_seg. */
  public static final int RADDR_SEG = 16;
  /** Atomic segment: struct mlx5_wqe_atomic_seg (RC WQEs make room for one, mlx5 sq_overhead). */
  public static final int ATOMIC_SEG = 16;
  /** Datagram segment (address vector): struct mlx5_wqe_datagram_seg (UD and DCI WQEs). */
  public static final int DATAGRAM_SEG = 48;
  /** Scatter/gather entry: struct mlx5_wqe_data_seg, in send and receive WQEs. */
  public static final int DATA_SEG = 16;
  /** Header of an inline-data segment: struct mlx5_wqe_inl_data_seg. */
  public static final int INLINE_SEG = 4;
  /** Next-WQE segment of an SRQ WQE: struct mlx5_wqe_srq_next_seg. */
  public static final int SRQ_NEXT_SEG = 16;
  /** A CQE: struct mlx5_cqe64. */
  public static final int CQE = 64;
  /** Driver bookkeeping per send WQE basic block: wrid (8), wqe_head (4), wr_data (4). */
  public static final int SQ_WQE_TRACKING = 16;
  /** Driver bookkeeping per receive or SRQ WQE: wrid (8). */
  public static final int RQ_WQE_TRACKING = 8;
  /** Queue buffers are page-aligned allocations. */
  public static final int PAGE = 4096;
  /** Doorbell record (one per QP, CQ and SRQ; mlx5 hands them out of shared pages). */
  public static final int DOORBELL = 64;
  /** Memory-region metadata per registration: seed 003 §2.3.4 ("1登録あたり 128 B"). */
  public static final int MR = 128;
  /** CQ struct: seed 003 §2.3.3 measures 672 B for the receive and result CQ together. */
  public static final int CQ_STRUCT = 672 / 2;
  /** Assumption: the driver's QP struct (struct mlx5_qp with its verbs_qp; order of rdma-core's). */
  public static final int QP_STRUCT = 768;
  /** Assumption: the driver's SRQ struct (struct mlx5_srq). */
  public static final int SRQ_STRUCT = 256;
  /** Assumption: PD struct (struct mlx5_pd). */
  public static final int PD_STRUCT = 64;
  /** Assumption: AH struct (struct mlx5_ah with its address vector). */
  public static final int AH_STRUCT = 128;
  /** Assumption: the context struct (struct mlx5_context) plus one doorbell (UAR) page. */
  public static final int CONTEXT = 4096 + PAGE;

  private HcaFootprint() {}

  /**
   * @param v a positive count
   * @return the smallest power of two at least {@code v}
   */
  static long pow2(long v) {
    return v <= 1 ? 1 : Long.highestOneBit(v - 1) << 1;
  }

  private static long align(long v, long to) {
    return (v + to - 1) / to * to;
  }

  /** @return the bytes of a context */
  public static long context() {
    return CONTEXT;
  }

  /** @return the bytes of a PD */
  public static long pd() {
    return PD_STRUCT;
  }

  /** @return the metadata bytes of one memory registration */
  public static long mr() {
    return MR;
  }

  /** @return the bytes of an address handle */
  public static long ah() {
    return AH_STRUCT;
  }

  /**
   * A CQ: the driver rounds {@code cqe + 1} up to a power of two (mlx5_create_cq).
   *
   * @param cqe the requested capacity
   * @return its bytes
   */
  public static long cq(int cqe) {
    return CQ_STRUCT + DOORBELL + align(pow2(cqe + 1L) * CQE, PAGE);
  }

  /**
   * An SRQ: WQEs of a next segment and {@code maxSge} data segments, stride and count rounded up
   * to powers of two (mlx5_create_srq).
   *
   * @param maxWr the requested max_wr
   * @param maxSge the requested max_sge
   * @return its bytes
   */
  public static long srq(int maxWr, int maxSge) {
    long count = pow2(maxWr + 1L);
    long stride = pow2(SRQ_NEXT_SEG + (long) DATA_SEG * Math.max(1, maxSge));
    return SRQ_STRUCT + DOORBELL + align(count * stride, PAGE) + count * RQ_WQE_TRACKING;
  }

  /**
   * The send WQE size for a QP type (mlx5_calc_send_wqe): the type's fixed segments plus room for
   * max_send_sge data segments or the inline data, rounded up to whole basic blocks.
   *
   * @param type the QP type
   * @param cap the granted capabilities
   * @return bytes per send WQE
   */
  public static long sendWqe(QpType type, QpCap cap) {
    int overhead = switch (type) {
      case RC -> CTRL_SEG + ATOMIC_SEG + RADDR_SEG;
      case UC -> CTRL_SEG + RADDR_SEG;
      case DCI -> CTRL_SEG + DATAGRAM_SEG + RADDR_SEG;
      default -> CTRL_SEG + DATAGRAM_SEG;
    };
    long gather = overhead + (long) DATA_SEG * cap.maxSendSge();
    long inline = cap.maxInlineData() > 0 ? overhead + align(INLINE_SEG + (long) cap.maxInlineData(), 16) : 0;
    return align(Math.max(gather, inline), SEND_WQE_BB);
  }

  /**
   * A QP, DCI or DCT: the driver struct and doorbell, one page-aligned buffer holding the send
   * queue (max_send_wr WQEs, rounded up to a power of two of basic blocks) and the receive queue
   * (max_recv_wr WQEs of max_recv_sge data segments, count and stride rounded up to powers of two;
   * none with an SRQ), and the per-WQE bookkeeping. A DCT holds only its struct: its receives go
   * through its SRQ and its context lives in the HCA.
   *
   * @param type the QP type
   * @param cap the granted capabilities
   * @param hasSrq whether receives go through an SRQ
   * @return its bytes
   */
  public static long qp(QpType type, QpCap cap, boolean hasSrq) {
    if (type == QpType.DCT) {
      return QP_STRUCT;
    }
    long sqBlocks = 0;
    if (cap.maxSendWr() > 0) {
      long wqe = sendWqe(type, cap);
      sqBlocks = pow2(cap.maxSendWr() * wqe) / SEND_WQE_BB;
    }
    long rqCount = 0;
    long rqStride = 0;
    if (!hasSrq && cap.maxRecvWr() > 0 && type != QpType.DCI) {
      rqCount = pow2(cap.maxRecvWr());
      rqStride = pow2((long) DATA_SEG * Math.max(1, cap.maxRecvSge()));
    }
    long buffer = align(sqBlocks * SEND_WQE_BB + rqCount * rqStride, PAGE);
    return QP_STRUCT + DOORBELL + buffer + sqBlocks * SQ_WQE_TRACKING + rqCount * RQ_WQE_TRACKING;
  }

  /**
   * @param type a QP type
   * @return the component its footprint is counted under
   */
  public static MemoryComponent componentOf(QpType type) {
    return switch (type) {
      case DCI -> MemoryComponent.DCI;
      case DCT -> MemoryComponent.DCT;
      default -> MemoryComponent.QP;
    };
  }
}
