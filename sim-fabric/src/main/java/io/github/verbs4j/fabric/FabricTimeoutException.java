package io.github.verbs4j.fabric;

/** A blocking fabric call ({@code kvGet}, {@code barrier}, join) did not complete in time. */
public class FabricTimeoutException extends FabricException {
  private static final long serialVersionUID = 1L;

  /** @param message what timed out, naming the key or barrier and the timeout */
  public FabricTimeoutException(String message) {
    super(message);
  }
}
