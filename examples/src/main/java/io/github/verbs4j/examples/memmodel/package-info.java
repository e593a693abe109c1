/**
 * {@code verbs4j memory-model}: the analytic model of seed 003 (communication memory at one million
 * nodes): per-node bytes of each component of Table 1 from named primitive sizes, for five connection
 * strategies, with the paper's table to compare against and a log-log chart against node count.
 */
package io.github.verbs4j.examples.memmodel;
