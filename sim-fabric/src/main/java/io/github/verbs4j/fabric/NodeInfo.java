package io.github.verbs4j.fabric;

/**
 * One entry of the node directory.
 *
 * @param nodeId the node id (LID), 1-based, fits in 16 bits
 * @param rank the rank, 0-based ({@code nodeId - 1})
 * @param address the data-plane address ({@code tcp:host:port}, {@code uds:/path}, several joined
 *     by {@code ,}; {@code local} for the in-JVM fabric)
 * @param host the host name the node runs on
 * @param up false once the node has gone down
 */
public record NodeInfo(int nodeId, int rank, String address, String host, boolean up) {}
