package io.github.verbs4j.examples.gmpi;

/**
 * A GMPI call failed: the host daemon reported an error, did not answer within the timeout, or the
 * ring stayed full. The message names the function, the request's ticket and the reason.
 */
public class GmpiException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** @param message what failed */
  public GmpiException(String message) {
    super(message);
  }

  /**
   * @param message what failed
   * @param cause the underlying failure
   */
  public GmpiException(String message, Throwable cause) {
    super(message, cause);
  }
}
