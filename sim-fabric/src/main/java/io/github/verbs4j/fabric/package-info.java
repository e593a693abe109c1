/**
 * sim-fabric: moves frames (a fixed {@link io.github.verbs4j.fabric.FrameHeader} plus an opaque
 * payload) between nodes, with a link model, fault injection, modelled time and a coordinator.
 * Providers open a {@link io.github.verbs4j.fabric.FabricNode} through {@link
 * io.github.verbs4j.fabric.Fabric#open}; the fabric knows nothing of verbs.
 */
package io.github.verbs4j.fabric;
