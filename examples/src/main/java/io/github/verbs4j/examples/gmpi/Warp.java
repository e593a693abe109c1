package io.github.verbs4j.examples.gmpi;

/**
 * One warp of a kernel launch: its block and warp indices ({@code blockIdx.x}, {@code threadIdx.x /
 * 32}), its modelled clock, and per-warp scratch for attributes and answers (shared memory in the
 * paper), so GMPI calls allocate nothing. Used by the warp's thread only.
 */
public final class Warp {
  private final int block;
  private final int warpInBlock;
  private final int warpsPerBlock;
  private final ModelledClock clock;
  final long[] args = new long[AttributeRing.MAX_ARGS];
  final long[] answer = new long[AttributeRing.MAX_ARGS];

  Warp(int block, int warpInBlock, int warpsPerBlock, long start) {
    this.block = block;
    this.warpInBlock = warpInBlock;
    this.warpsPerBlock = warpsPerBlock;
    this.clock = new ModelledClock(start);
  }

  /** @return {@code blockIdx.x} */
  public int block() {
    return block;
  }

  /** @return the warp's index within its block */
  public int warpInBlock() {
    return warpInBlock;
  }

  /** @return the warp's index in the whole grid */
  public int globalId() {
    return block * warpsPerBlock + warpInBlock;
  }

  /** @return the warp's modelled clock (charge modelled compute on it) */
  public ModelledClock clock() {
    return clock;
  }

  @Override
  public String toString() {
    return "warp " + warpInBlock + " of block " + block;
  }
}
