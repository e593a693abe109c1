package io.github.verbs4j.fabric.bench;

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
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.function.Supplier;

/**
 * The raw-Netty baseline: a 4-byte length prefix and {@link LengthFieldBasedFrameDecoder}, tuned
 * like the fabric's netty path — same I/O implementation and socket family, one event-loop thread,
 * {@link PooledByteBufAllocator}, TCP_NODELAY, 2/4 MiB water marks, payloads up to 8 KiB copied
 * behind the prefix and larger ones sent as a composite without copying.
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

  static Channel serve(Transports t, MultiThreadIoEventLoopGroup g, boolean uds, SocketAddress addr, Supplier<ChannelHandler> h) {
    return new ServerBootstrap().group(g).channel(uds ? t.udsServer() : t.tcpServer()).childHandler(new ChannelInitializer<>() {
      @Override
      protected void initChannel(Channel ch) {
        configure(ch);
        ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(MAX_FRAME, 0, 4, 0, 4), h.get());
      }
    }).bind(addr).syncUninterruptibly().channel();
  }

  static Channel connect(Transports t, MultiThreadIoEventLoopGroup g, boolean uds, SocketAddress addr, ChannelHandler h) {
    return new Bootstrap().group(g).channel(uds ? t.udsClient() : t.tcpClient()).handler(new ChannelInitializer<>() {
      @Override
      protected void initChannel(Channel ch) {
        configure(ch);
        ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(MAX_FRAME, 0, 4, 0, 4), h);
      }
    }).connect(addr).syncUninterruptibly().channel();
  }

  /** Echoes every frame back. */
  static final class Echo extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ctx.writeAndFlush(encode((ByteBuf) msg), ctx.voidPromise());
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
}
