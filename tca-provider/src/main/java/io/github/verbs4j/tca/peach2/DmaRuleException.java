package io.github.verbs4j.tca.peach2;

/**
 * A DMA request broke a hardware rule. The controller checks the whole chain before it moves
 * anything, so when this is thrown no byte of the request has been written anywhere.
 */
public final class DmaRuleException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final DmaRule rule;
  private final int descriptor;

  /**
   * @param rule the rule broken
   * @param descriptor index of the offending descriptor in the chain (0-based)
   * @param message what was wrong: field, value, rule
   */
  public DmaRuleException(DmaRule rule, int descriptor, String message) {
    super(message + " (descriptor #" + descriptor + "; no bytes moved)");
    this.rule = rule;
    this.descriptor = descriptor;
  }

  /** @return the rule broken */
  public DmaRule rule() {
    return rule;
  }

  /** @return the offending descriptor's index in the chain */
  public int descriptor() {
    return descriptor;
  }
}
