package io.github.verbs4j.ib.engine;

/**
 * How the device controls the flow into a shared receive queue that runs dry (seed 002), and the
 * size of the table the stop/resend mechanism keeps per SRQ. Immutable.
 *
 * @param mode {@link Mode#RNR} (IBTA: an RNR NAK, the sender retries after its RNR timer) or
 *     {@link Mode#STOP_RESEND} (seed 002: a stop request, then a resend request once the device
 *     polls receive WQEs in the SRQ)
 * @param tableNodes source nodes (LIDs 0 .. tableNodes-1) the retransmission management table
 *     covers; the paper sizes it for 4 K nodes
 * @param tableProcs sender processes (QPs) per node the table covers; the paper: 256
 * @param pollNanos how often the device polls an SRQ with stopped senders for receive WQEs: the
 *     paper's t_poll, 2.18 us measured on ConnectX-3 (seed 002 §4.1.3)
 */
public record SrqFlowParams(Mode mode, int tableNodes, int tableProcs, long pollNanos) {
  /** The flow control an empty SRQ applies. */
  public enum Mode {
    /** RNR NAK (IBA 9.7.5.2.8): today's behaviour and the IBTA one. */
    RNR,
    /** Seed 002: stop request, retransmission management table, resend request. */
    STOP_RESEND
  }

  /** The paper's table: 4 K nodes. */
  public static final int DEFAULT_TABLE_NODES = 4096;
  /** The paper's table: 256 processes per node. */
  public static final int DEFAULT_TABLE_PROCS = 256;
  /** t_poll of seed 002 §4.1.3: 2.18 us. */
  public static final long PAPER_POLL_NANOS = 2_180;
  /** The default: RNR NAKs, the paper's table size and poll interval for when stop-resend is chosen. */
  public static final SrqFlowParams DEFAULT = new SrqFlowParams(Mode.RNR, DEFAULT_TABLE_NODES, DEFAULT_TABLE_PROCS,
      PAPER_POLL_NANOS);

  /** Validates. */
  public SrqFlowParams {
    if (mode == null) {
      throw new IllegalArgumentException("srq flow control mode is null");
    }
    if (tableNodes < 1 || tableNodes > 1 << 16) {
      throw new IllegalArgumentException("srq table nodes=" + tableNodes + " is outside [1, 65536]");
    }
    if (tableProcs < 1 || tableProcs > 1 << 16) {
      throw new IllegalArgumentException("srq table processes=" + tableProcs + " is outside [1, 65536]");
    }
    if ((long) tableNodes * tableProcs > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("srq table nodes=" + tableNodes + " x processes=" + tableProcs
          + " exceeds 2^31-1 slots");
    }
    if (pollNanos < 1) {
      throw new IllegalArgumentException("srq poll interval=" + pollNanos + " ns is not positive");
    }
  }

  /** @return whether empty SRQs stop their senders */
  public boolean stopResend() {
    return mode == Mode.STOP_RESEND;
  }

  /** @return the table's nominal size in bytes if it were allocated whole (nodes x processes bits) */
  public long nominalTableBytes() {
    return (long) tableNodes * tableProcs / 8;
  }
}
