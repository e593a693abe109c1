/**
 * The simulated InfiniBand HCA as a verbs4j provider ({@code verbs.provider=ib}, device {@code
 * sim_ib0}): the verbs objects built on the verbs-api SPI bases, the configuration keys, the
 * Micrometer meters, the {@link io.github.verbs4j.verbs.Job} over the fabric coordinator, and the
 * port adapter that puts the HCA's packets on a sim-fabric node. The engines live in {@code
 * io.github.verbs4j.ib.engine}, the wire formats in {@code io.github.verbs4j.ib.wire}.
 */
package io.github.verbs4j.ib;
