package io.github.verbs4j.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A provider's frame buffers come back when released and are handed out empty. */
class FrameBufferPoolTest {
  private static final int SMALL = 256;
  private static final int MEDIUM = 4096;
  private static final int LARGE = 65_536;
  private final FrameBufferPool pool = new FrameBufferPool(PooledByteBufAllocator.DEFAULT,
      new FrameBufferPool.Size(SMALL, 4), new FrameBufferPool.Size(MEDIUM, 2), new FrameBufferPool.Size(LARGE, 1));

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
  void aFrameWhoseViewsOutliveItGoesBackWithTheLastView() {
    for (int i = 0; i < 10_000; i++) {
      ByteBuf small = pool.allocate(SMALL);
      ByteBuf medium = pool.allocate(MEDIUM);
      ByteBuf large = pool.allocate(LARGE);
      ByteBuf duplicate = medium.writerIndex(100).retainedDuplicate();
      ByteBuf slice = large.writerIndex(64).retainedSlice(0, 16);
      medium.release(); // the fabric delivered them
      large.release();
      small.release();
      assertEquals(100, duplicate.readableBytes());
      duplicate.release(); // the last reference: the parent goes back now
      slice.release();
    }
    assertEquals(3, pool.created());
  }

  @Test
  void closingFreesTheFreeBuffersAndEachOtherWhenReleased() {
    ByteBuf free = pool.allocate(64);
    ByteBuf inFlight = pool.allocate(MEDIUM);
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
    assertEquals(4, pool.created(), "at most four small buffers are made");
    ByteBuf huge = pool.allocate(LARGE + 1);
    assertTrue(huge.capacity() >= LARGE + 1);
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

  @Test
  void sizeClassesMustBePositiveAndGrow() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new FrameBufferPool.Size(0, 4));
    assertTrue(e.getMessage().contains("capacity=0"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> new FrameBufferPool(PooledByteBufAllocator.DEFAULT,
        new FrameBufferPool.Size(512, 1), new FrameBufferPool.Size(256, 1)));
    assertTrue(e.getMessage().contains("must grow"), e.getMessage());
  }
}
