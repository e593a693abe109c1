package io.github.verbs4j.examples.mp;

/**
 * A message-passing operation failed: a truncated message, a failed completion, a timeout, or a
 * communicator used after close. The message names the operation, peer and tag.
 */
public class MpException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  /** The peer a timed-out request names, else -1. */
  private final int peer;

  /** @param message what failed */
  public MpException(String message) {
    this(message, -1);
  }

  /**
   * @param message what failed
   * @param peer the peer of the request that timed out (-1 for none or any)
   */
  public MpException(String message, int peer) {
    super(message);
    this.peer = peer;
  }

  /**
   * @param message what failed
   * @param cause the underlying failure
   */
  public MpException(String message, Throwable cause) {
    super(message, cause);
    this.peer = -1;
  }

  /** @return the peer of the request that timed out, else -1 (any source, or not a timeout) */
  public int peer() {
    return peer;
  }
}
