package io.github.verbs4j.fabric.netty;

import io.netty.channel.Channel;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** The outgoing side of one peer node: its connection, liveness and this node's frames queued for it. */
final class Peer {
  final int id;
  volatile Channel channel;
  volatile boolean up = true;
  volatile boolean lastWritable = true;
  final AtomicLong queued = new AtomicLong(); // frame bytes in the outbox for this connection
  final AtomicInteger queuedFrames = new AtomicInteger(); // frames in the outbox for it
  volatile boolean outboxUnwritable; // changed only under outboxLock, with the channel's bit
  final Object outboxLock = new Object();
  boolean needsFlush; // event loop only
  int owedBytes; // event loop only: written since its last flush (Outbox.owe)
  /** Frame bytes written to the connection since it opened; written on the event loop only. */
  volatile long written;
  /** Of those, the bytes the peer has said it decoded (its latest receipt); event loop writes. */
  volatile long receipted;

  Peer(int id) {
    this.id = id;
  }
}
