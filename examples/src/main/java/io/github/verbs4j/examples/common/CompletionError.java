package io.github.verbs4j.examples.common;

import io.github.verbs4j.verbs.WorkCompletion;

/**
 * A completion with an error status ended a program. The message is perftest's report for it
 * ({@code NOTIFY_COMP_ERROR_SEND/RECV}): which side, the status and its number, the WR id, the
 * vendor syndrome and the post/completion counters.
 */
public final class CompletionError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private CompletionError(String message) {
    super(message);
  }

  /**
   * @param side {@code client} or {@code server}
   * @param wc the failed completion
   * @param scnt WRs posted so far
   * @param ccnt WRs completed so far
   * @return the error
   */
  public static CompletionError of(String side, WorkCompletion wc, long scnt, long ccnt) {
    return of(side, wc, scnt, ccnt, null);
  }

  /**
   * @param side {@code client} or {@code server}
   * @param wc the failed completion
   * @param scnt WRs posted so far
   * @param ccnt WRs completed so far
   * @param cause the first error found in the other CQ (the likely cause of a flush), or null
   * @return the error
   */
  public static CompletionError of(String side, WorkCompletion wc, long scnt, long ccnt, String cause) {
    return new CompletionError(" Completion with error at " + side + ":\n Failed status " + wc.status().str()
        + " (" + wc.status().value() + "): wr_id " + wc.wrId() + " syndrom 0x" + Integer.toHexString(wc.vendorErr())
        + "\n scnt=" + scnt + ", ccnt=" + ccnt + (cause != null ? "\n First error on the " + cause : ""));
  }
}
