package io.github.verbs4j.verbs.conformance;

/** A job-wide "stop": set by the harness when a rank failed, read by every {@link Peer} wait. */
final class AbortSignal {
  private volatile String reason;

  void abort(String why) {
    if (reason == null) {
      reason = why;
    }
  }

  boolean isAborted() {
    return reason != null;
  }

  void check(int rank) {
    String r = reason;
    if (r != null) {
      throw new KitAbortedException("rank " + rank + " stopped: " + r);
    }
  }
}
