package io.github.verbs4j.ib.engine;

import io.github.verbs4j.fabric.FrameBufferPool;
import io.github.verbs4j.ib.wire.Bth;
import io.github.verbs4j.ib.wire.Icrc;
import io.github.verbs4j.ib.wire.Lrh;
import io.github.verbs4j.ib.wire.Opcode;
import io.netty.buffer.ByteBuf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transmit side of the HCA, as the requester and responder see it: {@link #claim} room for a
 * packet, write its transport headers and payload, then {@link #commit} it (LRH, BTH, pad and ICRC
 * are written and the packet goes to the port) or {@link #abort} it — Aeron's {@code tryClaim}. A
 * packet with at least {@link #IN_TRAIN_PAYLOAD} bytes of payload is built straight in the port's
 * train to its LID when the port builds one ({@link PacketPort#trainRoom}), so its payload is
 * copied once, from memory into the frame. Used only under the agent.
 */
public final class Transmitter {
  private static final Logger LOG = LoggerFactory.getLogger(Transmitter.class);
  /** Smallest payload built in a train (smaller ones are cheap to copy). */
  static final int IN_TRAIN_PAYLOAD = 1024;
  /** Packet buffers of headers, ACKs, atomics and small inline payloads: at most 4,096 of 256 B. */
  static final FrameBufferPool.Size SMALL_PACKETS = new FrameBufferPool.Size(256, 4096);
  /**
   * A full packet of the largest IB MTU with every header: at most 1,024 (a 1 MiB message in flight
   * is 256 of them).
   */
  static final FrameBufferPool.Size LARGE_PACKETS = new FrameBufferPool.Size(4096 + 128, 1024);

  private final PacketPort port;
  private final IbParams params;
  private final IbCounters counters;
  /** Packets reused on whatever thread runs the engine, released by the fabric on any thread. */
  private final FrameBufferPool packets;
  private final Icrc icrc = new Icrc();
  private int base;
  private boolean inTrain;
  private boolean sent;
  private long departure = Long.MIN_VALUE;
  private long answerReady = Long.MIN_VALUE;
  private long requestReady = Long.MIN_VALUE;
  private long answerOnce = Long.MIN_VALUE;

  Transmitter(PacketPort port, IbParams params, IbCounters counters) {
    this.port = port;
    this.params = params;
    this.counters = counters;
    this.packets = new FrameBufferPool(port.alloc(), SMALL_PACKETS, LARGE_PACKETS);
  }

  /**
   * Room for one packet of {@code op} with {@code payload} bytes in a buffer of its own; headers
   * are written at their absolute offsets (the packet starts at index 0, {@link #base()}), the
   * payload at {@code op.headerLength()}.
   */
  ByteBuf claim(Opcode op, int payload) {
    base = 0;
    inTrain = false;
    int length = op.headerLength() + payload + Bth.padFor(payload) + Icrc.LENGTH;
    return packets.allocate(length).writerIndex(length);
  }

  /**
   * {@link #claim(Opcode, int)} for a packet to {@code dlid}, in the port's train to it when the
   * payload is large enough and the port builds one; the packet starts at {@link #base()}.
   */
  ByteBuf claim(Opcode op, int payload, int dlid) {
    if (payload >= IN_TRAIN_PAYLOAD) {
      int total = op.headerLength() + payload + Bth.padFor(payload) + Icrc.LENGTH;
      ByteBuf train = port.trainRoom(dlid, total);
      if (train != null) {
        base = train.writerIndex();
        inTrain = true;
        train.ensureWritable(total);
        return train;
      }
    }
    return claim(op, payload);
  }

  /** @return where the packet the last {@link #claim} returned starts in its buffer */
  int base() {
    return base;
  }

  /** Gives up the packet {@link #claim} just returned (a train's room is simply not used). */
  void abort(ByteBuf b) {
    if (!inTrain) {
      b.release();
    }
  }

  /** {@link #commit(ByteBuf, int, Opcode, int, int, int, int, boolean, boolean, int)} of a packet at 0. */
  void commit(ByteBuf b, Opcode op, int dlid, int sl, int destQp, int psn, boolean se, boolean ackReq, int payload) {
    commit(b, 0, op, dlid, sl, destQp, psn, se, ackReq, payload);
  }

  /** Writes LRH, BTH, pad and ICRC of the packet at {@code at} and hands it to the port (which then owns it). */
  void commit(ByteBuf b, int at, Opcode op, int dlid, int sl, int destQp, int psn, boolean se, boolean ackReq,
      int payload) {
    int hdr = op.headerLength();
    int pad = Bth.padFor(payload);
    int end = at + hdr + payload + pad;
    for (int i = 0; i < pad; i++) {
      b.setByte(at + hdr + payload + i, 0);
    }
    int total = end - at + Icrc.LENGTH;
    boolean withIcrc = params.icrc == IbParams.IcrcMode.ON
        || (params.icrc == IbParams.IcrcMode.AUTO && port.mayCorrupt());
    Lrh.write(b, at, 0, sl, dlid, port.localLid(), total, !withIcrc);
    Bth.write(b, at + Lrh.LENGTH, op.value(), se, pad, Bth.DEFAULT_PKEY, destQp, ackReq, psn);
    if (withIcrc) {
      icrc.write(b, at, end);
    } else {
      b.setInt(end, 0);
    }
    b.writerIndex(at + total);
    if (LOG.isTraceEnabled()) {
      LOG.trace("tx lid {} -> {} qp 0x{} {} psn 0x{}", port.localLid(), dlid, Integer.toHexString(destQp), op,
          Integer.toHexString(psn));
    }
    counters.inc(IbCounters.Counter.PACKETS_SENT);
    counters.add(IbCounters.Counter.BYTES_SENT, total);
    sent = true;
    charge(payload);
    if (!port.transmit(dlid, b)) {
      counters.inc(IbCounters.Counter.DROP_PORT_REFUSED);
    }
  }

  /**
   * While the engine processes a received packet (modelled time): what the responder sends in
   * answer is ready when that packet's work ends, which may be earlier than the port clock (frames
   * delivered after it in wall time moved the clock on).
   *
   * @param t a time on the port clock, or Long.MIN_VALUE when the processing is over
   */
  void answering(long t) {
    answerReady = t;
  }

  /**
   * The packet committed next is the requester's, ready at {@code t} (modelled time): its
   * doorbell, or when the peer let it go on.
   *
   * @param t a time on the port clock
   */
  void request(long t) {
    requestReady = t;
  }

  /**
   * The packet committed next is the responder's, ready at {@code t} (modelled time): an ACK that
   * was queued while a packet was processed and leaves later, ready when that packet's work ended.
   *
   * @param t a time on the port clock, or Long.MIN_VALUE for no such time
   */
  void answer(long t) {
    answerOnce = t;
  }

  /** Charges a sent packet of {@code payload} bytes to the send pipeline (modelled time only). */
  private void charge(int payload) {
    if (port.modelledTime()) {
      long work = params.packetWorkNanos(payload);
      departure = requestReady != Long.MIN_VALUE ? port.chargeTransmit(work, requestReady, false)
          : port.chargeTransmit(work, answerOnce != Long.MIN_VALUE ? answerOnce : answerReady, true);
    }
    requestReady = Long.MIN_VALUE;
    answerOnce = Long.MIN_VALUE;
  }

  /**
   * @return the modelled time the last packet committed left the HCA (its send pipeline runs ahead
   *     of the port clock while it has packets queued); Long.MIN_VALUE on a wall clock
   */
  long departure() {
    return departure;
  }

  /** @return whether a packet was committed since the last call (and forgets it) */
  boolean takeSent() {
    boolean s = sent;
    sent = false;
    return s;
  }

  /** @return whether a packet was committed since {@link #takeSent()} was last called */
  boolean sent() {
    return sent;
  }
}
