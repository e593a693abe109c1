package io.github.verbs4j.examples.mp;

/**
 * A message-passing operation failed: a truncated message, a failed completion, a timeout, or a
 * communicator used after close. The message names the operation, peer and tag.
 */
public class MpException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** @param message what failed */
  public MpException(String message) {
    super(message);
  }

  /**
   * @param message what failed
   * @param cause the underlying failure
   */
  public MpException(String message, Throwable cause) {
    super(message, cause);
  }
}
