package io.github.verbs4j.tca.peach2;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.spi.DirectAddress;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class TcaMallocPoolTest {
  private final TcaMallocPool pool = new TcaMallocPool("test pool", 1L << 35, 0, 64L << 20, false);

  @Test
  void blocksAreAlignedDisjointPinnedAndAddressable() {
    TcaMallocPool.Block a = pool.allocate(100, 64);
    TcaMallocPool.Block b = pool.allocate(100, 64);
    assertEquals(0, a.address() & 63);
    assertTrue(b.address() >= a.address() + 128 || a.address() >= b.address() + 128);
    assertTrue(pool.contains(a.address(), 100));
    assertEquals(2 * 128, pool.inUse());
    TcaMallocPool.Block big = pool.allocate(3 << 20, 64);
    assertTrue(pool.contains(big.address(), 3 << 20));
    assertEquals(2 * 128 + (3 << 20), pool.inUse());
  }

  @Test
  void freedSmallBlocksAreZeroedAndReusedAndCoalesced() {
    TcaMallocPool.Block a = pool.allocate(4096, 64);
    a.buffer().putLong(0, 0x1122334455667788L);
    long addr = a.address();
    a.free();
    a.free();
    TcaMallocPool.Block again = pool.allocate(4096, 64);
    assertEquals(addr, again.address());
    assertEquals(0L, again.buffer().getLong(0));
    TcaMallocPool.Block next = pool.allocate(4096, 64);
    assertEquals(addr + 4096, next.address());
    TcaMallocPool.Block third = pool.allocate(4096, 64);
    again.free();
    next.free();
    TcaMallocPool.Block both = pool.allocate(8192, 64);
    assertEquals(addr, both.address(), "two neighbouring free ranges coalesced");
    third.free();
  }

  @Test
  void releasedDedicatedSegmentsAreNeverMappedAgain() {
    TcaMallocPool.Block big = pool.allocate(2 << 20, 64);
    long addr = big.address();
    big.free();
    assertFalse(pool.contains(addr, 8));
    assertFalse(pool.write(addr - pool.globalBase(), Unpooled.wrappedBuffer(new byte[8]), 0, 8));
    TcaMallocPool.Block next = pool.allocate(2 << 20, 64);
    assertNotEquals(addr, next.address());
  }

  @Test
  void writesOutsidePinnedMemoryAreRefused() {
    TcaMallocPool.Block a = pool.allocate(64, 64);
    long off = a.address() - pool.globalBase();
    assertTrue(pool.write(off, Unpooled.wrappedBuffer(new byte[] {1, 2, 3}), 0, 3));
    assertEquals(3, a.buffer().get(2));
    assertNull(pool.segmentAt(1L << 30, 8));
    assertFalse(pool.write(1L << 30, Unpooled.wrappedBuffer(new byte[4]), 0, 4));
  }

  @Test
  void aFrameSpreadOverSeveralBuffersLandsWholeAndInPlace() {
    TcaMallocPool.Block a = pool.allocate(4096, 64);
    byte[] bytes = new byte[3000];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) (i * 7 + 1);
    }
    io.netty.buffer.CompositeByteBuf frame = Unpooled.compositeBuffer();
    frame.addComponent(true, Unpooled.wrappedBuffer(new byte[] {9, 9}, 0, 2)); // header bytes, skipped
    frame.addComponent(true, Unpooled.directBuffer(1000).writeBytes(bytes, 0, 998));
    frame.addComponent(true, Unpooled.wrappedBuffer(bytes, 998, 1500));
    frame.addComponent(true, Unpooled.directBuffer(600).writeBytes(bytes, 2498, 502));
    long off = a.address() - pool.globalBase() + 100;
    assertTrue(pool.write(off, frame, 2, bytes.length));
    byte[] landed = new byte[bytes.length];
    a.buffer().get(100, landed);
    assertArrayEquals(bytes, landed);
    assertEquals(0, a.buffer().get(99), "nothing before the target");
    assertEquals(0, a.buffer().get(100 + bytes.length), "nothing after it");
    frame.release();
  }

  @Test
  void nativeAddressesOfPoolViewsMapBackToGlobalAddresses() {
    TcaMallocPool.Block a = pool.allocate(256, 64);
    ByteBuffer view = a.buffer().slice(16, 32);
    assertEquals(a.address() + 16, pool.globalAddressOfNative(DirectAddress.of(view), 32));
    assertEquals(-1, pool.globalAddressOfNative(DirectAddress.of(ByteBuffer.allocateDirect(32)), 32));
  }

  @Test
  void exhaustionNamesThePool() {
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> pool.allocate(65 << 20, 64));
    assertTrue(e.getMessage().contains("test pool is exhausted"), e.getMessage());
  }
}
