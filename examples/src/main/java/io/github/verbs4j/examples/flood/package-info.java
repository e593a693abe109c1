/**
 * {@code verbs4j flood-bench}: an RC ping-pong's round trips without and with a flood of malformed
 * frames into one {@code ib} node (issue #23), and the frames such an attacker writes.
 */
package io.github.verbs4j.examples.flood;
