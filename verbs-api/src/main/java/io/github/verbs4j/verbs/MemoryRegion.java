package io.github.verbs4j.verbs;

import java.nio.ByteBuffer;
import java.util.Set;

/**
 * A registered memory region ({@code struct ibv_mr}, {@code ibv_reg_mr}/{@code ibv_dereg_mr}).
 *
 * <p>The region covers {@link #length()} bytes of off-heap memory starting at virtual address
 * {@link #address()}; SGEs and remote peers address it by that virtual address. {@link #lkey()}
 * goes into SGEs of QPs of the same PD, {@link #rkey()} is given to peers. Keys carry a random
 * part, so they are not guessable in sequence. Every remote access is checked against key, PD,
 * bounds and access before memory is touched.
 *
 * <p>{@link #buffer()} is a view of the registered memory for the application (position 0, limit
 * length). Writes by the provider become visible in ascending address order with the last byte
 * last, so polling the last byte of an RDMA WRITE target works as in perftest. {@link #close()}
 * deregisters: the keys become invalid immediately and later accesses fail (LOC_PROT_ERR or
 * REM_ACCESS_ERR); memory allocated by {@link ProtectionDomain#allocateMemory} is released to the
 * provider. Closing is idempotent. Thread-safe.
 */
public interface MemoryRegion extends AutoCloseable {
  /** @return the local key */
  int lkey();

  /** @return the remote key */
  int rkey();

  /** @return the virtual address of the first byte */
  long address();

  /** @return the length in bytes */
  long length();

  /**
   * A view of the region's memory for the application.
   *
   * @return a direct buffer (position 0, limit = length) sharing the region's memory
   * @throws VerbsException EINVAL if the region is longer than 2^31-1 bytes
   */
  ByteBuffer buffer();

  /** @return the access flags it was registered with */
  Set<Access> access();

  /** @return host or device memory */
  MemoryKind kind();

  /** @return the protection domain */
  ProtectionDomain pd();

  /** Deregisters the region ({@code ibv_dereg_mr}). Idempotent. */
  @Override
  void close();
}
