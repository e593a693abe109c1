package io.github.verbs4j.verbs;

/**
 * A device a provider offers ({@code struct ibv_device}), listed by {@link Verbs#devices()}.
 *
 * @param name the device name, e.g. {@code sim_ib0} or {@code tca0}
 * @param provider the provider name ({@code ib} or {@code tca})
 * @param nodeType the node type
 * @param transportType the transport type
 * @param guid the node GUID
 */
public record Device(String name, String provider, NodeType nodeType, TransportType transportType, long guid) {}
