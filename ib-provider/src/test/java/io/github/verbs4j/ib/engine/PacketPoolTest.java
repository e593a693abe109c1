package io.github.verbs4j.ib.engine;

import static org.junit.jupiter.api.Assertions.*;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The device's packet buffers come back when released and are handed out clean. */
class PacketPoolTest {
  private final PacketPool pool = new PacketPool(PooledByteBufAllocator.DEFAULT, 4, 2);

  @Test
  void aReleasedPacketIsReusedWithFreshIndicesAndOneReference() {
    ByteBuf a = pool.allocate(40);
    assertEquals(0, a.readerIndex());
    assertEquals(40, a.writerIndex());
    assertEquals(1, a.refCnt());
    a.setLong(0, 0x1122334455667788L);
    a.readerIndex(8);
    a.release();
    assertEquals(0, a.refCnt());

    ByteBuf b = pool.allocate(24);
    assertSame(a, b, "the free list hands the same buffer out again");
    assertEquals(1, b.refCnt());
    assertEquals(0, b.readerIndex());
    assertEquals(24, b.readableBytes());
    b.release();
    assertEquals(1, pool.created());
  }

  @Test
  void manyCyclesMakeNoNewBuffersAndSlicesReturnTheirParent() {
    for (int i = 0; i < 10_000; i++) {
      ByteBuf small = pool.allocate(PacketPool.SMALL);
      ByteBuf large = pool.allocate(PacketPool.LARGE);
      ByteBuf slice = large.retainedSlice(0, 16);
      large.release();
      small.release();
      slice.release(); // the last reference: the parent goes back now
    }
    assertEquals(2, pool.created());
  }

  @Test
  void beyondTheLimitsAndAboveTheLargestClassPacketsComeFromTheFallback() {
    List<ByteBuf> held = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      held.add(pool.allocate(64));
    }
    assertEquals(4, pool.created(), "at most maxSmall small buffers are made");
    ByteBuf huge = pool.allocate(PacketPool.LARGE + 1);
    assertEquals(PacketPool.LARGE + 1, huge.readableBytes());
    assertEquals(4, pool.created());
    held.add(huge);
    held.forEach(ByteBuf::release);
    for (ByteBuf b : held) {
      assertEquals(0, b.refCnt());
    }
    // The four pooled ones are free again; the fallback ones went back to Netty.
    for (int i = 0; i < 4; i++) {
      held.set(i, pool.allocate(8));
    }
    assertEquals(4, pool.created());
  }
}
