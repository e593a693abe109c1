package io.github.verbs4j.fabric.netty;

import static org.junit.jupiter.api.Assertions.*;

import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.FabricMetrics;
import io.github.verbs4j.fabric.FrameHeader;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ResourceLeakDetector;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Feeds 120,000 random, mutated and valid frames into the decoder, each on its own connection: no
 * exception escapes the pipeline, and every input is accounted for — each produces at least one
 * counted outcome (a frame passed on or a drop with a reason), and every byte is either passed on
 * or counted as dropped.
 */
class FrameDecoderFuzzTest {
  private static final int INPUTS = 120_000;
  private static final int MTU = 4096;

  @Test
  void noExceptionEscapesAndEveryInputIsCounted() {
    // Paranoid leak tracking records a stack per buffer access; the other tests cover leaks.
    ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
    try {
      fuzz();
    } finally {
      ResourceLeakDetector.setLevel(level);
    }
  }

  private void fuzz() {
    long seed = 20261122L;
    SplittableRandom rnd = new SplittableRandom(seed);
    FabricMetrics m = new FabricMetrics(new SimpleMeterRegistry(), "fuzz");
    long fedBytes = 0;
    long passedBytes = 0;
    long passedFrames = 0;
    int[] kinds = new int[4];
    for (int i = 0; i < INPUTS; i++) {
      ByteBuf in = input(rnd, kinds);
      int len = in.readableBytes();
      fedBytes += len;
      long dropsBefore = m.totalDrops();
      long outBefore = passedFrames;
      EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(MTU, m, () -> 2));
      // split the input into up to three writes to exercise partial reads
      int a = len == 0 ? 0 : rnd.nextInt(len + 1);
      int b = a + (len - a == 0 ? 0 : rnd.nextInt(len - a + 1));
      ch.writeInbound(in.retainedSlice(0, a));
      ch.writeInbound(in.retainedSlice(a, b - a));
      ch.writeInbound(in.retainedSlice(b, len - b));
      in.release();
      ch.finish();
      ch.checkException();
      ByteBuf f;
      while ((f = ch.readInbound()) != null) {
        assertNull(FrameHeader.check(f, f.readerIndex(), MTU, 2), "only well-formed frames pass");
        assertEquals(FrameHeader.LENGTH + FrameHeader.length(f, f.readerIndex()), f.readableBytes());
        passedBytes += f.readableBytes();
        passedFrames++;
        f.release();
      }
      long outcomes = (passedFrames - outBefore) + (m.totalDrops() - dropsBefore);
      if (len > 0) {
        assertTrue(outcomes >= 1, "input " + i + " (seed " + seed + ", " + len + " bytes) was not counted");
      }
    }
    long droppedBytes = 0;
    for (DropReason r : DropReason.values()) {
      droppedBytes += m.droppedBytes(r);
    }
    assertEquals(fedBytes, passedBytes + droppedBytes, "every byte passed on or counted as dropped");
    assertTrue(passedFrames > INPUTS / 5, "valid frames got through: " + passedFrames);
    for (DropReason r : new DropReason[] {DropReason.BAD_VERSION, DropReason.BAD_TYPE, DropReason.BAD_FLAGS, DropReason.TOO_LONG,
        DropReason.BAD_NODE, DropReason.MISROUTED, DropReason.BAD_TIME, DropReason.TRUNCATED}) {
      assertTrue(m.drops(r) > 0, "fuzzing reached " + r.tag());
    }
    assertTrue(kinds[0] > 0 && kinds[1] > 0 && kinds[2] > 0 && kinds[3] > 0);
  }

  private static ByteBuf input(SplittableRandom rnd, int[] kinds) {
    int kind = rnd.nextInt(4);
    kinds[kind]++;
    switch (kind) {
      case 0 -> { // pure random bytes
        byte[] b = new byte[rnd.nextInt(200)];
        rnd.nextBytes(b);
        return Unpooled.wrappedBuffer(b);
      }
      case 1 -> { // valid frame
        return valid(rnd);
      }
      case 2 -> { // valid frame with 1..4 random byte mutations, biased to the header
        ByteBuf f = valid(rnd);
        int n = 1 + rnd.nextInt(4);
        for (int j = 0; j < n; j++) {
          int at = rnd.nextInt(4) < 3 ? rnd.nextInt(FrameHeader.LENGTH) : rnd.nextInt(f.readableBytes());
          f.setByte(at, rnd.nextInt(256));
        }
        return f;
      }
      default -> { // valid frames back to back, then truncated or with trailing garbage
        ByteBuf f = Unpooled.buffer();
        int n = 1 + rnd.nextInt(3);
        for (int j = 0; j < n; j++) {
          ByteBuf v = valid(rnd);
          f.writeBytes(v);
          v.release();
        }
        if (rnd.nextBoolean()) {
          f.writerIndex(rnd.nextInt(f.writerIndex() + 1));
        } else {
          byte[] g = new byte[rnd.nextInt(40)];
          rnd.nextBytes(g);
          f.writeBytes(g);
        }
        return f;
      }
    }
  }

  private static ByteBuf valid(SplittableRandom rnd) {
    int len = rnd.nextInt(10) == 0 ? MTU + 1 - rnd.nextInt(2) : rnd.nextInt(300);
    ByteBuf b = Unpooled.buffer(FrameHeader.LENGTH + len);
    long send = rnd.nextLong(1L << 40);
    FrameHeader.write(b, rnd.nextInt(8), 1 + rnd.nextInt(7), 2, rnd.nextInt(65536), len, send, send + rnd.nextInt(10000));
    byte[] p = new byte[len];
    rnd.nextBytes(p);
    return b.writeBytes(p);
  }
}
