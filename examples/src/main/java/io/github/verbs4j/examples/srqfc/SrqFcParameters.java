package io.github.verbs4j.examples.srqfc;

/**
 * The named primitive parameters of the seed-002 study and the paper's figures they are compared
 * with, each with its source (Tanimoto et al., "共有受信キューに基づくスケーラブルなプロセッサ間通信の提案",
 * IPSJ SIG report; ConnectX-3 FDR, Xeon E5-2690, 64-byte packets, 64 buffers added per refill).
 */
public final class SrqFcParameters {
  /**
   * t_int: from the SRQ_LIMIT_REACHED interrupt to the refill thread running, 35.0 us (§4.1.3,
   * fig. 10; {@code ibv_get_async_event} wake-up).
   */
  public static final long T_INT_NANOS = 35_000;
  /** t_setev: re-arming the limit event on the HCA after the refill, 55.9 us (§4.1.3, fig. 10). */
  public static final long T_SETEV_NANOS = 55_900;
  /**
   * t_poll: from the overflowing packet's send until the receiving side finds it by polling, 2.18
   * us (§4.1.3, fig. 9); the device's SRQ poll interval of {@code verbs.ib.srq-poll-ns}.
   */
  public static final long T_POLL_NANOS = 2_180;
  /** The paper's measured cost of one flow-control event, conventional (limit event), 92.8 us (§4.1.3). */
  public static final long PAPER_LIMIT_EVENT_NANOS = 92_800;
  /** The paper's measured cost of one flow-control event, stop/resend, 4.51 us (§4.1.3). */
  public static final long PAPER_STOP_RESEND_NANOS = 4_510;
  /** The paper's packet size, 64 B (§4.1.2). */
  public static final int PAPER_PACKET_BYTES = 64;

  private SrqFcParameters() {}
}
