package io.github.verbs4j.examples.mp;

import io.github.verbs4j.verbs.MemoryRegion;

/** The RDMA side of one rendezvous message, at the sender or the receiver. */
final class Transfer {
  final Request request;
  final int peer;
  final int tag;
  final int length;
  final boolean read;
  /** A temporary registered copy when the caller's buffer is not registered, else null. */
  MemoryRegion bounce;
  long localAddr;
  int lkey;
  int rkey;
  int remoteId;
  long remoteAddr;
  int remoteRkey;
  boolean truncated;

  Transfer(Request request, int peer, int tag, int length, boolean read) {
    this.request = request;
    this.peer = peer;
    this.tag = tag;
    this.length = length;
    this.read = read;
  }

  /** Adds the bounce buffers of the transfers of {@code requests} to {@code into}. */
  static void bounces(java.util.Collection<Request> requests, java.util.List<AutoCloseable> into) {
    for (Request r : requests) {
      if (r.transfer instanceof Transfer t && t.bounce != null) {
        into.add(t.bounce);
      }
    }
  }

  /** Frees the bounce buffer, if any. */
  void releaseBounce() {
    if (bounce != null) {
      bounce.close();
      bounce = null;
    }
  }
}
