package io.github.verbs4j.tca.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.tca.peach2.DmaRule;
import io.github.verbs4j.tca.peach2.Peach2Counters;
import io.github.verbs4j.tca.peach2.TransferKind;
import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.DeviceOptions;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import io.github.verbs4j.verbs.config.VerbsConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * TCA Verbs reaches the other node only through the PEACH2 model, and breaks none of its rules:
 * two contexts on one in-JVM fabric move every kind of message (low-latency and high-bandwidth
 * packets, rendezvous SEND and WRITE straight into pool memory and through bounce buffers for
 * registered memory and mismatched low address bits, short and long READ, atomics, UD), every
 * byte arrives exactly, and afterwards every frame and every byte the fabric carried is one the
 * boards sent as a PEACH2 write; the DMA controllers refused nothing.
 */
class HonestEmulationTest {
  private static final Set<Access> ALL = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ,
      Access.REMOTE_ATOMIC);
  private static final int POOL = 4 << 20;
  private static final int USER = 1 << 20;

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final Side a = new Side();
  private final Side b = new Side();
  private final Random random = new Random(7);

  /** One node's resources. */
  private static final class Side {
    Context ctx;
    ProtectionDomain pd;
    CompletionQueue cq;
    MemoryRegion pool;
    ByteBuffer userMemory;
    MemoryRegion user;
    QueuePair rc;
    QueuePair ud;

    void open(VerbsConfig c, SimpleMeterRegistry registry) {
      ctx = Verbs.open(c, DeviceOptions.none().with(io.micrometer.core.instrument.MeterRegistry.class, registry));
      pd = ctx.allocPd();
      cq = ctx.createCq(256, null, 0);
      pool = pd.allocateMemory(POOL, ALL);
      userMemory = ByteBuffer.allocateDirect(USER);
      user = pd.registerMemory(userMemory, ALL);
      QpCap cap = QpCap.builder().maxSendWr(128).maxRecvWr(128).maxSendSge(4).maxRecvSge(4).build();
      rc = pd.createQp(QpInitAttr.builder(QpType.RC).sendCq(cq).recvCq(cq).cap(cap).build());
      ud = pd.createQp(QpInitAttr.builder(QpType.UD).sendCq(cq).recvCq(cq).cap(cap).build());
    }

    int lid() {
      return ctx.queryPort(1).lid();
    }

    Peach2Counters.Snapshot board() {
      return ((TcaContext) ctx).board().counters().snapshot();
    }

    void close() {
      for (AutoCloseable c : new AutoCloseable[] {ud, rc, user, pool, cq, pd, ctx}) {
        try {
          if (c != null) {
            c.close();
          }
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      }
    }
  }

  @BeforeEach
  void open() {
    String job = UUID.randomUUID().toString();
    CompletableFuture<Void> fa = CompletableFuture.runAsync(() -> a.open(config(job, 0), registry));
    CompletableFuture<Void> fb = CompletableFuture.runAsync(() -> b.open(config(job, 1), registry));
    fa.join();
    fb.join();
    connect(a, b);
    connect(b, a);
    for (Side s : new Side[] {a, b}) {
      s.ud.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(0x1111));
      s.ud.modify(new QpAttr().qpState(QpState.RTR));
      s.ud.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0));
    }
  }

  private static VerbsConfig config(String job, int rank) {
    return VerbsConfig.of(Map.of("verbs.provider", "tca", "verbs.fabric", "local", "verbs.fabric.name", "honest-" + job,
        "verbs.rank", Integer.toString(rank), "verbs.size", "2", "verbs.tca.job", job));
  }

  private static void connect(Side s, Side peer) {
    s.rc.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(ALL));
    s.rc.modify(new QpAttr().qpState(QpState.RTR).pathMtu(io.github.verbs4j.verbs.Mtu.MTU_4096).destQpNum(peer.rc.qpNum()).rqPsn(100).maxDestRdAtomic(4)
        .minRnrTimer(1).ahAttr(AhAttr.lid(peer.lid())));
    s.rc.modify(new QpAttr().qpState(QpState.RTS).sqPsn(100).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(4));
  }

  @AfterEach
  void close() {
    a.close();
    b.close();
  }

  private static WorkCompletion poll(CompletionQueue cq) {
    WorkCompletion[] wc = WorkCompletion.array(1);
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (cq.poll(wc) == 0) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no completion within 30 s");
      }
      Thread.onSpinWait();
    }
    assertEquals(WcStatus.SUCCESS, wc[0].status(), wc[0]::toString);
    return wc[0];
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
          .ud(ah, b.ud.qpNum(), 0x1111));
      poll(a.cq);
    }
    assertEquals(1040, poll(b.cq).byteLen());
    assertArrayEquals(ud, read(bp, 40, 1000));

    Peach2Counters.Snapshot ca = a.board();
    Peach2Counters.Snapshot cb = b.board();
    long boardFrames = ca.framesSent() + cb.framesSent();
    long boardBytes = ca.frameBytesSent() + cb.frameBytesSent();
    double fabricFrames = registry.get("verbs4j.fabric.frames.sent").functionCounters().stream()
        .mapToDouble(c -> c.count()).sum();
    double fabricBytes = registry.get("verbs4j.fabric.bytes.sent").functionCounters().stream()
        .mapToDouble(c -> c.count()).sum();
    assertEquals(boardFrames, (long) fabricFrames, "every frame on the fabric is a PEACH2 write frame");
    assertEquals(boardBytes, (long) fabricBytes, "every byte on the fabric is a PEACH2 write frame byte");
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
