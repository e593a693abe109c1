package io.github.verbs4j.fabric;

/** A control-plane failure of the fabric: coordinator unreachable, join refused, bad state. */
public class FabricException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** @param message what failed, naming the field and value */
  public FabricException(String message) {
    super(message);
  }

  /**
   * @param message what failed
   * @param cause the cause
   */
  public FabricException(String message, Throwable cause) {
    super(message, cause);
  }
}
