package io.github.verbs4j.verbs;

/**
 * A port's transport counters, as the kernel reports them for a port in {@code
 * /sys/class/infiniband/<dev>/ports/<n>/hw_counters/} and {@code rdma statistic show link}: each
 * value here carries the file name soft-RoCE (rxe) gives it ({@link #hwName()}), or mlx5's for the
 * one rxe lacks. libibverbs itself has no call for them; {@link Context#queryPortCounters(int)}
 * reads them. Counts start at 0 when the context opens and only grow. Not a verbs.h enum.
 *
 * <p>They answer what completions cannot: whether a stream that completed successfully got there
 * through RNR NAKs (flow control) or by spending {@code retry_cnt} (loss recovery).
 */
public enum PortCounter {
  /** RNR NAKs this port's requesters received (one {@code rnr_retry} each unless it is 7). */
  RCVD_RNR_ERR("rcvd_rnr_err"),
  /** RNR NAKs this port's responders sent (a request found no receive WQE). */
  SEND_RNR_ERR("send_rnr_err"),
  /** PSN sequence error NAKs this port's requesters received. */
  RCVD_SEQ_ERR("rcvd_seq_err"),
  /**
   * Request packets received with a PSN beyond the expected one: NAKed once per gap, or dropped
   * behind the NAK already sent (a sequence error, or an RNR NAK for an earlier message), or behind
   * a seed-002 stop request.
   */
  OUT_OF_SEQ_REQUEST("out_of_seq_request"),
  /** Duplicate requests received (acknowledged or answered again, never executed twice). */
  DUPLICATE_REQUEST("duplicate_request"),
  /** Local ACK timeouts that expired with requests outstanding (mlx5's name; rxe has none). */
  LOCAL_ACK_TIMEOUT_ERR("local_ack_timeout_err"),
  /**
   * Transport retries: each time a requester spent one of its {@code retry_cnt} (after a local ACK
   * timeout, a PSN sequence error NAK or a lost READ or atomic response) and sent again. RNR
   * retries are not counted here.
   */
  COMPLETER_RETRY_ERR("completer_retry_err"),
  /** Work requests completed with {@link WcStatus#RETRY_EXC_ERR}. */
  RETRY_EXCEEDED_ERR("retry_exceeded_err"),
  /** Work requests completed with {@link WcStatus#RNR_RETRY_EXC_ERR}. */
  RETRY_RNR_EXCEEDED_ERR("retry_rnr_exceeded_err");

  private final String hwName;

  PortCounter(String hwName) {
    this.hwName = hwName;
  }

  /** @return the counter's file name under the kernel's {@code hw_counters} */
  public String hwName() {
    return hwName;
  }
}
