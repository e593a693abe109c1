/**
 * The PEACH2 board as the TCA papers describe it (seed 001, seed 000 §2): four PCIe ports (N to the
 * host, E and W on a ring, S between rings), routing by global address with per-port mask/range
 * registers, remote <em>memory write only</em> by PIO or by a four-channel DMA controller with
 * internal or host-memory descriptors, chaining, register mode and block-stride transfers, the
 * hardware alignment rules, the {@code tcaMalloc} pinned pool, a remotely writable interrupt
 * register, modelled costs ({@link io.github.verbs4j.tca.peach2.Peach2Params}) and counters. The
 * board is the only way {@code tca.verbs} reaches another node.
 */
package io.github.verbs4j.tca.peach2;
