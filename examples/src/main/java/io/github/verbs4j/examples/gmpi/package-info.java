/**
 * GMPI (seed 004): a simulated accelerator whose kernels post message-passing requests through a
 * lock-free ring in memory to a host daemon that performs them on the message-passing layer, the
 * host-driven baseline, and the study programs ({@code verbs4j gmpi-args}, {@code gmpi-pingpong}).
 * See {@code docs/gmpi.md}.
 */
package io.github.verbs4j.examples.gmpi;
