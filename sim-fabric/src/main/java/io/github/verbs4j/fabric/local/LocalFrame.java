package io.github.verbs4j.fabric.local;

import io.github.verbs4j.fabric.topo.Route;
import io.netty.buffer.ByteBuf;
import io.netty.util.Recycler;

/** A frame in flight inside the JVM; pooled, so the threaded fabric allocates nothing per frame. */
final class LocalFrame {
  private static final Recycler<LocalFrame> RECYCLER = new Recycler<>() {
    @Override
    protected LocalFrame newObject(Handle<LocalFrame> handle) {
      return new LocalFrame(handle);
    }
  };

  private final Recycler.Handle<LocalFrame> handle;
  int src;
  int dst;
  int tag;
  int length;
  long sendTime;
  long arrival;
  long extraDelay;
  long maxSer;
  int hopIndex;
  Route route;
  ByteBuf payload;

  private LocalFrame(Recycler.Handle<LocalFrame> handle) {
    this.handle = handle;
  }

  static LocalFrame get(int src, int dst, int tag, ByteBuf payload, Route route, long sendTime) {
    LocalFrame f = RECYCLER.get();
    f.src = src;
    f.dst = dst;
    f.tag = tag;
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
    handle.recycle(this);
  }
}
