/**
 * A small message-passing layer on verbs: ranks, tagged point-to-point messages (eager through
 * pre-posted receive buffers, rendezvous by RDMA WRITE or READ), barrier and allreduce.
 */
package io.github.verbs4j.examples.mp;
