package io.github.verbs4j.tca.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.tca.peach2.DmaRule;
import io.github.verbs4j.tca.peach2.Peach2Counters;
import io.github.verbs4j.tca.peach2.TransferKind;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * TCA Verbs reaches the other node only through the PEACH2 model, and breaks none of its rules:
 * two contexts on one in-JVM fabric move every kind of message (low-latency and high-bandwidth
 * packets, rendezvous SEND and WRITE straight into pool memory and through bounce buffers for
 * registered memory and mismatched low address bits, short and long READ, atomics, UD), every
 * byte arrives exactly, and afterwards every frame and every byte the fabric carried is one the
 * boards' PCIe links sent (PEACH2 write TLPs, and the Ack DLLPs of their data link layer, which
 * carry no data); the DMA controllers refused nothing.
 */
class HonestEmulationTest {
  private TwoTcaNodes nodes;
  private TwoTcaNodes.Side a;
  private TwoTcaNodes.Side b;
  private SimpleMeterRegistry registry;
  private final Random random = new Random(7);

  @BeforeEach
  void open() {
    nodes = new TwoTcaNodes(14);
    a = nodes.a;
    b = nodes.b;
    registry = nodes.registry;
  }

  @AfterEach
  void close() {
    nodes.close();
  }

  private static WorkCompletion poll(CompletionQueue cq) {
    return TwoTcaNodes.poll(cq);
  }

  private byte[] fill(MemoryRegion mr, ByteBuffer mem, int off, int len) {
    byte[] data = new byte[len];
    random.nextBytes(data);
    mem.put(off, data);
    return data;
  }

  private static byte[] read(ByteBuffer mem, int off, int len) {
    byte[] out = new byte[len];
    mem.get(off, out);
    return out;
  }

