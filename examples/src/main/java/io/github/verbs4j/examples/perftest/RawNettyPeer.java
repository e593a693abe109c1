package io.github.verbs4j.examples.perftest;

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
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.IdleStrategy;

/**
 * The raw Netty baseline of {@link Compare}: the same payloads between the same two processes
 * without verbs4j, tuned like the netty fabric's data path (same socket family and I/O
 * implementation, one event-loop thread, {@link PooledByteBufAllocator}, {@code TCP_NODELAY},
 * 2/4 MiB write-buffer water marks, the fabric's {@link ReceiveTuning} (adaptive reads up to 512 KiB,
 * composite cumulation) and Unix socket buffers, a 4-byte length prefix, payloads above 8 KiB sent as a prefix + payload
 * composite without copying). Latency is a ping-pong driven from the event loops
 * (the fastest a Netty program can do it; with {@code busyPoll} the event loops poll epoll without
 * sleeping, as a provider's polling thread does with {@code verbs.fabric.progress=caller}); bandwidth is one-way streaming that waits for
 * writability, closed by an empty frame the receiver answers with its frame count.
 *
 * <p>Rank 1 serves ({@link #serve}); rank 0 connects ({@link #connect}) and measures.
 */
final class RawNettyPeer implements AutoCloseable {
  private static final int MAX_FRAME = (1 << 23) + 64;
  private static final int COPY_LIMIT = 8192;
  /**
   * A stream flushes once this many bytes are written (and before it waits for writability), not
   * per frame: the netty fabric flushes a connection once per outbox drain, and a flush per 4 KiB
   * frame (one write syscall each) held the raw stream to 75-280 MiB/s where the fabric moved 420+.
   */
  static final int STREAM_FLUSH_BYTES = 256 * 1024;
  private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

  private final Transports transports;
  private final boolean uds;
  private final int socketBuffer;
  private final MultiThreadIoEventLoopGroup group;
  private Channel server;
  private Channel channel;
  private Path socketFile;
  private volatile Client client;

  /**
   * @param transport {@code auto} (Unix domain sockets when native epoll is available, else TCP),
   *     {@code tcp} or {@code uds} — the meaning of {@code verbs.fabric.transport}
   * @param socketBuffer SO_SNDBUF and SO_RCVBUF of a Unix socket connection, 0 = the kernel's
   *     default — the fabric's {@code verbs.fabric.uds-socket-buffer-bytes}
   */
  RawNettyPeer(String transport, int socketBuffer) {
    this(transport, socketBuffer, false);
  }

