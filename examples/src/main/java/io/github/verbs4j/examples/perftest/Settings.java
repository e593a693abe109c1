package io.github.verbs4j.examples.perftest;

/**
 * The effective parameters of a perftest run: the options with perftest's defaults filled in and
 * the device's limits applied.
 *
 * @param sizes message sizes, ascending
 * @param iterations iterations per size
 * @param txDepth TX depth
 * @param rxDepth RX depth (SEND tests)
 * @param cqMod CQ moderation
 * @param inlineSize max inline data (0 = never inline)
 * @param outReads outstanding READ/atomic requests
 * @param mtu path MTU in bytes
 * @param gbits report Gb/s
 * @param writeWithImm write_lat with RDMA WRITE with immediate, taken from the receive CQ
 */
record Settings(long[] sizes, int iterations, int txDepth, int rxDepth, int cqMod, int inlineSize, int outReads,
    int mtu, boolean gbits, boolean writeWithImm) {

  /** @return the largest size */
  long maxSize() {
    return sizes[sizes.length - 1];
  }
}
