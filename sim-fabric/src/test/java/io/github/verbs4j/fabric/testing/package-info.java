/**
 * Test support shipped in sim-fabric's test-jar for providers and examples: {@link
 * io.github.verbs4j.fabric.testing.ChildJvm} starts child JVMs on the test classpath, {@link
 * io.github.verbs4j.fabric.testing.EmbeddedCoordinator} runs a coordinator inside the test.
 */
package io.github.verbs4j.fabric.testing;
