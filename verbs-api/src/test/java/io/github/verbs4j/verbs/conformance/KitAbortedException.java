package io.github.verbs4j.verbs.conformance;

/**
 * Thrown inside a rank's body by a {@link Peer} wait when the other rank has already failed, been
 * skipped or timed out, so that the surviving rank stops at once instead of waiting for its own
 * timeout. The harness reports the other rank's failure, not this.
 */
public final class KitAbortedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  KitAbortedException(String message) {
    super(message);
  }
}
