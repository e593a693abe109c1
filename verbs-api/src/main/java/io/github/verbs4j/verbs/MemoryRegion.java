package io.github.verbs4j.verbs;

import java.nio.ByteBuffer;
import java.util.Set;

/**
 * A registered memory region ({@code struct ibv_mr}, {@code ibv_reg_mr}/{@code ibv_dereg_mr}).
 *
 * <p>The region covers {@link #length()} bytes of off-heap memory starting at virtual address
 * {@link #address()}; SGEs and remote peers address it by {@link #iova()} plus an offset, which is
 * that virtual address unless the region was registered with {@link Access#ZERO_BASED}: then the
 * iova is 0 and byte {@code i} of the region is addressed as {@code i}, by local SGEs and by
 * remote RDMA and atomic requests alike ({@code ibv_reg_mr(3)}, {@code ibv_post_send(3)}).
 * {@link #lkey()} goes into SGEs of QPs of the same PD, {@link #rkey()} is given to peers. Keys carry a random
 * part, so they are not guessable in sequence. Every remote access is checked against key, PD,
 * bounds and access before memory is touched.
 *
 * <p>{@link #buffer()} is a view of the registered memory for the application (position 0, limit
 * length). Writes by the provider become visible in ascending address order with the last byte
 * last, so polling the last byte of an RDMA WRITE target works as in perftest. {@link #close()}
 * deregisters: the keys become invalid immediately and later accesses fail (LOC_PROT_ERR or
 * REM_ACCESS_ERR); memory allocated by {@link ProtectionDomain#allocateMemory} is released to the
 * provider, which frees it at once (as {@code free} after {@code ibv_dereg_mr}) unless the
 * application took a view of it with {@link #buffer()} (a view stays valid Java memory, freed when a
 * GC collects it); {@link #buffer()} fails after close. Closing waits for the device to finish any
 * copy already inside the memory. Closing is idempotent.
 * Thread-safe.
 */
public interface MemoryRegion extends AutoCloseable {
  /** @return the local key */
  int lkey();

  /** @return the remote key */
  int rkey();

  /**
   * The virtual address of the first byte, as libibverbs reports {@code mr->addr} (the registered
   * address, also for a {@link Access#ZERO_BASED} region).
   *
   * @return the address
   */
  long address();

  /**
   * The address through which the keys reach the first byte (the kernel's {@code ib_mr.iova}): 0
   * for a {@link Access#ZERO_BASED} region, else {@link #address()}. Give peers this, not {@link
   * #address()}, as the base of their {@code remote_addr}.
   *
   * @return the base of key-relative addresses
   */
  long iova();

  /** @return the length in bytes */
  long length();

  /**
   * A view of the region's memory for the application.
   *
   * @return a direct buffer (position 0, limit = length) sharing the region's memory
   * @throws VerbsException EINVAL if the region is longer than 2^31-1 bytes; EBADF after close if
   *     the memory came from {@link ProtectionDomain#allocateMemory} (freed)
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
