package io.github.verbs4j.verbs;

import java.nio.ByteBuffer;
import java.util.Set;

/**
 * A protection domain ({@code struct ibv_pd}, {@code ibv_alloc_pd}). QPs, MRs, SRQs and AHs belong
 * to a PD; an lkey or rkey is honoured only on QPs of the same PD (else LOC_PROT_ERR locally,
 * REM_ACCESS_ERR remotely).
 *
 * <p>Closing fails with EBUSY naming what is still open (MRs, QPs, SRQs, AHs); it is idempotent.
 * Thread-safe.
 */
public interface ProtectionDomain extends AutoCloseable {
  /**
   * Registers a direct buffer ({@code ibv_reg_mr}); the region covers position..limit.
   *
   * @param buffer a direct buffer
   * @param access access flags; REMOTE_WRITE and REMOTE_ATOMIC require LOCAL_WRITE
   * @return the region
   * @throws VerbsException EINVAL for a heap buffer, an empty buffer or bad access flags
   */
  MemoryRegion registerMemory(ByteBuffer buffer, Set<Access> access);

  /**
   * Allocates host memory from the provider and registers it. Providers with placement rules (the
   * TCA provider's pinned {@code tcaMalloc} pool) satisfy them for memory obtained this way.
   *
   * @param length bytes
   * @param access access flags
   * @return the region
   */
  MemoryRegion allocateMemory(long length, Set<Access> access);

  /**
   * Allocates memory of {@code kind} and registers it.
   *
   * @param length bytes
   * @param access access flags
   * @param kind host or device memory
   * @return the region
   * @throws VerbsException EOPNOTSUPP if the provider lacks {@link Capability#DEVICE_MEMORY}
   */
  MemoryRegion allocateMemory(long length, Set<Access> access, MemoryKind kind);

  /**
   * Creates a queue pair ({@code ibv_create_qp}) in state RESET.
   *
   * @param attr creation attributes
   * @return the QP
   * @throws VerbsException EINVAL naming a capacity beyond the device limit or a missing CQ/SRQ;
   *     EOPNOTSUPP for an unsupported QP type
   */
  QueuePair createQp(QpInitAttr attr);

  /**
   * Creates a shared receive queue ({@code ibv_create_srq}).
   *
   * @param attr max_wr and max_sge (srq_limit is ignored, as in libibverbs)
   * @return the SRQ
   */
  SharedReceiveQueue createSrq(SrqAttr attr);

  /**
   * Creates an address handle ({@code ibv_create_ah}).
   *
   * @param attr the address vector
   * @return the AH
   */
  AddressHandle createAh(AhAttr attr);

  /** @return the context */
  Context context();

  /**
   * Deallocates the PD ({@code ibv_dealloc_pd}). Idempotent.
   *
   * @throws VerbsException EBUSY naming what is still open
   */
  @Override
  void close();
}
