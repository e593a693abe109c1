package io.github.verbs4j.verbs;

/**
 * An address handle ({@code struct ibv_ah}, {@code ibv_create_ah}): the destination of UD sends
 * and DC sends, created by {@link ProtectionDomain#createAh(AhAttr)}. The AH must belong to the
 * same PD as the QP that uses it (else EINVAL at post). Immutable; thread-safe. Closing is
 * idempotent.
 */
public interface AddressHandle extends AutoCloseable {
  /** @return the address vector */
  AhAttr attr();

  /** @return the protection domain */
  ProtectionDomain pd();

  /** Destroys the AH ({@code ibv_destroy_ah}). */
  @Override
  void close();
}
