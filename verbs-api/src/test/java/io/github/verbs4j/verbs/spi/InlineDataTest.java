package io.github.verbs4j.verbs.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.Sge;
import io.github.verbs4j.verbs.VerbsException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link InlineData}, {@link RegionDirectory} and buffer SGEs without a provider: where inline bytes
 * come from, the post-time errors (field, value, WR index), the copy's order, a source that
 * vanished after the check, and no allocation per copy.
 */
class InlineDataTest {
  private static final EnumSet<Access> LOCAL = EnumSet.of(Access.LOCAL_WRITE);

  /** A context with one registered region listed in its directory, as providers list theirs. */
  private static final class Fixture implements AutoCloseable {
    final TestContext ctx = new TestContext();
    final ProtectionDomain pd = ctx.allocPd();
    final SoftMemoryRegion mr = (SoftMemoryRegion) pd.allocateMemory(256, LOCAL);

    Fixture() {
      ctx.regions().add(mr);
      ByteBuffer b = mr.buffer();
      for (int i = 0; i < 256; i++) {
        b.put(i, (byte) (0x80 + i));
      }
    }

    @Override
    public void close() {
      ctx.regions().remove(mr);
      mr.close();
      pd.close();
      ctx.close();
    }
  }

  private static ByteBuffer bytes(ByteBuffer b, int from, int len, int first) {
    for (int i = 0; i < len; i++) {
      b.put(from + i, (byte) (first + i));
    }
    return b.position(from).limit(from + len);
  }

  @Test
  void bufferSgeTakesPositionAndLimitWithoutChangingThem() {
    ByteBuffer b = ByteBuffer.allocateDirect(32).position(5).limit(20);
    Sge s = new Sge().set(b);
    assertSame(b, s.buffer());
    assertEquals(5, s.bufferOffset());
    assertEquals(15, s.length());
    assertEquals(0, s.addr());
    assertEquals(5, b.position());
    assertEquals(20, b.limit());
    b.position(0).limit(32);
    assertEquals(5, s.bufferOffset(), "later moves of the buffer do not move the SGE");
    Sge copy = new Sge().copyFrom(s);
    assertSame(b, copy.buffer());
    assertEquals(5, copy.bufferOffset());
    assertTrue(copy.toString().contains("buffer=direct"), copy::toString);
    assertNull(copy.set(0x1000, 8, 7).buffer(), "an address SGE again");
    assertNull(new Sge().copyFrom(s).addr(0x2000).buffer());
    assertEquals(0, new Sge().set(ByteBuffer.allocate(4)).bufferOffset());
  }

  @Test
  void copyGathersBuffersAndRegionsInSgeOrder() {
    try (Fixture f = new Fixture()) {
      ByteBuffer direct = bytes(ByteBuffer.allocateDirect(16), 3, 4, 1);
      ByteBuffer heap = bytes(ByteBuffer.allocate(16), 7, 5, 0x41);
      SendWr wr = new SendWr().inline(true);
      wr.sgList().numSge(4);
      wr.sgList().sge(0).set(direct);
      wr.sgList().sge(1).set(f.mr, 10, 3);
      wr.sgList().sge(2).set(f.mr.address() + 20, 2, 0xdead); // wrong lkey: found by address
      wr.sgList().sge(3).set(heap);
      InlineData.check(wr, true, 0, f.ctx);
      ByteBuffer into = ByteBuffer.allocateDirect(32);
      assertTrue(InlineData.copy(wr, f.ctx, into, 1));
      byte[] expected = {0, 1, 2, 3, 4, (byte) 0x8a, (byte) 0x8b, (byte) 0x8c, (byte) 0x94, (byte) 0x95, 0x41, 0x42, 0x43,
          0x44, 0x45, 0};
      for (int i = 0; i < expected.length; i++) {
        assertEquals(expected[i], into.get(i), "byte " + i);
      }
      assertEquals(3, direct.position());
      assertEquals(7, heap.position());
    }
  }

  @Test
  void bufferSgeWithoutInlineFailsNamingTheSgeAndWr() {
    try (Fixture f = new Fixture()) {
      SendWr wr = new SendWr();
      wr.sgList().numSge(2);
      wr.sgList().sge(0).set(f.mr, 0, 8);
      wr.sgList().sge(1).set(ByteBuffer.allocateDirect(8));
      VerbsException e = assertThrows(VerbsException.class, () -> InlineData.check(wr, false, 3, f.ctx));
      assertEquals(Errno.EINVAL, e.errno());
      assertEquals(3, e.badWrIndex());
      assertTrue(e.getMessage().startsWith("sge[1] is a ByteBuffer SGE but the WR lacks IBV_SEND_INLINE"), e.getMessage());
      assertTrue(e.getMessage().endsWith("(wr #3)"), e.getMessage());
    }
  }

  @Test
  void bufferSgeBeyondTheLimitFails() {
    try (Fixture f = new Fixture()) {
      ByteBuffer b = ByteBuffer.allocate(16).position(4).limit(12);
      SendWr wr = new SendWr().inline(true).sge(b);
      wr.sgList().sge(0).length(9);
      VerbsException e = assertThrows(VerbsException.class, () -> InlineData.check(wr, true, 0, f.ctx));
      assertTrue(e.getMessage().contains("sge[0].length=9 at buffer offset 4 exceeds the buffer's limit=12"),
          e.getMessage());
    }
  }

