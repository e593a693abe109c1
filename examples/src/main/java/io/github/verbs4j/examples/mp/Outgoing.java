package io.github.verbs4j.examples.mp;

/** A protocol message ({@link Wire} kind and fields) waiting for a credit or a send slot. */
final class Outgoing {
  final int kind;
  final int context;
  final int tag;
  final int length;
  final int senderId;
  final int receiverId;
  final long addr;
  final int rkey;
  /** The eager send whose payload goes with it, else null. */
  final Request eager;

  Outgoing(int kind, int context, int tag, int length, int senderId, int receiverId, long addr, int rkey,
      Request eager) {
    this.kind = kind;
    this.context = context;
    this.tag = tag;
    this.length = length;
    this.senderId = senderId;
    this.receiverId = receiverId;
    this.addr = addr;
    this.rkey = rkey;
    this.eager = eager;
  }
}
