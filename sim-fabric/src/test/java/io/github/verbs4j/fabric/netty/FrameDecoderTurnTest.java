package io.github.verbs4j.fabric.netty;

import static org.junit.jupiter.api.Assertions.*;

import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.FabricMetrics;
import io.github.verbs4j.fabric.FrameHeader;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

/**
 * {@link FrameDecoder}'s per-turn budget: a connection holding many frames hands on a budget of
 * them per turn of the event loop with its socket reads off, and the rest on the following turns.
 */
class FrameDecoderTurnTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final FabricMetrics metrics = new FabricMetrics(registry, "turns");

  private static void frame(ByteBuf b, int seq) {
    FrameHeader.write(b, 0, 1, 2, 7, 4, 0, 0);
    b.writeInt(seq);
  }

  private long drops(DropReason why) {
    var s = registry.find("verbs4j.fabric.drops").tag("reason", why.tag());
    double n = s.functionCounters().stream().mapToDouble(c -> c.count()).sum()
        + s.counters().stream().mapToDouble(c -> c.count()).sum();
    return Math.round(n);
  }

  private static int drain(EmbeddedChannel ch, int expectFrom) {
    int n = 0;
    ByteBuf f;
    while ((f = ch.readInbound()) != null) {
      assertEquals(expectFrom + n, f.getInt(f.readerIndex() + FrameHeader.LENGTH), "frames in order");
      f.release();
      n++;
    }
    return n;
  }

  @Test
  void aBacklogIsDecodedABudgetPerTurn() {
    EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(64, metrics, () -> 2, 4));
    ByteBuf b = Unpooled.buffer();
    for (int i = 0; i < 10; i++) {
      frame(b, i);
      if (i == 5) {
        // a frame with a bad header version, dropped and counted: it takes a slot of the budget too
        int at = b.writerIndex();
        FrameHeader.write(b, 0, 1, 2, 7, 4, 0, 0);
        b.setByte(at, 99);
        b.writeInt(-1);
      }
    }
    ch.pipeline().fireChannelRead(b); // one read's worth, as the event loop hands it on
    assertEquals(4, drain(ch, 0), "this turn: the budget");
    ch.pipeline().fireChannelReadComplete();
    assertTrue(ch.config().isAutoRead(), "a few bytes held: the socket is still read");
    // The following turns (zero-delay timers) hand on the rest, the bad frame dropped among them.
    int got = 4;
    for (int turn = 0; turn < 10 && got < 10; turn++) {
      ch.runScheduledPendingTasks();
      got += drain(ch, got);
    }
    assertEquals(10, got);
    assertTrue(ch.config().isAutoRead());
    assertEquals(1, drops(DropReason.BAD_VERSION));
    assertFalse(ch.finish());
  }

  @Test
  void moreThanTheHoldLimitHeldStopsReadingTheSocketUntilDecoded() {
    int payload = 4096;
    int frames = FrameDecoder.HOLD_LIMIT / payload + 40; // more than the limit
    EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(payload, metrics, () -> 2, 8));
    ByteBuf b = Unpooled.buffer();
    for (int i = 0; i < frames; i++) {
      FrameHeader.write(b, 0, 1, 2, 7, payload, 0, 0);
      b.writeInt(i).writeZero(payload - 4);
    }
    ch.pipeline().fireChannelRead(b);
    assertEquals(8, drain(ch, 0));
    ch.pipeline().fireChannelReadComplete();
    assertFalse(ch.config().isAutoRead(), "more than HOLD_LIMIT bytes held: socket reads stopped");
    int got = 8;
    boolean readingAgainBeforeTheEnd = false;
    for (int turn = 0; turn < frames && got < frames; turn++) {
      ch.runScheduledPendingTasks();
      got += drain(ch, got);
      readingAgainBeforeTheEnd |= ch.config().isAutoRead() && got < frames;
    }
    assertEquals(frames, got);
    assertTrue(readingAgainBeforeTheEnd, "reads resume once what is held fits the limit");
    assertTrue(ch.config().isAutoRead());
    assertFalse(ch.finish());
  }

  @Test
  void framesHeldWhenTheConnectionClosesAreDecodedNotCountedTruncated() {
    EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(64, metrics, () -> 2, 3));
    ByteBuf b = Unpooled.buffer();
    for (int i = 0; i < 8; i++) {
      frame(b, i);
    }
    ch.pipeline().fireChannelRead(b);
    assertEquals(3, drain(ch, 0));
    ch.pipeline().fireChannelInactive(); // the peer closed with 5 frames held
    assertEquals(5, drain(ch, 3));
    assertEquals(0, drops(DropReason.TRUNCATED));
  }

  @Test
  void aBudgetBelowOneIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new FrameDecoder(64, metrics, () -> 2, 0));
  }
}
