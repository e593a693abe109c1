/**
 * The Netty fabric: one node per process, frames over TCP or Unix domain sockets (native epoll on
 * Linux, NIO otherwise). {@link io.github.verbs4j.fabric.netty.NettyNode} is the transport on the
 * shared pipeline; its membership (coordinator, join, connections, liveness), outbox (encoding and
 * writing frames, back-pressure) and transit routing (which process models each link) are classes
 * of their own; the frame decoder drops and counts malformed input; {@link
 * io.github.verbs4j.fabric.netty.SharedIoEventLoop} lets polling threads run the node's I/O.
 */
package io.github.verbs4j.fabric.netty;
