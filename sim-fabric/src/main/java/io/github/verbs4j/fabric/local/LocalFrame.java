package io.github.verbs4j.fabric.local;

import io.github.verbs4j.fabric.topo.Route;
import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;
import java.util.Queue;

/**
 * A frame in flight inside the JVM; pooled, so the fabric allocates nothing per frame. The pool is
 * a bounded lock-free MPMC array queue rather than Netty's {@code Recycler}, which since Netty 4.2
 * pools only on Netty's own threads, while frames are created on application threads and
 * recycled on delivery threads.
 */
final class LocalFrame {
  private static final Queue<LocalFrame> POOL = PlatformDependent.newFixedMpmcQueue(8192);
  int src;
  int dst;
  int tag;
  int flags;
  int length;
  long sendTime;
  long arrival;
  long extraDelay;
  long maxSer;
  int hopIndex;
  Route route;
  ByteBuf payload;

  private LocalFrame() {}

  static LocalFrame get(int src, int dst, int tag, int flags, ByteBuf payload, Route route, long sendTime) {
    LocalFrame f = POOL.poll();
    if (f == null) {
      f = new LocalFrame();
    }
    f.src = src;
    f.dst = dst;
    f.tag = tag;
    f.flags = flags;
    f.payload = payload;
    f.length = payload.readableBytes();
    f.route = route;
    f.sendTime = sendTime;
    f.arrival = sendTime;
    f.extraDelay = 0;
    f.maxSer = 0;
    f.hopIndex = 0;
    return f;
  }

  void recycle() {
    payload = null;
    route = null;
    POOL.offer(this); // dropped for the GC if the pool is full
  }
}
