/**
 * What the simulated providers ({@code ib}, {@code tca}) share above their devices: provider
 * registration and open ({@link io.github.verbs4j.verbs.spi.sim.SimProvider}), configuration keys
 * and their bridging to the fabric's ({@link io.github.verbs4j.verbs.spi.sim.ProviderKeys}), and the
 * {@link io.github.verbs4j.verbs.Job} over the fabric coordinator ({@link
 * io.github.verbs4j.verbs.spi.sim.CoordinatorJob}). verbs-api does not depend on sim-fabric, so
 * the fabric's types reach these classes as plain values and method references.
 */
package io.github.verbs4j.verbs.spi.sim;
