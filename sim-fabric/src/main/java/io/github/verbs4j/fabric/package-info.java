/**
 * sim-fabric: moves frames (a fixed {@link io.github.verbs4j.fabric.FrameHeader} plus an opaque
 * payload) between nodes, with a link model, fault injection, modelled time and a coordinator.
 * Providers open a {@link io.github.verbs4j.fabric.FabricNode} through {@link
 * io.github.verbs4j.fabric.Fabric#open}; a node also offers the job's key-value store and barriers
 * ({@link io.github.verbs4j.fabric.JobChannel}) and, on netty with caller progress, {@link
 * io.github.verbs4j.fabric.CallerProgress}. The frame pipeline (send checks, fault stage, delivery)
 * is written once in {@link io.github.verbs4j.fabric.AbstractFabricNode}; each transport adds only
 * how a frame crosses. The fabric knows nothing of verbs.
 */
package io.github.verbs4j.fabric;