  /**
   * @param transport as {@link #RawNettyPeer(String, int)}
   * @param socketBuffer as {@link #RawNettyPeer(String, int)}
   * @param busyPoll the event loop polls epoll without sleeping ({@link
   *     Transports#busyPollIoHandlerFactory()}): the baseline for a provider whose polling thread
   *     drives the sockets; needs native epoll
   */
  RawNettyPeer(String transport, int socketBuffer, boolean busyPoll) {
    this.transports = Transports.choose("auto");
    this.socketBuffer = socketBuffer;
    this.uds = "uds".equals(transport) || ("auto".equals(transport) && transports.epoll());
    io.netty.channel.IoHandlerFactory f = busyPoll ? transports.busyPollIoHandlerFactory() : transports.ioHandlerFactory();
    if (f == null) {
      throw new IllegalStateException("a busy-polling raw Netty baseline needs native epoll");
    }
    this.group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory(busyPoll ? "raw-netty-poll" : "raw-netty", true), f);
  }

  /** @return e.g. {@code uds/epoll} */
  String describe() {
    return (uds ? "uds" : "tcp") + "/" + transports.name();
  }

  private void configure(Channel ch) {
    ch.config().setAllocator(ALLOC);
    ch.config().setOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(2 << 20, 4 << 20));
    ReceiveTuning.socketBuffers(ch, socketBuffer);
    if (ch.localAddress() instanceof InetSocketAddress || ch.remoteAddress() instanceof InetSocketAddress) {
      ch.config().setOption(ChannelOption.TCP_NODELAY, true);
    }
  }

  private ChannelInitializer<Channel> pipeline(ChannelHandler handler) {
    return new ChannelInitializer<>() {
      @Override
      protected void initChannel(Channel ch) {
        configure(ch);
        LengthFieldBasedFrameDecoder decoder = new LengthFieldBasedFrameDecoder(MAX_FRAME, 0, 4, 0, 4);
        ReceiveTuning.apply(ch, decoder, MAX_FRAME); // the fabric's receive sizing and cumulator
        ch.pipeline().addLast(decoder, handler);
      }
    };
  }

  /** Prefix + payload; takes ownership of {@code payload}. */
  static ByteBuf frame(ByteBuf payload) {
    int len = payload.readableBytes();
    if (len <= COPY_LIMIT) {
      ByteBuf b = ALLOC.directBuffer(4 + len).writeInt(len).writeBytes(payload, payload.readerIndex(), len);
      payload.release();
      return b;
    }
    CompositeByteBuf c = ALLOC.compositeDirectBuffer(2);
    c.addComponents(true, ALLOC.directBuffer(4).writeInt(len), payload);
    return c;
  }

  /**
   * Starts the server side: echoes non-empty frames of a ping-pong, counts streamed frames.
   *
   * @return the address to publish
   */
  String serve() {
    SocketAddress bind;
    if (uds) {
      try {
        socketFile = Files.createTempFile("verbs4j-raw-", ".sock");
        Files.delete(socketFile);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      bind = transports.udsAddress(socketFile.toString());
    } else {
      bind = new InetSocketAddress("127.0.0.1", 0);
    }
    server = new ServerBootstrap().group(group).channel(uds ? transports.udsServer() : transports.tcpServer())
        .childHandler(pipeline(new Server())).bind(bind).syncUninterruptibly().channel();
    return uds ? "uds:" + socketFile : "tcp:127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort();
  }

  /**
   * Connects to a {@link #serve()}d peer.
   *
   * @param address what the server published
   */
  void connect(String address) {
    Client c = new Client();
    SocketAddress to = address.startsWith("uds:") ? transports.udsAddress(address.substring(4))
        : new InetSocketAddress("127.0.0.1", Integer.parseInt(address.substring(address.lastIndexOf(':') + 1)));
    channel = new Bootstrap().group(group).channel(address.startsWith("uds:") ? transports.udsClient()
        : transports.tcpClient()).handler(pipeline(c)).connect(to).syncUninterruptibly().channel();
    client = c;
  }

  /**
   * Ping-pong from the event loop: {@code iters} round trips of {@code size} bytes.
   *
   * @return the send time of every ping (perftest's tposted)
   */
  long[] pingPong(int size, int iters) throws Exception {
    long[] stamps = new long[iters];
    ByteBuf payload = ALLOC.directBuffer(size).writeZero(size);
    CompletableFuture<Void> done = new CompletableFuture<>();
    client.startPing(channel, payload, stamps, done);
    try {
      done.get(120, TimeUnit.SECONDS);
    } finally {
      channel.eventLoop().submit((Runnable) payload::release).get();
    }
    return stamps;
  }

  /**
   * Streams {@code iters} frames of {@code size} bytes as fast as writability allows, flushing
   * every {@link #STREAM_FLUSH_BYTES} (writes from this thread reach the event loop without waking
   * it; the flush does).
   *
   * @return {tposted of every frame..., time the receiver's count arrived}
   */
  long[] stream(int size, int iters) throws Exception {
    long[] posted = new long[iters];
    ByteBuf payload = ALLOC.directBuffer(size).writeZero(size);
    CompletableFuture<Long> count = new CompletableFuture<>();
    client.expectCount(count);
    // The writability wait backs off like the bandwidth loops' completion wait (BwLoop): a spin
    // or a long run of yields here would take a vCPU from the event loops that move the bytes.
    IdleStrategy backoff = LoopIdle.throughput();
    try {
      long unflushed = 0;
      for (int i = 0; i < iters; i++) {
        while (!channel.isWritable()) {
          if (unflushed > 0) {
            channel.flush();
            unflushed = 0;
          }
          backoff.idle();
          if (!channel.isActive()) {
            throw new IllegalStateException("raw Netty connection closed while streaming");
          }
        }
        backoff.reset();
        posted[i] = System.nanoTime();
        channel.write(frame(payload.retainedDuplicate()), channel.voidPromise());
        unflushed += size + 4;
        if (unflushed >= STREAM_FLUSH_BYTES) {
          channel.flush();
          unflushed = 0;
        }
      }
      channel.writeAndFlush(frame(ALLOC.directBuffer(0)), channel.voidPromise());
      long n = count.get(120, TimeUnit.SECONDS);
      if (n != iters) {
        throw new IllegalStateException("raw Netty receiver counted " + n + " frames, " + iters + " were sent");
      }
    } finally {
      payload.release();
    }
    long[] out = java.util.Arrays.copyOf(posted, iters + 1);
    out[iters] = client.countArrived;
    return out;
  }

  @Override
  public void close() {
    if (channel != null) {
      channel.close().syncUninterruptibly();
    }
    if (server != null) {
      server.close().syncUninterruptibly();
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    if (socketFile != null) {
      try {
        Files.deleteIfExists(socketFile);
      } catch (java.io.IOException ignored) {
        // a stale socket file in the temp directory is harmless
      }
    }
  }

  /** Server side: a frame with a leading 1 is a ping (echo it), 0 is streamed, empty ends a stream. */
  @ChannelHandler.Sharable
  private static final class Server extends ChannelInboundHandlerAdapter {
    private long frames;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf b = (ByteBuf) msg;
      if (!b.isReadable()) {
        b.release();
        ctx.writeAndFlush(frame(ALLOC.directBuffer(8).writeLong(frames)), ctx.voidPromise());
        frames = 0;
      } else if (b.getByte(b.readerIndex()) == 1) {
        ctx.writeAndFlush(frame(b), ctx.voidPromise());
      } else {
        frames++;
        b.release();
      }
    }
  }

  /** Client side, on the event loop. */
  private static final class Client extends ChannelInboundHandlerAdapter {
    private long[] stamps;
    private int next;
    private ByteBuf ping;
    private CompletableFuture<Void> pingDone;
    private volatile CompletableFuture<Long> count;
    volatile long countArrived;

    void startPing(Channel ch, ByteBuf payload, long[] stamps, CompletableFuture<Void> done) {
      ch.eventLoop().execute(() -> {
        this.stamps = stamps;
        this.ping = payload;
        this.pingDone = done;
        this.next = 0;
        if (payload.capacity() > 0) {
          payload.setByte(0, 1);
        }
        send(ch);
      });
    }

    void expectCount(CompletableFuture<Long> c) {
      this.count = c;
    }

    private void send(Channel ch) {
      stamps[next++] = System.nanoTime();
      ch.writeAndFlush(frame(ping.retainedDuplicate()), ch.voidPromise());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf b = (ByteBuf) msg;
      try {
        if (pingDone != null && !pingDone.isDone()) {
          if (next < stamps.length) {
            send(ctx.channel());
          } else {
            pingDone.complete(null);
          }
        } else if (count != null && b.readableBytes() == 8) {
          countArrived = System.nanoTime();
          CompletableFuture<Long> c = count;
          count = null;
          c.complete(b.getLong(b.readerIndex()));
        }
      } finally {
        b.release();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (pingDone != null) {
        pingDone.completeExceptionally(cause);
      }
      if (count != null) {
        count.completeExceptionally(cause);
      }
      ctx.close();
    }
  }
}
