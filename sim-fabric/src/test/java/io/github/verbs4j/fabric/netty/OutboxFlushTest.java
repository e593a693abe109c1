package io.github.verbs4j.fabric.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.fabric.FabricMetrics;
import io.github.verbs4j.fabric.FrameHeader;
import io.github.verbs4j.fabric.time.LinkModel;
import io.github.verbs4j.fabric.time.LinkParams;
import io.github.verbs4j.fabric.topo.Route;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.nio.NioIoHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The frames a node's event loop sends itself leave with one flush per pass: a caller's pass of
 * {@link SharedIoEventLoop} (a tca DMA chain's TLP frames, a duty cycle's write-backs) or a task of
 * Netty's own loop, except that a connection owed {@link Outbox#PASS_FLUSH_BYTES} is flushed at
 * once. The connection is an {@link EmbeddedChannel} whose outbound side counts flushes;
 * its messages become visible only when flushed.
 */
class OutboxFlushTest {
  private static final int FRAMES = 3;
  private final AtomicInteger flushes = new AtomicInteger();
  private final EmbeddedChannel channel = new EmbeddedChannel(new ChannelOutboundHandlerAdapter() {
    @Override
    public void flush(ChannelHandlerContext ctx) {
      flushes.incrementAndGet();
      ctx.flush();
    }
  });
  private final Route route = new Route(0, 1, new int[] {0}, new int[] {0});
  private SharedIoEventLoop shared;
  private EventLoopGroup group;

  @AfterEach
  void close() throws Exception {
    channel.finishAndReleaseAll();
    if (shared != null) {
      shared.shutdownGracefully(0, 0, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }
    if (group != null) {
      group.shutdownGracefully(0, 0, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }
  }

  private Outbox outbox(io.netty.channel.EventLoop loop) {
    Outbox o = new Outbox(loop, new FabricMetrics(new SimpleMeterRegistry(), "outbox-test"), () -> true, true, 1 << 20,
        1 << 24);
    o.attach(new LinkModel(new LinkParams(0, 10_000, 4096, 0), 4), 0, 2);
    return o;
  }

  private static ByteBuf payload(int i) {
    return Unpooled.directBuffer(8).writeLong(0x5EED_0000L + i);
  }

  /** A peer on the test connection, with the outbox of a fresh shared loop. */
  private Outbox sharedOutbox(Peer peer) {
    shared = new SharedIoEventLoop(NioIoHandler.newFactory(), "outbox-test", TimeUnit.SECONDS.toNanos(30));
    peer.channel = channel;
    return outbox(shared);
  }

  /**
   * Runs {@code inside} once in a caller's pass of the shared loop, as the loop's thread. The
   * background thread drives at start; with a long lease the caller keeps the loop once it has it.
   */
  private void inOneCallerPass(Runnable inside) {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    boolean ran = false;
    while (!ran) {
      assertTrue(System.nanoTime() < until, "the caller never got the loop");
      ran = shared.progress(() -> {
        if (!shared.inEventLoop()) {
          return 0;
        }
        inside.run();
        return 1;
      }) > 0;
    }
  }

  @Test
  void aCallersPassFlushesItsFramesOnceAtItsEnd() {
    Peer peer = new Peer(1);
    Outbox out = sharedOutbox(peer);
    int[] seenInside = {-1, -1};
    inOneCallerPass(() -> {
      for (int i = 0; i < FRAMES; i++) {
        assertTrue(out.send(peer, route, 1, 7, 0, payload(i), 0, 0));
      }
      seenInside[0] = flushes.get();
      seenInside[1] = channel.outboundMessages().size();
    });
    assertEquals(0, seenInside[0], "flushes while the pass ran");
    assertEquals(0, seenInside[1], "frames visible before the pass ended");
    assertEquals(1, flushes.get(), "flushes for the pass");
    assertFrames();
  }

  @Test
  void aPassThatSendsMuchFlushesAsItGoes() {
    Peer peer = new Peer(1);
    Outbox out = sharedOutbox(peer);
    int size = 8000; // copied behind its header: one message per frame
    int frames = 20; // ~160 KB: past the flush limit twice
    int[] seenInside = {-1};
    inOneCallerPass(() -> {
      for (int i = 0; i < frames; i++) {
        assertTrue(out.send(peer, route, 1, 7, 0, Unpooled.directBuffer(size).writeZero(size), 0, 0));
      }
      seenInside[0] = channel.outboundMessages().size();
    });
    int perFlush = (Outbox.PASS_FLUSH_BYTES + FrameHeader.LENGTH + size - 1) / (FrameHeader.LENGTH + size);
    assertEquals(2 * perFlush, seenInside[0], "frames visible before the pass ended");
    assertEquals(3, flushes.get(), "two flushes at the limit, one at the end");
    assertEquals(frames, channel.outboundMessages().size());
  }

  @Test
  void nettysOwnLoopFlushesATasksFramesOnceAfterIt() throws Exception {
    group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    io.netty.channel.EventLoop loop = group.next();
    Outbox out = outbox(loop);
    Peer peer = new Peer(1);
    peer.channel = channel;
    int[] seenInside = {-1};
    loop.submit(() -> {
      for (int i = 0; i < FRAMES; i++) {
        assertTrue(out.send(peer, route, 1, 7, 0, payload(i), 0, 0));
      }
      seenInside[0] = flushes.get();
    }).get(10, TimeUnit.SECONDS);
    loop.submit(() -> { }).get(10, TimeUnit.SECONDS); // after the flush task queued behind the first
    assertEquals(0, seenInside[0], "flushes while the task ran");
    assertEquals(1, flushes.get(), "flushes for the task");
    assertFrames();
  }

  /** The frames arrived whole and in send order: each a header and its 8-byte payload. */
  private void assertFrames() {
    List<Long> got = new ArrayList<>();
    Object m;
    while ((m = channel.readOutbound()) != null) {
      ByteBuf f = (ByteBuf) m;
      try {
        assertEquals(FrameHeader.LENGTH + 8, f.readableBytes());
        got.add(f.getLong(f.readerIndex() + FrameHeader.LENGTH));
      } finally {
        f.release();
      }
    }
    List<Long> want = new ArrayList<>();
    for (int i = 0; i < FRAMES; i++) {
      want.add(0x5EED_0000L + i);
    }
    assertEquals(want, got);
  }
}
