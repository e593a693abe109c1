package io.github.verbs4j.examples.mp;

/**
 * A message that arrived before a matching receive was posted: an eager message's bytes, or a
 * rendezvous announcement whose data is still at the sender.
 */
final class Incoming {
  final int source;
  final int tag;
  final int context;
  final int length;
  /** The payload of an eager message; null for a rendezvous announcement. */
  final byte[] data;
  /** The sender's rendezvous details; null for an eager message. */
  final Object rendezvous;

  Incoming(int source, int tag, int context, int length, byte[] data, Object rendezvous) {
    this.source = source;
    this.tag = tag;
    this.context = context;
    this.length = length;
    this.data = data;
    this.rendezvous = rendezvous;
  }
}
