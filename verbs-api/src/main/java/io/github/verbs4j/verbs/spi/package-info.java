/**
 * The provider SPI: {@link io.github.verbs4j.verbs.spi.VerbsProvider} and the shared bases that hold
 * every check libibverbs semantics fix for all devices (state table, post-time validation, CQ, SRQ,
 * MR key table). Providers implement only device behaviour on top.
 */
package io.github.verbs4j.verbs.spi;
