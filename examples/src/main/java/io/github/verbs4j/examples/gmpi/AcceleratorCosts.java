package io.github.verbs4j.examples.gmpi;

import java.util.Locale;

/**
 * The named parameters of the simulated accelerator's modelled time; the messages' own times are
 * the fabric's ({@link FabricTimes}). Two profiles: {@link #PAPER} (seed 004: Kepler K20, CUDA 6.5,
 * MVAPICH2-GDR over InfiniBand FDR) and {@link #H200} (NVIDIA H200, CUDA 13.0, measured
 * 2026-11-26, {@code shared/reference/accelerator-costs.md}). {@code docs/gmpi.md} gives each
 * value's source and says which are fitted.
 *
 * @param name the profile's name
 * @param launchNanos an asynchronous kernel launch, host side
 * @param streamSyncNanos launch + {@code cudaStreamSynchronize} of an empty kernel
 * @param deviceSyncNanos launch + {@code cudaDeviceSynchronize} of an empty kernel
 * @param requestVisibleNanos from a warp's coalesced attribute store (and system fence) until the
 *     host daemon's poll sees the header word
 * @param argumentReadNanos host cost per argument word read after the header (gdrcopy reads of
 *     device memory in the paper; zero for mapped host memory)
 * @param answerNanos from the daemon writing an answer until the polling warp sees it
 * @param deviceReadBytesPerMicro how fast message bytes are read out of accelerator memory for the
 *     wire, bytes per µs (= MB/s): PCIe peer reads of GPU memory (GPUDirect RDMA); charged to the
 *     sender where the provider has no device memory (ib), whose staging buffers are host memory
 * @param memoryBytesPerMicro the accelerator's memory bandwidth in bytes per µs, for memory-bound
 *     kernels (Himeno's stencil)
 */
public record AcceleratorCosts(String name, long launchNanos, long streamSyncNanos, long deviceSyncNanos,
    long requestVisibleNanos, long argumentReadNanos, long answerNanos, long deviceReadBytesPerMicro,
    long memoryBytesPerMicro) {
  /**
   * Seed 004's platform. Launch and sync figures are Table 2; request visibility and the per
   * argument read are fitted to figure 5's two points (≤ 7 arguments ~4.5 µs, ≤ 23 within 11 µs);
   * the answer path is fitted so that a 7-argument call costs the paper's "constant ~10 µs per GMPI
   * call" (§5.1); device memory is read for the wire at the ~880 MB/s at which PCIe peer reads of
   * K20 memory saturate on that Ivy Bridge host (seed 001); memory bandwidth is the K20's 208 GB/s (NVIDIA's data sheet).
   */
  public static final AcceleratorCosts PAPER =
      new AcceleratorCosts("paper", 3_230, 10_900, 12_500, 1_656, 406, 5_500, 880, 208_000);

  /**
   * NVIDIA H200, CUDA 13.0 (measured 2026-11-26): launch 3.7–4.0 µs, launch + stream sync
   * 8.6–9.3 µs, + device sync 8.8–9.2 µs (midpoints), a request round trip of 2.3 µs flat from 1 to
   * 31 arguments through mapped host memory, split evenly between request and answer (only the
   * round trip was measured); memory bandwidth 4.8 TB/s (NVIDIA's data sheet). The device read rate
   * is the paper's, unchanged (not measured).
   */
  public static final AcceleratorCosts H200 =
      new AcceleratorCosts("h200", 3_850, 8_950, 9_000, 1_150, 0, 1_150, 880, 4_800_000);

  /** Checks the ranges. */
  public AcceleratorCosts {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("name must not be blank");
    }
    check("launchNanos", launchNanos);
    check("requestVisibleNanos", requestVisibleNanos);
    check("argumentReadNanos", argumentReadNanos);
    check("answerNanos", answerNanos);
    if (streamSyncNanos < launchNanos || deviceSyncNanos < launchNanos) {
      throw new IllegalArgumentException("streamSyncNanos=" + streamSyncNanos + " and deviceSyncNanos="
          + deviceSyncNanos + " include the launch, so must be at least launchNanos=" + launchNanos);
    }
    if (deviceReadBytesPerMicro < 1) {
      throw new IllegalArgumentException("deviceReadBytesPerMicro=" + deviceReadBytesPerMicro + " must be at least 1");
    }
    if (memoryBytesPerMicro < 1) {
      throw new IllegalArgumentException("memoryBytesPerMicro=" + memoryBytesPerMicro + " must be at least 1");
    }
  }

  private static void check(String field, long v) {
    if (v < 0) {
      throw new IllegalArgumentException(field + "=" + v + " must not be negative");
    }
  }

  /**
   * @param name "paper" or "h200"
   * @return that profile
   * @throws IllegalArgumentException naming the value otherwise
   */
  public static AcceleratorCosts profile(String name) {
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "paper" -> PAPER;
      case "h200" -> H200;
      default -> throw new IllegalArgumentException("profile=" + name + " must be paper or h200");
    };
  }

  /**
   * @param arguments arguments of the attribute, 0..31
   * @return modelled time from a warp's store until the host holds the whole attribute
   */
  public long requestNanos(int arguments) {
    return requestVisibleNanos + arguments * argumentReadNanos;
  }

  /**
   * @param arguments arguments of the attribute
   * @return a request's modelled round trip: store, host read, answer seen by the warp
   */
  public long roundTripNanos(int arguments) {
    return requestNanos(arguments) + answerNanos;
  }

  /**
   * @param bytes bytes a memory-bound kernel moves
   * @return its modelled time on the accelerator
   */
  public long memoryNanos(long bytes) {
    return bytes * 1000 / memoryBytesPerMicro;
  }

  /**
   * @param bytes payload in device memory
   * @return how long reading it out of the accelerator's memory for the wire takes
   */
  public long deviceReadNanos(long bytes) {
    return bytes * 1000 / deviceReadBytesPerMicro;
  }
}
