/**
 * The in-JVM fabric: many nodes in one process, threaded (a delivery thread per node) or
 * deterministic (one thread, events run in modelled-time order when the test calls {@link
 * io.github.verbs4j.fabric.local.LocalFabric#runUntilIdle()}). {@link
 * io.github.verbs4j.fabric.local.LocalNode} is the transport on the shared pipeline: frames are
 * handed over by reference.
 */
package io.github.verbs4j.fabric.local;
