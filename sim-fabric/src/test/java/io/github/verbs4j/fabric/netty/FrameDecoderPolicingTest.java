package io.github.verbs4j.fabric.netty;

import static org.junit.jupiter.api.Assertions.*;

import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.FabricMetrics;
import io.github.verbs4j.fabric.FrameHeader;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link FrameDecoder}'s reject budget: a connection that keeps sending frames that fail their
 * checks (in the decoder, or in the node behind it) is neither read nor decoded while its budget is
 * spent, every frame is still counted, and its good frames still arrive, in order.
 */
class FrameDecoderPolicingTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final FabricMetrics metrics = new FabricMetrics(registry, "policing");

  private long drops(DropReason why) {
    var s = registry.find("verbs4j.fabric.drops").tag("reason", why.tag());
    return Math.round(s.functionCounters().stream().mapToDouble(c -> c.count()).sum()
        + s.counters().stream().mapToDouble(c -> c.count()).sum());
  }

  /** A frame to node 2 carrying {@code seq}; with a bad header version if {@code bad}. */
  private static void frame(ByteBuf b, int seq, boolean bad) {
    int at = b.writerIndex();
    FrameHeader.write(b, 0, 1, 2, 7, 4, 0, 0);
    b.writeInt(seq);
    if (bad) {
      b.setByte(at, 99);
    }
  }

  /** Runs the timers due after {@code ms} milliseconds of the channel's (frozen) clock. */
  private static void after(EmbeddedChannel ch, long ms) {
    ch.advanceTimeBy(ms, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
  }

  private static List<Integer> drain(EmbeddedChannel ch) {
    List<Integer> got = new ArrayList<>();
    ByteBuf f;
    while ((f = ch.readInbound()) != null) {
      got.add(f.getInt(f.readerIndex() + FrameHeader.LENGTH));
      f.release();
    }
    return got;
  }

  @Test
  void aConnectionOfBadHeadersIsReadAtTheBudgetsRate() {
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.freezeTime();
    ch.pipeline().addLast(new FrameDecoder(64, metrics, () -> 2));
    int bad = 2_000;
    ByteBuf b = Unpooled.buffer();
    for (int i = 0; i < bad; i++) {
      frame(b, i, true);
    }
    frame(b, -7, false); // a good frame behind the garbage
    ch.pipeline().fireChannelRead(b);
    ch.pipeline().fireChannelReadComplete();
    assertEquals(RejectBudget.BURST, drops(DropReason.BAD_VERSION), "the burst, then nothing");
    assertFalse(ch.config().isAutoRead(), "a spent connection is not read");
    after(ch, 1);
    assertEquals(RejectBudget.BURST, drops(DropReason.BAD_VERSION), "not before RESUME frames of budget are back");
    long resumeMs = (long) RejectBudget.RESUME / RejectBudget.PER_MILLI;
    after(ch, resumeMs - 1);
    assertEquals(RejectBudget.BURST + RejectBudget.RESUME, drops(DropReason.BAD_VERSION), "RESUME more");
    assertFalse(ch.config().isAutoRead());
    // The rest at the budget's rate; nothing is lost.
    long ms = 0;
    List<Integer> good = new ArrayList<>();
    while (drops(DropReason.BAD_VERSION) < bad && ms < 10_000) {
      after(ch, resumeMs);
      ms += resumeMs;
      good.addAll(drain(ch));
    }
    assertEquals(bad, drops(DropReason.BAD_VERSION));
    long expected = (bad - RejectBudget.BURST) / RejectBudget.PER_MILLI;
    assertTrue(ms + resumeMs >= expected && ms <= expected + resumeMs, "took " + ms + " ms, the rate says ~" + expected);
    after(ch, resumeMs);
    good.addAll(drain(ch));
    assertEquals(List.of(-7), good, "the good frame behind the garbage still arrives");
    assertTrue(ch.config().isAutoRead(), "read again once the garbage is paid for");
    assertFalse(ch.finish());
  }

  @Test
  void framesTheNodeRejectsArePaidForTooAndGoodOnesFlowMeanwhile() {
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.freezeTime();
    FrameDecoder decoder = new FrameDecoder(64, metrics, () -> 2);
    List<Integer> delivered = new ArrayList<>();
    ch.pipeline().addLast(decoder, new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf f = (ByteBuf) msg;
        int seq = f.getInt(f.readerIndex() + FrameHeader.LENGTH);
        f.release();
        if (seq < 0) {
          decoder.rejected(); // the node's receiver found it malformed
        } else {
          delivered.add(seq);
        }
      }
    });
    // Below the rate: one rejected frame per millisecond among good ones, for a second.
    for (int ms = 0; ms < 1_000; ms++) {
      ByteBuf b = Unpooled.buffer();
      frame(b, 2 * ms, false);
      frame(b, -1, false);
      frame(b, 2 * ms + 1, false);
      ch.pipeline().fireChannelRead(b);
      ch.pipeline().fireChannelReadComplete();
      assertTrue(ch.config().isAutoRead(), "ms " + ms);
      after(ch, 1);
    }
    assertEquals(2_000, delivered.size());
    // A burst of rejected frames far above the rate: reading stops until the budget is back.
    ByteBuf b = Unpooled.buffer();
    for (int i = 0; i < 4 * RejectBudget.BURST; i++) {
      frame(b, -1, false);
    }
    frame(b, 5_000, false);
    ch.pipeline().fireChannelRead(b);
    ch.pipeline().fireChannelReadComplete();
    assertFalse(ch.config().isAutoRead());
    assertEquals(2_000, delivered.size(), "the good frame waits behind the paid-for garbage");
    for (int ms = 0; ms < 1_000 && delivered.size() == 2_000; ms++) {
      after(ch, 1);
    }
    assertEquals(5_000, delivered.get(delivered.size() - 1));
    assertTrue(ch.config().isAutoRead());
    assertFalse(ch.finish());
  }
}
