package io.github.verbs4j.verbs;

/**
 * Optional features beyond {@link DeviceCap} that a provider may or may not implement. A call that
 * needs a missing capability fails with {@link Errno#EOPNOTSUPP}; the conformance kit skips
 * scenarios by capability, never by provider name. Not a verbs.h enum.
 */
public enum Capability {
  /** Dynamically connected transport: {@link QpType#DCI} and {@link QpType#DCT}. */
  DC,
  /** DCI streams (mlx5dv {@code log_num_concurent}, {@code dci_stream_id_reset}). */
  DCI_STREAMS,
  /** Extended CQ polling ({@code ibv_create_cq_ex}, {@code start_poll}). */
  CQ_EX,
  /** XRC domains, XRC SRQs and XRC QPs. */
  XRC,
  /** {@code ibv_rereg_mr}. */
  REREG_MR,
  /** Memory windows (type 1 and 2). */
  MEMORY_WINDOW,
  /** SRQ resize (also reported as {@link DeviceCap#SRQ_RESIZE}). */
  SRQ_RESIZE,
  /** The seed-002 stop/resend SRQ flow control instead of RNR NAK timeouts. */
  SRQ_STOP_RESEND,
  /** Native RDMA READ in hardware (false when READ is emulated in software, as on TCA). */
  NATIVE_READ,
  /** Native atomics in hardware (false when emulated by a target-side proxy, as on TCA). */
  NATIVE_ATOMIC,
  /** {@link MemoryKind#DEVICE} memory regions. */
  DEVICE_MEMORY
}
