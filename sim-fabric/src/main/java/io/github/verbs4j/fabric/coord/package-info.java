/**
 * The coordinator (the subnet manager's role): assigns node ids, publishes the node directory and
 * topology, tracks liveness by heartbeat and tells every node when a peer goes down, and serves a
 * PMI-like key-value store and barriers. Runs embedded or standalone ({@link
 * io.github.verbs4j.fabric.coord.CoordinatorMain}). With {@code verbs.fabric.kvs=hashed} the pairs
 * live at the members their keys hash to ({@link io.github.verbs4j.fabric.coord.KvsPlacement}), and
 * the coordinator only relays ({@code KvsRelay}).
 */
package io.github.verbs4j.fabric.coord;
