/**
 * Benchmarks (not tests): {@link io.github.verbs4j.fabric.bench.FabricBench} measures frame
 * ping-pong latency and streaming bandwidth between two processes over the netty fabric, and raw
 * Netty moving the same payloads in the same run.
 */
package io.github.verbs4j.fabric.bench;
