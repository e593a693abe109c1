package io.github.verbs4j.fabric.netty;

import static org.junit.jupiter.api.Assertions.*;

import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.FabricMetrics;
import io.github.verbs4j.fabric.FrameHeader;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FrameCodecTest {
  private final FabricMetrics metrics = new FabricMetrics(new SimpleMeterRegistry(), "codec");

  private static ByteBuf frame(int hops, int src, int dst, int tag, byte[] payload, long send, long arrival) {
    ByteBuf b = Unpooled.buffer();
    FrameHeader.write(b, hops, src, dst, tag, payload.length, send, arrival);
    return b.writeBytes(payload);
  }

  @Test
  void headerLayoutIsBigEndianWithVersionFirst() {
    ByteBuf b = frame(3, 0x0102, 0x0304, 0xBEEF, new byte[] {9}, 0x1122334455667788L, 0x1122334455667799L);
    assertEquals("0101000301020304beef00000000000111223344556677881122334455667799" + "09", ByteBufUtil.hexDump(b));
    FrameHeader h = new FrameHeader().decode(b, 0);
    assertEquals(1, h.version());
    assertEquals(3, h.hops());
    assertEquals(0x0102, h.src());
    assertEquals(0x0304, h.dst());
    assertEquals(0xBEEF, h.tag());
    assertEquals(1, h.length());
    assertEquals(0x1122334455667788L, h.sendTimeNanos());
    assertEquals(0x1122334455667799L, h.arrivalTimeNanos());
    assertNull(FrameHeader.check(b, 0, 1, 0x0304));
  }

  @Test
  void theUncheckedFlagTravelsInTheFlagsByteAndLeavesTheTagAlone() {
    ByteBuf b = Unpooled.buffer();
    FrameHeader.write(b, FrameHeader.TYPE_DATA, FrameHeader.FLAG_UNCHECKED, 2, 1, 2, 0xFFFF, 0, 5, 6);
    assertEquals(FrameHeader.FLAG_UNCHECKED, b.getUnsignedByte(FrameHeader.FLAGS_OFFSET));
    FrameHeader h = new FrameHeader().decode(b, 0);
    assertEquals(FrameHeader.FLAG_UNCHECKED, h.flags());
    assertEquals(0xFFFF, h.tag(), "all 16 tag bits are the provider's");
    assertNull(FrameHeader.check(b, 0, 0, 2), "a defined flag is well formed");
    b.release();
  }

  @Test
  void framesSurviveArbitrarySplittingAndCoalescing() {
    Random rnd = new Random(11);
    ByteBuf stream = Unpooled.buffer();
    List<byte[]> payloads = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      byte[] p = new byte[i % 50 == 0 ? 0 : rnd.nextInt(5000)];
      rnd.nextBytes(p);
      payloads.add(p);
      ByteBuf f = frame(i % 5, 1 + i % 7, 2, i, p, i * 10L, i * 10L + 5);
      stream.writeBytes(f);
      f.release();
    }
    EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1 << 20, metrics, () -> 2));
    while (stream.isReadable()) {
      ch.writeInbound(stream.readRetainedSlice(Math.min(stream.readableBytes(), 1 + rnd.nextInt(9000))));
    }
    stream.release();
    FrameHeader h = new FrameHeader();
    for (int i = 0; i < 300; i++) {
      ByteBuf f = ch.readInbound();
      assertNotNull(f, "frame " + i);
      h.decode(f, f.readerIndex());
      assertEquals(i % 5, h.hops());
      assertEquals(1 + i % 7, h.src());
      assertEquals(i, h.tag());
      assertEquals(i * 10L + 5, h.arrivalTimeNanos());
      f.skipBytes(FrameHeader.LENGTH);
      assertArrayEquals(payloads.get(i), ByteBufUtil.getBytes(f), "payload " + i);
      f.release();
    }
    assertNull(ch.readInbound());
    assertFalse(ch.finish());
    assertEquals(0, metrics.totalDrops());
  }

  @Test
  void aDoorbellIsHeaderOnly() {
    ByteBuf bell = Unpooled.buffer();
    FrameHeader.write(bell, FrameHeader.TYPE_DOORBELL, 0, 0, 1, 2, 0, 0, 0, 0);
    assertNull(FrameHeader.check(bell, 0, 100, 2));
    ByteBuf loaded = Unpooled.buffer();
    FrameHeader.write(loaded, FrameHeader.TYPE_DOORBELL, 0, 0, 1, 2, 0, 4, 0, 0);
    assertEquals(DropReason.TOO_LONG, FrameHeader.check(loaded, 0, 100, 2), "a doorbell carries nothing");
    bell.release();
    loaded.release();
  }

  @Test
  void eachMalformedHeaderIsDroppedWithItsReasonAndTheStreamResumes() {
    EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(100, metrics, () -> 2));
    ByteBuf good = frame(1, 1, 2, 0, new byte[] {1, 2, 3}, 0, 0);
    ByteBuf badVersion = frame(1, 1, 2, 0, new byte[4], 0, 0).setByte(FrameHeader.VERSION_OFFSET, 2);
    ByteBuf badType = frame(1, 1, 2, 0, new byte[4], 0, 0).setByte(FrameHeader.TYPE_OFFSET, 9);
    ByteBuf badFlags = frame(1, 1, 2, 0, new byte[4], 0, 0).setByte(FrameHeader.FLAGS_OFFSET, 0x80); // undefined bit
    ByteBuf badNode = frame(1, 0, 2, 0, new byte[4], 0, 0);
    ByteBuf misrouted = frame(1, 1, 3, 0, new byte[4], 0, 0);
    ByteBuf badTime = frame(1, 1, 2, 0, new byte[4], 10, 9);
    ByteBuf tooLong = frame(1, 1, 2, 0, new byte[101], 0, 0);
    ch.writeInbound(Unpooled.wrappedBuffer(badVersion, badType, badFlags, badNode, misrouted, badTime, tooLong, good.retain()));
    ByteBuf out = ch.readInbound();
    assertEquals(good, out);
    out.release();
    good.release();
    for (DropReason r : new DropReason[] {DropReason.BAD_VERSION, DropReason.BAD_TYPE, DropReason.BAD_FLAGS, DropReason.BAD_NODE,
        DropReason.MISROUTED, DropReason.BAD_TIME}) {
      assertEquals(1, metrics.drops(r), r.tag());
      assertEquals(36, metrics.droppedBytes(r), r.tag());
    }
    assertEquals(1, metrics.drops(DropReason.TOO_LONG));
    assertEquals(133, metrics.droppedBytes(DropReason.TOO_LONG));
    // a truncated frame at close is counted too
    ch.writeInbound(frame(1, 1, 2, 0, new byte[50], 0, 0).writerIndex(60));
    assertFalse(ch.finish());
    assertEquals(1, metrics.drops(DropReason.TRUNCATED));
    assertEquals(60, metrics.droppedBytes(DropReason.TRUNCATED));
  }

  @Test
  void hugeLengthIsSkippedAsItStreamsWithoutBuffering() {
    EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(100, metrics, () -> 0));
    ByteBuf huge = Unpooled.buffer();
    FrameHeader.write(huge, 0, 1, 2, 0, 0, 0, 0);
    huge.setInt(FrameHeader.LENGTH_OFFSET, 1 << 30);
    ch.writeInbound(huge);
    for (int i = 0; i < 10; i++) {
      ch.writeInbound(Unpooled.buffer().writeZero(1 << 16));
    }
    assertNull(ch.readInbound());
    assertEquals(1, metrics.drops(DropReason.TOO_LONG));
    assertEquals(32 + 10 * (1 << 16), metrics.droppedBytes(DropReason.TOO_LONG));
    ch.finishAndReleaseAll();
  }
}
