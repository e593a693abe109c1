/**
 * Topologies: which directed links exist between nodes and the static route a frame takes — one IB
 * switch, or PEACH2 E/W rings joined by S links with routing by global address through per-port
 * mask/range registers.
 */
package io.github.verbs4j.fabric.topo;
