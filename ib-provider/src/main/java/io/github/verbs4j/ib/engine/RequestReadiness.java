package io.github.verbs4j.ib.engine;

/**
 * When a requester's packet may start, in modelled time. A first transmission starts at its WQE's
 * doorbell, not at the port clock, which received packets may have moved on meanwhile (the engine
 * takes a WQE up late in wall time); but a WQE that waited on the peer (the window, rd_atomic
 * credits, a fence, a recovery) starts no earlier than the event that let it go on. A
 * retransmission starts now. Under the agent.
 */
final class RequestReadiness {
  private boolean stalled;
  private long resumeAt = Long.MIN_VALUE;

  /** Sending stopped to wait on the peer. */
  void stall() {
    stalled = true;
  }

  /**
   * Something that may let a stalled requester go on happened at {@code t} (an ACK processed then,
   * or the engine's next run).
   */
  void resume(long t) {
    if (stalled) {
      stalled = false;
      resumeAt = Math.max(resumeAt, t);
    }
  }

  /**
   * @param w the WQE
   * @param retransmit whether the packet was sent before
   * @param now the port clock
   * @return when the packet may start
   */
  long readyAt(SendWqe w, boolean retransmit, long now) {
    return retransmit || w.postTime == Long.MIN_VALUE ? now : Math.max(w.postTime, resumeAt);
  }
}
