/**
 * Java ports of perftest's {@code ib_*_lat} and {@code ib_*_bw}: the same defaults, sample and
 * trimming rules and output columns (reference/verbs-semantics.md §7), plus CSV and PNG output.
 */
package io.github.verbs4j.examples.perftest;
