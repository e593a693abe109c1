package io.github.verbs4j.examples.common;

/** A bounded wait of an example program ran out of time; the message says what was awaited. */
public final class WaitTimeoutException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** @param message what was awaited, for how long, and the counters at that moment */
  public WaitTimeoutException(String message) {
    super(message);
  }
}
