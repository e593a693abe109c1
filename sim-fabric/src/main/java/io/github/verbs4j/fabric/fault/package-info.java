/**
 * Fault injection: per node pair (drop, duplicate, reorder, corrupt, delay, down/up, by seeded rate
 * or by an explicit script of frame indexes) and per topology link (down/up). Reproducible: the
 * same seed and the same sends give the same faults.
 */
package io.github.verbs4j.fabric.fault;