  /** SEND of {@code len} bytes from a's region at {@code srcOff} into b's region at {@code dstOff}. */
  private void send(MemoryRegion src, ByteBuffer srcMem, int srcOff, MemoryRegion dst, ByteBuffer dstMem, int dstOff,
      int len) {
    byte[] data = fill(src, srcMem, srcOff, len);
    b.rc.postRecv(new RecvWr().wrId(1).sge(dst, dstOff, len));
    a.rc.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).signaled(true).sge(src, srcOff, len));
    poll(a.cq);
    assertEquals(len, poll(b.cq).byteLen());
    assertArrayEquals(data, read(dstMem, dstOff, len), "SEND of " + len + " bytes");
  }

  private void write(MemoryRegion src, ByteBuffer srcMem, int srcOff, MemoryRegion dst, ByteBuffer dstMem, int dstOff,
      int len) {
    byte[] data = fill(src, srcMem, srcOff, len);
    a.rc.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE).signaled(true).sge(src, srcOff, len)
        .rdma(dst.address() + dstOff, dst.rkey()));
    poll(a.cq);
    assertArrayEquals(data, read(dstMem, dstOff, len), "WRITE of " + len + " bytes");
  }

  private void readFrom(MemoryRegion src, ByteBuffer srcMem, int srcOff, MemoryRegion dst, ByteBuffer dstMem,
      int dstOff, int len) {
    byte[] data = fill(src, srcMem, srcOff, len);
    a.rc.postSend(new SendWr().wrId(4).opcode(WrOpcode.RDMA_READ).signaled(true).sge(dst, dstOff, len)
        .rdma(src.address() + srcOff, src.rkey()));
    assertEquals(len, poll(a.cq).byteLen());
    assertArrayEquals(data, read(dstMem, dstOff, len), "READ of " + len + " bytes");
  }

  /** Board frames, board bytes, fabric frames, fabric bytes. */
  private long[] counts() {
    Peach2Counters.Snapshot ca = a.board();
    Peach2Counters.Snapshot cb = b.board();
    double fabricFrames = registry.get("verbs4j.fabric.frames.sent").functionCounters().stream()
        .mapToDouble(c -> c.count()).sum();
    double fabricBytes = registry.get("verbs4j.fabric.bytes.sent").functionCounters().stream()
        .mapToDouble(c -> c.count()).sum();
    return new long[] {ca.framesSent() + cb.framesSent(), ca.frameBytesSent() + cb.frameBytesSent(),
        (long) fabricFrames, (long) fabricBytes};
  }

  /**
   * The counts once two readings 50 ms apart agree: a board counts a frame just after the fabric
   * took it, so a frame in flight shows on the fabric first.
   */
  private long[] quiescentCounts() {
    long[] last = counts();
    for (int i = 0; i < 100; i++) {
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
      long[] now = counts();
      if (Arrays.equals(now, last)) {
        return now;
      }
      last = now;
    }
    throw new AssertionError("the fabric never went quiet: " + Arrays.toString(last));
  }

  @Test
  void everyByteThatCrossesNodesIsAPeach2WriteAndTheRulesAreNeverBroken() {
    ByteBuffer ap = a.pool.buffer();
    ByteBuffer bp = b.pool.buffer();
    // packets: low-latency ring, high-bandwidth ring
    send(a.pool, ap, 0, b.pool, bp, 0, 32);
    send(a.pool, ap, 0, b.pool, bp, 0, 4000);
    // rendezvous SEND: pool to pool (direct DMA), registered memory at odd offsets (bounce on both sides)
    send(a.pool, ap, 0, b.pool, bp, 0, 1 << 20);
    send(a.user, a.userMemory, 3, b.user, b.userMemory, 5, 100_001);
    // WRITE: short (packet), long aligned (direct), long with different low address bits, into registered memory
    write(a.pool, ap, 8, b.pool, bp, 8, 500);
    write(a.pool, ap, 0, b.pool, bp, 4096, 256 * 1024);
    write(a.pool, ap, 7, b.pool, bp, 1, 64 * 1024 + 7);
    write(a.pool, ap, 0, b.user, b.userMemory, 0, 200_000);
    // READ: short (in the response packet), long (DMA to a landing area), into registered memory
    readFrom(b.pool, bp, 16, a.pool, ap, 16, 100);
    readFrom(b.pool, bp, 0, a.pool, ap, 0, 300_000);
    readFrom(b.pool, bp, 13, a.user, a.userMemory, 2, 70_000);
    // atomics
    bp.putLong(1 << 21, 0);
    for (int i = 1; i <= 50; i++) {
      a.rc.postSend(new SendWr().wrId(5).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true).sge(a.pool, 64, 8)
          .atomic(b.pool.address() + (1 << 21), b.pool.rkey(), i, 0));
      poll(a.cq);
    }
    assertEquals(50 * 51 / 2, bp.getLong(1 << 21));
    // UD
    byte[] ud = fill(a.pool, ap, 0, 1000);
    b.ud.postRecv(new RecvWr().wrId(6).sge(b.pool, 0, 1040));
    try (io.github.verbs4j.verbs.AddressHandle ah = a.pd.createAh(AhAttr.lid(b.lid()))) {
      a.ud.postSend(new SendWr().wrId(7).opcode(WrOpcode.SEND).signaled(true).sge(a.pool, 0, 1000)
          .ud(ah, b.ud.qpNum(), TwoTcaNodes.QKEY));
      poll(a.cq);
    }
    assertEquals(1040, poll(b.cq).byteLen());
    assertArrayEquals(ud, read(bp, 40, 1000));

    // the engines may still be writing back credits: count once nothing moves any more
    long[] counts = quiescentCounts();
    Peach2Counters.Snapshot ca = a.board();
    Peach2Counters.Snapshot cb = b.board();
    assertEquals(counts[0], counts[2], "every frame on the fabric is a PEACH2 link frame (write TLPs, DLLPs)");
    assertEquals(counts[1], counts[3], "every byte on the fabric is a PEACH2 link frame byte");
    for (Peach2Counters.Snapshot c : new Peach2Counters.Snapshot[] {ca, cb}) {
      long dllps = c.link(Peach2Counters.Link.ACKS_SENT) + c.link(Peach2Counters.Link.NAKS_SENT);
      assertTrue(c.framesSent() > dllps, "the frames that are not DLLPs are writes");
    }
    long appBytes = 32 + 4000 + (1 << 20) + 100_001 + 500 + 256 * 1024 + 64 * 1024 + 7 + 200_000 + 1000;
    assertTrue(ca.remoteBytesTotal() >= appBytes, "a moved " + ca.remoteBytesTotal() + " bytes for " + appBytes);
    assertTrue(cb.remoteBytesTotal() >= 100 + 300_000 + 70_000, "b moved the READ data: " + cb.remoteBytesTotal());
    for (Peach2Counters.Snapshot c : new Peach2Counters.Snapshot[] {ca, cb}) {
      assertEquals(0L, c.violationsTotal(), "DMA requests refused: " + c.violations());
    }
    assertTrue(ca.transfers().get(TransferKind.of(io.github.verbs4j.tca.peach2.DescriptorMode.INTERNAL)) > 0,
        "low-latency ring: prebuilt internal descriptors");
    assertTrue(ca.transfers().get(TransferKind.of(io.github.verbs4j.tca.peach2.DescriptorMode.HOST)) > 0,
        "high-bandwidth ring and long data: host descriptors");
    assertTrue(cb.transfers().get(TransferKind.PIO) > 0, "credits written back by PIO");
    assertTrue(ca.bounceCopies() > 0 && cb.bounceCopies() > 0, "bounce buffers for the rule cases");
    assertEquals(0L, ca.violations().getOrDefault(DmaRule.LOW4_MISMATCH, 0L));
  }
}
