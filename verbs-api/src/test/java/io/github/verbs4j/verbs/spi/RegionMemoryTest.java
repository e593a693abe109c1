package io.github.verbs4j.verbs.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.VerbsException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Memory from {@code allocateMemory} is freed when its region closes, not when a GC collects it
 * (issue #20), unless the application holds a view of it, and is never touched by the device
 * afterwards (issue #23).
 */
class RegionMemoryTest {
  private static final Set<Access> LOCAL = EnumSet.of(Access.LOCAL_WRITE);

  /**
   * Four times the JVM's direct memory limit (64 MiB in a child JVM), allocated and closed 4 MiB at
   * a time while every closed region stays reachable, so no GC can free a buffer: before regions
   * freed their memory at close this ended in ENOMEM after 16 regions.
   */
  @Test
  void closedRegionsGiveTheirMemoryBackBeyondTheLimit() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(java, "-XX:MaxDirectMemorySize=64m",
        "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
        AllocateAndClose.class.getName(), "64", String.valueOf(4 << 20)).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "child JVM still running");
    assertEquals(0, p.exitValue(), out);
    assertTrue(out.contains("closed 64 regions of 4194304 bytes under a limit of 67108864"), out);
  }

  /**
   * Regions whose memory the application took a view of are not freed at close (the view is Java
   * memory): dropped, their buffers are garbage, and an allocation that finds the limit used up lets
   * the JDK collect them. Before, {@code DirectMemory.allocate} refused at the limit without a GC:
   * ENOMEM after 16 regions.
   */
  @Test
  void regionsWithViewsAreFreedByTheGcWhenTheLimitIsReached() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(java, "-XX:MaxDirectMemorySize=64m",
        "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
        AllocateAndClose.class.getName(), "64", String.valueOf(4 << 20), "view").redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "child JVM still running");
    assertEquals(0, p.exitValue(), out);
    assertTrue(out.contains("closed 64 regions of 4194304 bytes under a limit of 67108864"), out);
  }

  /** A view taken before close stays valid memory after it: the close does not free it. */
  @Test
  void aViewTakenBeforeCloseStaysUsable() {
    TestContext ctx = new TestContext();
    ProtectionDomain pd = ctx.allocPd();
    MemoryRegion mr = pd.allocateMemory(1 << 20, LOCAL);
    ByteBuffer view = mr.buffer();
    long before = DirectMemory.used();
    mr.close();
    assertEquals(before, DirectMemory.used(), "a region with a view is left to the GC");
    view.putLong((1 << 20) - 8, 42);
    assertEquals(42, view.getLong((1 << 20) - 8));
    assertEquals(Errno.EBADF, assertThrows(VerbsException.class, mr::buffer).errno());
    pd.close();
  }

  /** Closing an allocated region lowers the direct memory in use at once, though it is reachable. */
  @Test
  void closingARegionLowersDirectMemoryInUse() {
    TestContext ctx = new TestContext();
    ProtectionDomain pd = ctx.allocPd();
    int chunk = 64 << 20;
    long before = DirectMemory.used();
    MemoryRegion mr = pd.allocateMemory(chunk, LOCAL);
    assertTrue(DirectMemory.used() >= before + chunk, "the region's memory is counted");
    mr.close();
    assertTrue(DirectMemory.used() < before + chunk, "closing freed the region's memory");
    pd.close();
  }

  /** The child JVM of {@link #closedRegionsGiveTheirMemoryBackBeyondTheLimit}: args count, bytes. */
  static final class AllocateAndClose {
    public static void main(String[] args) {
      int count = Integer.parseInt(args[0]);
      int bytes = Integer.parseInt(args[1]);
      boolean view = args.length > 2 && args[2].equals("view");
      ProtectionDomain pd = new TestContext().allocPd();
      List<MemoryRegion> closed = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        MemoryRegion mr = pd.allocateMemory(bytes, LOCAL);
        if (view) {
          mr.buffer().put(0, (byte) 1); // then only a GC can free it: the region is dropped
          mr.close();
        } else {
          mr.close();
          closed.add(mr); // reachable: only the close can have freed it
        }
      }
      System.out.println("closed " + count + " regions of " + bytes + " bytes under a limit of "
          + DirectMemory.limit());
    }
  }

  /** A caller's registered buffer is the caller's: closing its region leaves it usable. */
  @Test
  void aRegisteredBufferOutlivesItsRegion() {
    TestContext ctx = new TestContext();
    ProtectionDomain pd = ctx.allocPd();
    ByteBuffer mine = ByteBuffer.allocateDirect(4096);
    MemoryRegion mr = pd.registerMemory(mine, LOCAL);
    SoftMemoryRegion soft = (SoftMemoryRegion) mr;
    mr.close();
    mine.putLong(0, 42);
    assertEquals(42, mine.getLong(0));
    assertTrue(soft.copyIn(soft.iova(), ByteBuffer.allocate(8), 0, 8), "no freeing for a caller's memory");
    pd.close();
  }

  /** After close every access to an allocated region fails without touching the freed memory. */
  @Test
  void accessAfterCloseFailsCleanly() {
    TestContext ctx = new TestContext();
    ProtectionDomain pd = ctx.allocPd();
    SoftMemoryRegion mr = (SoftMemoryRegion) pd.allocateMemory(1 << 20, EnumSet.of(Access.LOCAL_WRITE,
        Access.REMOTE_WRITE, Access.REMOTE_ATOMIC));
    long va = mr.iova();
    mr.close();
    ByteBuffer bytes = ByteBuffer.allocateDirect(64);
    assertFalse(mr.copyIn(va, bytes, 0, 64), "copyIn after close");
    assertFalse(mr.copyOut(va, bytes, 0, 64), "copyOut after close");
    assertEquals(Errno.EBADF, assertThrows(VerbsException.class, () -> mr.fetchAdd(va, 1)).errno());
    assertEquals(Errno.EBADF, assertThrows(VerbsException.class, () -> mr.compareSwap(va, 0, 1)).errno());
    assertEquals(Errno.EBADF, assertThrows(VerbsException.class, () -> mr.getLongVolatile(va)).errno());
    assertEquals(Errno.EBADF, assertThrows(VerbsException.class, mr::buffer).errno());
    assertEquals(Errno.EBADF, assertThrows(VerbsException.class, mr::memory).errno());
    mr.close(); // idempotent: no second free
    pd.close();
  }

  /**
   * A copy running while another thread closes the region either completes before the memory is
   * freed or does not start: 200 times, a thread copies in and out of a 1 MiB region until a copy
   * reports the region gone, while this thread closes it. A copy into freed memory would corrupt
   * or crash the JVM rather than fail this test; the counts show both sides were exercised.
   */
  @Test
  void closeWaitsForACopyInsideTheMemory() throws InterruptedException {
    TestContext ctx = new TestContext();
    ProtectionDomain pd = ctx.allocPd();
    ByteBuffer src = ByteBuffer.allocateDirect(1 << 20);
    ByteBuffer dst = ByteBuffer.allocateDirect(1 << 20);
    AtomicLong copies = new AtomicLong();
    for (int round = 0; round < 200; round++) {
      SoftMemoryRegion mr = (SoftMemoryRegion) pd.allocateMemory(1 << 20, LOCAL);
      long va = mr.iova();
      Thread copier = new Thread(() -> {
        while (mr.copyIn(va, src, 0, 1 << 20) && mr.copyOut(va, dst, 0, 1 << 20)) {
          copies.incrementAndGet();
        }
      });
      copier.start();
      Thread.yield();
      mr.close();
      copier.join(60_000);
      assertFalse(copier.isAlive(), "round " + round + ": a copy went on after close");
    }
    assertTrue(copies.get() > 0, "no copy ran before a close: the race was not exercised");
    pd.close();
  }
}
