package io.github.verbs4j.tca.verbs;

/**
 * The host-software primitives of TCA Verbs in modelled time. An operation's cost is the sum of
 * these and of the board's primitives ({@code Peach2Params}: PIO, DMA doorbell, DMA on the
 * channel's timeline, status write) along the code path it takes; there is no per-operation
 * constant. Where each is charged:
 *
 * <ul>
 *   <li>{@link #storeNs()}: the application writes a WQE at post; the proxy writes a packet header
 *       into a ring's staging memory; a completion (CQE) is written; an atomic's read-modify-write
 *       of one line at the target.
 *   <li>{@link #hostPollNs()}: a poll that finds something another agent wrote: the proxy finding
 *       a posted WQE, the proxy taking a packet from a ring, the application's poll_cq returning
 *       completions (an empty poll costs nothing: the clock waits for the next event instead).
 *   <li>{@link #copyNs(long)}: payload gathered into a ring, scattered from it into a receive
 *       buffer or region, and bounce-buffer copies, at {@link #copyMbs()}.
 *   <li>{@link #gdrReadNs()}: the CPU reads device (GPU) memory — a payload gathered from a device
 *       region into a packet, a short READ answered from one — through gdrcopy's mapping of the
 *       GPU's memory (seed 000 §4.3), once per contiguous piece, on top of the copy. Writes into
 *       device memory cost only the copy (gdrcopy's host-to-GPU direction is fast, §4.3).
 * </ul>
 *
 * @param storeNs <b>assumption</b>: one 32-byte store to host memory (the same figure as writing
 *     one host-memory DMA descriptor, {@code Peach2Params.descriptorCreateHostNs}), 30 ns
 * @param hostPollNs <b>fitted</b>: one successful poll turn, the miss on a line another agent wrote
 *     plus the bookkeeping of taking it, chosen so that Send/Recv takes seed 000's 3.5 µs (§4.4.1:
 *     1.5 µs of Verbs overhead over the 2.0 µs PEACH2 DMA, three such polls on the path)
 * @param copyMbs <b>assumption</b>: CPU memcpy rate, 5,000 MB/s (one core of the seed-000 Ivy
 *     Bridge hosts)
 * @param gdrReadNs <b>fitted</b>: one gdrcopy read of a small piece of GPU memory, chosen so that
 *     Send/Recv from GPU memory costs seed 000's 4.2 µs against 3.5 µs from CPU memory (§4.4.1:
 *     2.2 µs of Verbs overhead with GPU memory, 1.5 µs with CPU memory; §4.3 names gdrcopy's slow
 *     GPU-to-host copy as the difference), 700 ns. It predicts the Write-with-immediate and Read
 *     rows with GPU memory.
 */
public record VerbsCosts(long storeNs, long hostPollNs, long copyMbs, long gdrReadNs) {
  /** @return the values above */
  public static VerbsCosts defaults() {
    return new VerbsCosts(30, 450, 5000, 700);
  }

  /** Checks the values. */
  public VerbsCosts {
    if (storeNs < 0 || hostPollNs < 0 || gdrReadNs < 0) {
      throw new IllegalArgumentException("storeNs=" + storeNs + ", hostPollNs=" + hostPollNs + ", gdrReadNs="
          + gdrReadNs + " must be >= 0");
    }
    if (copyMbs <= 0) {
      throw new IllegalArgumentException("copyMbs=" + copyMbs + " must be positive");
    }
  }

  /**
   * @param bytes bytes copied by the CPU
   * @return ns
   */
  public long copyNs(long bytes) {
    return bytes * 1000 / copyMbs;
  }
}
