package io.github.verbs4j.examples.gmpi;

/**
 * Device code, run once per warp of a launch ({@code __global__}). The 32 lanes of a warp run in
 * lockstep, so the simulator runs a warp's code once on one JVM thread; lane-parallel work (the
 * attribute store) is written as a loop over lanes.
 */
@FunctionalInterface
public interface Kernel {
  /**
   * @param warp this warp's indices and modelled clock
   */
  void run(Warp warp);
}
