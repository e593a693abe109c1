/**
 * The Netty fabric: one node per process, frames over TCP or Unix domain sockets (native epoll on
 * Linux, NIO otherwise), the frame decoder that drops and counts malformed input, and the node that
 * joins the coordinator.
 */
package io.github.verbs4j.fabric.netty;
