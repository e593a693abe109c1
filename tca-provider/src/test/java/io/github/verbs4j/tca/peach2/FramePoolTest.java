package io.github.verbs4j.tca.peach2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A board's frame buffers come back when released and are handed out empty. */
class FramePoolTest {
  private final FramePool pool = new FramePool(PooledByteBufAllocator.DEFAULT, 4, 2, 1);

  @Test
  void aReleasedFrameIsReusedEmptyWithOneReference() {
    ByteBuf a = pool.allocate(40);
    assertEquals(0, a.readerIndex());
    assertEquals(0, a.writerIndex());
    assertTrue(a.capacity() >= 40);
    assertEquals(1, a.refCnt());
    a.writeLong(0x1122334455667788L);
    a.readerIndex(4);
    a.release();
    assertEquals(0, a.refCnt());

    ByteBuf b = pool.allocate(24);
    assertSame(a, b, "the free list hands the same buffer out again");
    assertEquals(1, b.refCnt());
    assertEquals(0, b.readerIndex());
    assertEquals(0, b.writerIndex());
    b.release();
    assertEquals(1, pool.created());
  }

  @Test
  void aFrameWhoseReplayViewOutlivesItGoesBackWithTheView() {
    for (int i = 0; i < 10_000; i++) {
      ByteBuf small = pool.allocate(LinkFrame.DLLP_FRAME_LENGTH);
      ByteBuf medium = pool.allocate(LinkFrame.capacity(4096));
      ByteBuf large = pool.allocate(LinkFrame.capacity(Peach2Board.MAX_FRAME_DATA));
      ByteBuf view = medium.writerIndex(100).retainedDuplicate();
      medium.release(); // the fabric delivered it
      small.release();
      large.release();
      assertEquals(100, view.readableBytes());
      view.release(); // acknowledged: the frame goes back now
    }
    assertEquals(3, pool.created());
  }

  @Test
  void closingFreesTheFreeBuffersAndEachOtherWhenReleased() {
    ByteBuf free = pool.allocate(64);
    ByteBuf inFlight = pool.allocate(LinkFrame.capacity(4096));
    free.release();
    assertEquals(2, pool.created());
    pool.close();
    assertEquals(1, pool.created(), "the free one is freed at once");
    inFlight.release();
    assertEquals(0, pool.created(), "the one in flight is freed when released");
    pool.close();
    assertEquals(0, pool.created());
  }

  @Test
  void beyondTheLimitsAndAboveTheLargestClassFramesComeFromTheFallback() {
    List<ByteBuf> held = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      held.add(pool.allocate(64));
    }
    assertEquals(4, pool.created(), "at most maxSmall small buffers are made");
    ByteBuf huge = pool.allocate(FramePool.LARGE + 1);
    assertTrue(huge.capacity() >= FramePool.LARGE + 1);
    assertEquals(4, pool.created());
    held.add(huge);
    held.forEach(ByteBuf::release);
    for (ByteBuf b : held) {
      assertEquals(0, b.refCnt());
    }
    for (int i = 0; i < 4; i++) {
      held.set(i, pool.allocate(8));
    }
    assertEquals(4, pool.created(), "the four pooled ones are free again");
  }
}
