/**
 * The coordinator (the subnet manager's role): assigns node ids, publishes the node directory and
 * topology, tracks liveness by heartbeat and tells every node when a peer goes down, and serves a
 * PMI-like key-value store and barriers. Runs embedded or standalone ({@link
 * io.github.verbs4j.fabric.coord.CoordinatorMain}).
 */
package io.github.verbs4j.fabric.coord;
