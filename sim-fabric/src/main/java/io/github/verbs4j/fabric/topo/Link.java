package io.github.verbs4j.fabric.topo;

/**
 * A directed link. Node 0 stands for a switch.
 *
 * @param id the link id, dense from 0
 * @param from the transmitting node (0 = the switch)
 * @param fromPort the port it leaves by ({@link Port#value()} for PEACH2; 1 for an HCA; the switch
 *     port number for the switch)
 * @param to the receiving node (0 = the switch)
 * @param toPort the port it enters by
 */
public record Link(int id, int from, int fromPort, int to, int toPort) {}