  @Test
  void inlineAddressInNoRegionFailsNamingTheAddress() {
    try (Fixture f = new Fixture()) {
      long past = f.mr.address() + 250;
      SendWr wr = new SendWr().inline(true);
      wr.sgList().numSge(1);
      wr.sgList().sge(0).set(past, 16, f.mr.lkey());
      VerbsException e = assertThrows(VerbsException.class, () -> InlineData.check(wr, true, 1, f.ctx));
      assertEquals(Errno.EINVAL, e.errno());
      assertTrue(e.getMessage().startsWith("sge[0].addr=0x" + Long.toHexString(past) + " length=16 is in no memory "
          + "region"), e.getMessage());
      assertEquals(1, e.badWrIndex());
      wr.sgList().sge(0).length(0);
      InlineData.check(wr, true, 1, f.ctx); // zero bytes need no source
      wr.sgList().sge(0).length(16);
      InlineData.check(wr, false, 1, f.ctx); // without INLINE the lkey path applies (a completion error later)
    }
  }

  @Test
  void aRegionDeregisteredAfterTheCheckIsNotRead() {
    try (Fixture f = new Fixture()) {
      MemoryRegion other = f.pd.allocateMemory(64, LOCAL);
      f.ctx.regions().add((SoftMemoryRegion) other);
      SendWr wr = new SendWr().inline(true).sge(other, 0, 8);
      InlineData.check(wr, true, 0, f.ctx);
      f.ctx.regions().remove((SoftMemoryRegion) other);
      other.close();
      assertFalse(InlineData.copy(wr, f.ctx, ByteBuffer.allocate(8), 0));
      assertNull(f.ctx.regions().containing(other.address(), 8));
      assertThrows(VerbsException.class, () -> InlineData.check(wr, true, 0, f.ctx));
    }
  }

  @Test
  void regionDirectoryAddsOnceAndRemoves() {
    try (Fixture f = new Fixture()) {
      f.ctx.regions().add(f.mr);
      assertEquals(1, f.ctx.regions().size());
      assertSame(f.mr, f.ctx.regions().containing(f.mr.address() + 255, 1));
      assertNull(f.ctx.regions().containing(f.mr.address() + 255, 2));
      f.ctx.regions().remove(f.mr);
      f.ctx.regions().remove(f.mr);
      assertEquals(0, f.ctx.regions().size());
    }
  }

  @Test
  void regionDirectoryFindsARegionHoldingTheRangeAmongOverlappingOnes() {
    try (Fixture f = new Fixture()) {
      ByteBuffer big = ByteBuffer.allocateDirect(4096);
      SoftMemoryRegion whole = (SoftMemoryRegion) f.pd.registerMemory(big, LOCAL);
      List<SoftMemoryRegion> small = new ArrayList<>();
      for (int i = 0; i < 1000; i++) { // regions of 16 bytes inside it, two per start
        small.add((SoftMemoryRegion) f.pd.registerMemory(big.slice(i % 500 * 8, 16), LOCAL));
      }
      small.forEach(f.ctx.regions()::add);
      f.ctx.regions().add(whole);
      long base = whole.address();
      assertNotNull(f.ctx.regions().containing(base + 100, 16), "a small region holds it");
      assertSame(whole, f.ctx.regions().containing(base + 100, 17), "only the whole buffer holds 17 bytes");
      assertSame(whole, f.ctx.regions().containing(base + 4000, 96));
      assertNull(f.ctx.regions().containing(base + 4000, 97), "past the end");
      f.ctx.regions().remove(whole);
      whole.close();
      assertNull(f.ctx.regions().containing(base + 100, 17), "removed");
      SoftMemoryRegion hit = f.ctx.regions().containing(base + 3990, 8);
      assertTrue(hit.contains(base + 3990, 8));
      small.forEach(f.ctx.regions()::remove);
      small.forEach(SoftMemoryRegion::close);
      assertNull(f.ctx.regions().containing(base + 3990, 8));
      assertEquals(1, f.ctx.regions().size(), "the fixture's region");
    }
  }

  @Test
  void checkAndCopyAllocateNothingPerWr() {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    try (Fixture f = new Fixture()) {
      ByteBuffer direct = bytes(ByteBuffer.allocateDirect(64), 3, 40, 1);
      ByteBuffer heap = bytes(ByteBuffer.allocate(64), 0, 40, 2);
      SendWr wr = new SendWr().inline(true);
      wr.sgList().numSge(3);
      ByteBuffer into = ByteBuffer.allocateDirect(256);
      int rounds = 200_000;
      long before = 0;
      for (int pass = 0; pass < 2; pass++) { // the first pass warms up
        before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < rounds; i++) {
          wr.sgList().sge(0).set(direct);
          wr.sgList().sge(1).set(f.mr.address() + 8, 40, 0); // by address: the directory's path
          wr.sgList().sge(2).set(heap);
          InlineData.check(wr, true, 0, f.ctx);
          if (!InlineData.copy(wr, f.ctx, into, 0)) {
            throw new AssertionError("copy failed");
          }
        }
      }
      long perWr = (threads.getCurrentThreadAllocatedBytes() - before) / rounds;
      assertEquals(0, perWr, "bytes allocated per inline WR checked and copied");
    }
  }
}
