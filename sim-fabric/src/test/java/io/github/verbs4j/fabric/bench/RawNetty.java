package io.github.verbs4j.fabric.bench;

import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.netty.ReceiveTuning;
import io.github.verbs4j.fabric.netty.Transports;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.util.internal.PlatformDependent;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The raw-Netty baseline: a 4-byte length prefix and {@link LengthFieldBasedFrameDecoder}, tuned
 * like the fabric's netty path — same I/O implementation and socket family, one event-loop thread,
 * {@link PooledByteBufAllocator}, TCP_NODELAY, 2/4 MiB water marks, the same receive tuning
 * ({@link ReceiveTuning}: reads up to 512 KiB, composite cumulation, the fabric's default Unix
 * socket buffers), payloads up to 8 KiB copied
 * behind the prefix and larger ones written behind it as a second message on the event loop (a
 * composite elsewhere), and the same outbox for
 * frames sent from outside the event loop ({@link Outbox}).
 */
final class RawNetty {
  static final int MAX_FRAME = (1 << 20) + 64;
  static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

  private RawNetty() {}

  static MultiThreadIoEventLoopGroup group(Transports t, String name) {
    return new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory(name, true), t.ioHandlerFactory());
  }

  static void configure(Channel ch) {
    ch.config().setAllocator(ALLOC);
    ch.config().setOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(2 << 20, 4 << 20));
    ReceiveTuning.socketBuffers(ch, (int) FabricOptions.defaults().getLong(FabricOptions.UDS_SOCKET_BUFFER));
    if (ch.remoteAddress() instanceof InetSocketAddress || ch.localAddress() instanceof InetSocketAddress) {
      ch.config().setOption(ChannelOption.TCP_NODELAY, true);
    }
  }

  /** Prefix + payload; takes ownership of {@code payload}. */
  static ByteBuf encode(ByteBuf payload) {
    int len = payload.readableBytes();
    if (len <= 8192) {
      ByteBuf b = ALLOC.directBuffer(4 + len).writeInt(len).writeBytes(payload, payload.readerIndex(), len);
      payload.release();
      return b;
    }
    CompositeByteBuf c = ALLOC.compositeDirectBuffer(2);
    c.addComponents(true, ALLOC.directBuffer(4).writeInt(len), payload);
    return c;
  }

  /**
   * On the channel's event loop: prefix + payload, a payload above 8 KiB written as a second
   * message behind its prefix (as the fabric does on its event loop); takes ownership.
   */
  static void write(Channel ch, ByteBuf payload, boolean flush) {
    int len = payload.readableBytes();
    if (len <= 8192) {
      if (flush) {
        ch.writeAndFlush(encode(payload), ch.voidPromise());
      } else {
        ch.write(encode(payload), ch.voidPromise());
      }
      return;
    }
    ch.write(ALLOC.directBuffer(4).writeInt(len), ch.voidPromise());
    if (flush) {
      ch.writeAndFlush(payload, ch.voidPromise());
    } else {
      ch.write(payload, ch.voidPromise());
    }
  }

  static Channel serve(Transports t, MultiThreadIoEventLoopGroup g, boolean uds, SocketAddress addr, Supplier<ChannelHandler> h) {
    return new ServerBootstrap().group(g).channel(uds ? t.udsServer() : t.tcpServer()).childHandler(new ChannelInitializer<>() {
      @Override
      protected void initChannel(Channel ch) {
        configure(ch);
        LengthFieldBasedFrameDecoder decoder = new LengthFieldBasedFrameDecoder(MAX_FRAME, 0, 4, 0, 4);
        ReceiveTuning.apply(ch, decoder, MAX_FRAME);
        ch.pipeline().addLast(decoder, h.get());
      }
    }).bind(addr).syncUninterruptibly().channel();
  }

  static Channel connect(Transports t, MultiThreadIoEventLoopGroup g, boolean uds, SocketAddress addr, ChannelHandler h) {
    return new Bootstrap().group(g).channel(uds ? t.udsClient() : t.tcpClient()).handler(new ChannelInitializer<>() {
      @Override
      protected void initChannel(Channel ch) {
        configure(ch);
        LengthFieldBasedFrameDecoder decoder = new LengthFieldBasedFrameDecoder(MAX_FRAME, 0, 4, 0, 4);
        ReceiveTuning.apply(ch, decoder, MAX_FRAME);
        ch.pipeline().addLast(decoder, h);
      }
    }).connect(addr).syncUninterruptibly().channel();
  }

  /** Echoes every frame back. */
  static final class Echo extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      write(ctx.channel(), (ByteBuf) msg, true);
    }
  }

  /** Counts frames; answers an empty frame with the count. */
  static final class Sink extends ChannelInboundHandlerAdapter {
    private long frames;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf b = (ByteBuf) msg;
      boolean end = !b.isReadable();
      b.release();
      if (end) {
        ctx.writeAndFlush(encode(ALLOC.directBuffer(8).writeLong(frames)), ctx.voidPromise());
        frames = 0;
      } else {
        frames++;
      }
    }
  }

  /**
   * The same outbox as the fabric's ({@code NettyNode}): frames sent from a thread other than the
   * channel's event loop are queued (bounded, byte-counted, with a user-defined writability bit at
   * the high-water mark) and the loop encodes and writes them all with one flush; on the loop,
   * with nothing queued, a frame is written and flushed at once.
   */
  static final class Outbox {
    private static final long HIGH = 4 << 20;
    private static final int CAPACITY = 16384;
    private static final int FRAME_HIGH = CAPACITY / 4; // the fabric's 16384 / (2 x verbs.size=2)
    private final Channel ch;
    private final Queue<ByteBuf> queue = PlatformDependent.newFixedMpscQueue(CAPACITY);
    private final AtomicLong queued = new AtomicLong();
    private final AtomicInteger frames = new AtomicInteger();
    private final AtomicInteger scheduled = new AtomicInteger();
    private final Object lock = new Object();
    private volatile boolean unwritable;
    private final Runnable drain = this::drain;

    Outbox(Channel ch) {
      this.ch = ch;
    }

    /** Takes ownership of {@code payload}. */
    void send(ByteBuf payload) {
      if (ch.eventLoop().inEventLoop() && queue.isEmpty()) {
        write(ch, payload, true);
        return;
      }
      long n = queued.addAndGet(4 + payload.readableBytes());
      int f = frames.incrementAndGet();
      while (!queue.offer(payload)) {
        Thread.yield();
      }
      if (n >= HIGH || f >= FRAME_HIGH) {
        writability();
      }
      if (scheduled.compareAndSet(0, 1)) {
        ch.eventLoop().execute(drain);
      }
    }

    /** As the fabric's outbox: a second look after setting the bit, for a drain that emptied the queue meanwhile. */
    private void writability() {
      synchronized (lock) {
        for (int look = 0; look < 2; look++) {
          long q = queued.get();
          int f = frames.get();
          boolean u = unwritable ? q >= HIGH / 2 || f >= FRAME_HIGH / 2 : q >= HIGH || f >= FRAME_HIGH;
          ChannelOutboundBuffer ob = ch.unsafe().outboundBuffer();
          if (u == unwritable || ob == null) {
            return;
          }
          unwritable = u;
          ob.setUserDefinedWritability(1, !u);
          if (!u) {
            return;
          }
        }
      }
    }

    private void drain() {
      scheduled.set(0);
      boolean any = false;
      ByteBuf p;
      while ((p = queue.poll()) != null) {
        long n = queued.addAndGet(-(4 + p.readableBytes()));
        int f = frames.decrementAndGet();
        write(ch, p, false);
        any = true;
        if (unwritable && n < HIGH / 2 && f < FRAME_HIGH / 2) {
          writability();
        }
      }
      if (any) {
        ch.flush();
      }
      if (!queue.isEmpty() && scheduled.compareAndSet(0, 1)) {
        ch.eventLoop().execute(drain);
      }
    }
  }
}
