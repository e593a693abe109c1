package io.github.verbs4j.examples.mp;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * The rendezvous protocol of one communicator, for messages over the eager limit: the sender
 * announces (RTS); in WRITE mode the receiver answers with its buffer (CTS), the sender writes and
 * sends FIN behind the data; in READ mode the RTS carries the sender's buffer, the receiver reads
 * and sends FIN. Holds the transfers in flight by request id.
 */
final class Rendezvous {
  /** The fields of an RTS kept until a receive matches it. */
  record Rts(int senderId, long addr, int rkey) {}

  private final int rank;
  private final boolean read;
  private final Regions regions;
  private final Sender sender;
  private final IntFunction<Peer> peers;
  /** Sends waiting for CTS or FIN, and WRITE-mode receives waiting for FIN, by local request id. */
  private final Map<Integer, Request> waiting = new HashMap<>();
  /** RDMA operations in flight, by request id (the sender fills it as it posts them). */
  private final Map<Integer, Request> rdma;
  private int nextId = 1;

  Rendezvous(int rank, MpConfig.Rendezvous mode, Regions regions, Sender sender, Map<Integer, Request> rdma,
      IntFunction<Peer> peers) {
    this.rank = rank;
    this.rdma = rdma;
    this.read = mode == MpConfig.Rendezvous.READ;
    this.regions = regions;
    this.sender = sender;
    this.peers = peers;
  }

  /** Starts sending {@code len} bytes of {@code data}: registers them and queues the RTS. */
  void send(Peer p, Request r, ByteBuffer data, int len, int tag, int context) {
    Transfer t = new Transfer(r, p.rank, tag, len, read);
    r.id = nextId++;
    r.transfer = t;
    regions.attach(t, data, len, true, true);
    waiting.put(r.id, r);
    sender.enqueue(p, new Outgoing(Wire.RTS, context, tag, len, r.id, 0, read ? t.localAddr : 0, read ? t.rkey : 0,
        null));
  }

  /** A receive matched an announcement: ask for the data (CTS) or read it. */
  void matched(Request r, int source, int tag, int length, Rts rts) {
    boolean byRead = rts.addr() != 0;
    Transfer t = new Transfer(r, source, tag, length, byRead);
    t.truncated = length > r.length;
    t.remoteId = rts.senderId();
    regions.attach(t, r.buffer, length, !t.truncated, false);
    r.id = nextId++;
    r.transfer = t;
    Peer p = peers.apply(source);
    if (byRead) {
      t.remoteAddr = rts.addr();
      t.remoteRkey = rts.rkey();
      p.pendingRdma.add(t);
      sender.touch(p);
    } else {
      waiting.put(r.id, r);
      sender.enqueue(p, new Outgoing(Wire.CTS, r.context, tag, length, rts.senderId(), r.id, t.localAddr, t.rkey,
          null));
    }
    sender.drain(p);
  }

  /** The receiver's buffer for a send of this rank: write it there. */
  void cts(Peer p, ByteBuffer slab, int at) {
    Request r = waiting.remove(Wire.senderId(slab, at));
    Transfer t = (Transfer) r.transfer;
    t.remoteId = Wire.receiverId(slab, at);
    t.remoteAddr = Wire.addr(slab, at);
    t.remoteRkey = Wire.rkey(slab, at);
    p.pendingRdma.add(t);
  }

  /** The data of a WRITE-mode receive is in place, or a READ-mode send's buffer is free again. */
  void fin(Peer p, ByteBuffer slab, int at) {
    int receiverId = Wire.receiverId(slab, at);
    if (receiverId != 0) {
      finishReceive(waiting.remove(receiverId));
    } else {
      Request r = waiting.remove(Wire.senderId(slab, at));
      ((Transfer) r.transfer).releaseBounce();
      r.complete(new Status(p.rank, r.tag, r.length));
    }
  }

  /** An RDMA operation of request {@code requestId} completed on {@code l}. */
  void rdmaDone(Peer p, Link l, int requestId) {
    l.rdmaInFlight--;
    Request r = rdma.remove(requestId);
    Transfer t = (Transfer) r.transfer;
    if (t.read) {
      finishReceive(r);
      sender.enqueue(p, new Outgoing(Wire.FIN, r.context, t.tag, t.length, t.remoteId, 0, 0, 0, null));
    } else {
      t.releaseBounce();
      r.complete(new Status(t.peer, t.tag, t.length));
    }
  }

  private void finishReceive(Request r) {
    Transfer t = (Transfer) r.transfer;
    if (t.truncated) {
      r.fail(truncated(rank, r, t.peer, t.tag, t.length));
    } else {
      if (t.bounce != null) {
        r.buffer.put(r.buffer.position(), t.bounce.buffer(), 0, t.length);
      }
      r.complete(new Status(t.peer, t.tag, t.length));
    }
    t.releaseBounce();
  }

  /** Adds the bounce buffers of the transfers still in flight to {@code into}. */
  void bounces(List<AutoCloseable> into) {
    Transfer.bounces(waiting.values(), into);
    Transfer.bounces(rdma.values(), into);
  }

  /** The failure of a receive whose buffer is shorter than the message. */
  static MpException truncated(int rank, Request r, int source, int tag, int length) {
    return new MpException("rank " + rank + ": message of " + length + " bytes from rank " + source + " tag " + tag
        + " is truncated: the receive buffer has " + r.length + " bytes");
  }
}
