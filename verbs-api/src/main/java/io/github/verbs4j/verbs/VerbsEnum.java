package io.github.verbs4j.verbs;

/**
 * An enum that mirrors a verbs.h enum and carries that enum's exact numeric value.
 *
 * <p>The value is the ABI: it is what libibverbs programs, wire formats and test tables use.
 * {@link Enum#ordinal()} is never used as a value (DiSNI's status enum did, and drifted).
 */
public interface VerbsEnum {
  /** The numeric value exactly as in verbs.h. */
  int value();
}
