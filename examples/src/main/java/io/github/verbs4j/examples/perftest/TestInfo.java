package io.github.verbs4j.examples.perftest;

/**
 * What the header block of a perftest report shows.
 *
 * @param verb the operation
 * @param bandwidth BW test (else latency)
 * @param atomicType {@code FETCH_AND_ADD} or {@code CMP_AND_SWAP} for atomics, else null
 * @param device the device name
 * @param transport the transport type, e.g. {@code IB}
 * @param linkType the link layer, e.g. {@code IB}
 * @param txDepth TX depth
 * @param rxDepth RX depth, or 0 when not shown
 * @param cqMod CQ moderation (BW tests)
 * @param cqePollBatch CQEs taken per poll (BW tests)
 * @param mtu the MTU in bytes
 * @param inlineSize max inline data (SEND/WRITE)
 * @param outReads outstanding reads (READ/atomics)
 * @param dataExchange how connection data was exchanged
 */
public record TestInfo(Verb verb, boolean bandwidth, String atomicType, String device, String transport,
    String linkType, int txDepth, int rxDepth, int cqMod, int cqePollBatch, int mtu, int inlineSize, int outReads,
    String dataExchange) {}
