package io.github.verbs4j.verbs;

/**
 * Where the memory of a region lives. verbs4j models host memory and accelerator ("GPU") memory,
 * which the TCA provider places in the board's device sub-slice and moves at the bandwidths the
 * PEACH2 papers measured. Not a verbs.h enum.
 */
public enum MemoryKind {
  /** Host (CPU) memory. */
  HOST,
  /** Accelerator (GPU) memory, as reached by GPUDirect-style DMA. */
  DEVICE
}
