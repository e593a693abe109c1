package io.github.verbs4j.ib.engine;

import io.github.verbs4j.ib.wire.Lrh;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;

/**
 * The receive side's frame splitter: a frame from the port is one packet or a train of packets
 * back to back; each goes to the {@link Sink} with a view of the buffer it lies in, so that ICRC and
 * payload reads need no copy. Also gives a parsed packet's payload as a {@link ByteBuffer}. Used
 * only under the agent.
 */
final class FrameSplitter {
  /** Where the packets of a frame go. */
  interface Sink {
    /**
     * @param b the frame
     * @param at where the packet starts in it
     * @param len its length
     * @param view a view of the buffer it lies in, or null (read through {@code b})
     * @param delta view position minus frame index
     * @param t the duty cycle's time
     */
    void packet(ByteBuf b, int at, int len, ByteBuffer view, int delta, long t);
  }

  private final Sink sink;
  private final IbCounters counters;
  private ByteBuffer copyScratch = ByteBuffer.allocateDirect(8192);
  // a frame in several read buffers: where each buffer's view began, and its length
  private int[] partPos = new int[8];
  private int[] partLen = new int[8];

  FrameSplitter(Sink sink, IbCounters counters) {
    this.sink = sink;
    this.counters = counters;
  }

  /**
   * One frame from the port: a packet, or a train of packets back to back (each as long as its LRH
   * says; a length that does not fit ends the train and the rest is dropped as malformed). One
   * buffer view serves the ICRC and payload reads of all its packets. A frame that spanned socket
   * reads is a slice of several buffers: each packet that lies in one of them is read through a
   * view of that buffer, and only a packet cut by a buffer boundary is read through the frame (its
   * payload copied once to scratch), instead of copying the whole frame into one buffer first.
   *
   * @return the packets taken (at least 1)
   */
  int receiveFrame(ByteBuf frame, long t) {
    int at = frame.readerIndex();
    int end = frame.writerIndex();
    ByteBuffer view = null;
    int delta = 0;
    ByteBuffer[] parts = null;
    if (end > at) {
      if (frame.nioBufferCount() == 1) {
        view = viewOf(frame, at, end - at);
        delta = view.position() - at;
      } else {
        parts = frame.nioBuffers(at, end - at);
        if (parts.length == 1) {
          view = parts[0];
          delta = view.position() - at;
          parts = null;
        } else {
          // The views' positions and limits move as packets are read: keep where each began.
          if (partPos.length < parts.length) {
            partPos = new int[parts.length * 2];
            partLen = new int[parts.length * 2];
          }
          for (int i = 0; i < parts.length; i++) {
            partPos[i] = parts[i].position();
            partLen[i] = parts[i].remaining();
          }
        }
      }
    }
    int first = Lrh.trainPacketBytes(frame, at, end);
    if (parts == null && (first == end - at || first < 0)) {
      sink.packet(frame, at, end - at, view, delta, t); // one packet (a bad one is counted by parse)
      return 1;
    }
    if (first < 0) {
      first = end - at; // one bad packet: parse counts it
    }
    int n = 0;
    int len = first;
    int part = 0;
    int partStart = at; // the frame index where parts[part] begins
    while (true) {
      if (parts != null) {
        while (at >= partStart + partLen[part]) {
          partStart += partLen[part];
          part++;
        }
        boolean whole = at + len <= partStart + partLen[part];
        view = whole ? parts[part] : null;
        delta = whole ? partPos[part] - partStart : 0;
      }
      sink.packet(frame, at, len, view, delta, t);
      at += len;
      n++;
      if (at >= end) {
        return n;
      }
      len = Lrh.trainPacketBytes(frame, at, end);
      if (len < 0) {
        counters.inc(IbCounters.Counter.DROP_MALFORMED);
        return n;
      }
    }
  }

  /**
   * A view of {@code len} bytes at {@code at} of a frame held in one buffer. A frame is usually a
   * slice of the fabric's read buffer, and a slice makes a new NIO buffer (two objects) for every
   * view; the read buffer keeps one internal view with it (pooled buffers recycle it), so the view
   * comes from there when the slice is a window on it. Only the thread running the agent reads
   * frames, and nothing else takes the read buffer's internal view.
   */
  private static ByteBuffer viewOf(ByteBuf frame, int at, int len) {
    ByteBuf root = frame.unwrap();
    if (root != null && root.nioBufferCount() == 1 && frame.hasMemoryAddress() && root.hasMemoryAddress()) {
      long start = frame.memoryAddress() - root.memoryAddress() + at;
      if (start >= 0 && start + len <= root.capacity()) {
        return root.internalNioBuffer((int) start, len);
      }
    }
    return frame.internalNioBuffer(at, len);
  }

  /** The payload of a parsed packet as a ByteBuffer (position = first byte), no copy if possible. */
  ByteBuffer payload(Packet p, int len) {
    ByteBuffer v = p.view;
    if (v != null) {
      int pos = p.payloadOffset + p.viewDelta;
      v.limit(pos + len).position(pos);
      return v;
    }
    if (p.buf.nioBufferCount() == 1) {
      return p.buf.internalNioBuffer(p.payloadOffset, len);
    }
    return copyToScratch(p.buf, p.payloadOffset, len);
  }

  ByteBuffer copyToScratch(ByteBuf src, int at, int len) {
    if (copyScratch.capacity() < len) {
      copyScratch = ByteBuffer.allocateDirect(Integer.highestOneBit(len) << 1);
    }
    ByteBuffer s = copyScratch;
    s.clear().limit(len);
    src.getBytes(at, s);
    s.flip();
    return s;
  }
}
