package io.github.verbs4j.examples.himeno;

/**
 * One rank's outcome of a Himeno run.
 *
 * @param gosa the residual of the last iteration (the same on every rank)
 * @param iterations iterations run
 * @param calcNanos wall time in the Jacobi step
 * @param haloNanos wall time in the halo exchange (packing included)
 * @param allreduceNanos wall time in the residual allreduce
 * @param haloModelNanos modelled time of the halo exchange, or −1 when not modelled
 * @param allreduceModelNanos modelled time of the allreduce, or −1 when not modelled
 * @param calcModelNanos modelled time of the Jacobi steps (this rank's flops at its flop rate), or −1
 *     when not modelled
 */
public record HimenoResult(float gosa, int iterations, long calcNanos, long haloNanos, long allreduceNanos,
    long haloModelNanos, long allreduceModelNanos, long calcModelNanos) {}
