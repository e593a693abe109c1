/**
 * Wire arithmetic and layouts every simulated device shares: 24-bit PSNs ({@link
 * io.github.verbs4j.verbs.spi.wire.Psn}) and the GRH area of a UD receive ({@link
 * io.github.verbs4j.verbs.spi.wire.Grh}).
 */
package io.github.verbs4j.verbs.spi.wire;
