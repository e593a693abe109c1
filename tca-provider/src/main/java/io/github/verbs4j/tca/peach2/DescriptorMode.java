package io.github.verbs4j.tca.peach2;

/**
 * Where the DMA controller finds the description of a transfer (seed 000 §2.3, seed 001 §3.5.2).
 */
public enum DescriptorMode {
  /**
   * Descriptors in the board's internal memory: at most 1024, slow to create (each needs a device
   * access), fast to fetch (2.0 µs minimum latency).
   */
  INTERNAL,
  /**
   * Descriptors in host memory (the {@code tcaMalloc} pool): unlimited, cheap to create, fetched
   * over PCIe (2.2 µs minimum latency).
   */
  HOST,
  /**
   * No descriptor: source, destination and length are written to the channel's registers. For a
   * single small transfer, 30–40 % faster than descriptor mode up to 2 KiB.
   */
  REGISTER
}
