package io.github.verbs4j.ib;

import static org.junit.jupiter.api.Assertions.*;

import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.testing.Async;
import io.github.verbs4j.ib.engine.IbCounters.Counter;
import io.github.verbs4j.ib.wire.Bth;
import io.github.verbs4j.ib.wire.Icrc;
import io.github.verbs4j.ib.wire.Lrh;
import io.github.verbs4j.ib.wire.Opcode;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.FrameHeader;
import io.github.verbs4j.fabric.auth.Handshake;
import io.github.verbs4j.fabric.auth.JobSecret;
import io.github.verbs4j.fabric.testing.ChildJvm;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * 100,000 malformed frames (random bytes, truncated packets, header bits flipped, trains with a
 * broken tail) written into node B's socket by a member of the job, as node A, over a connection
 * of its own, while A and B play ping-pong: every
 * one is dropped on arrival and counted as {@code malformed}, none reaches B's engine (its
 * malformed, CRC and inbound-full counters stay 0), no connection dies and the ping-pong completes
 * every round.
 */
class MalformedFloodTest {
  private static final int FLOOD = 100_000;

  /** A well-formed 8-byte RC SEND from LID 1 to LID 2 (no ICRC) at {@code at}: 32 bytes. */
  private static int packet(ByteBuf b, int destQp) {
    int len = Opcode.RC_SEND_ONLY.headerLength() + 8 + Icrc.LENGTH;
    int at = b.writerIndex();
    b.ensureWritable(len);
    Lrh.write(b, at, 0, 0, 2, 1, len, true);
    Bth.write(b, at + Lrh.LENGTH, Opcode.RC_SEND_ONLY.value(), false, 0, Bth.DEFAULT_PKEY, destQp, false, 7);
    b.setZero(at + Opcode.RC_SEND_ONLY.headerLength(), 8 + Icrc.LENGTH);
    b.writerIndex(at + len);
    return len;
  }

  /** Bits of the checked LRH fields (LVER, LNH, DLID, length, SLID) and the BTH TVER. */
  private static final int[] CHECKED_BITS = checkedBits();

  private static int[] checkedBits() {
    // Bits numbered from the first byte's most significant bit, as the IBA draws headers.
    java.util.List<Integer> bits = new java.util.ArrayList<>();
    for (int i = 4; i < 8; i++) {
      bits.add(i); // byte 0 low nibble: LVER (the high nibble, VL, is not checked)
    }
    bits.add(14); // byte 1 last two bits: LNH
    bits.add(15);
    for (int i = 16; i < 64; i++) {
      if (i < 32 || i > 36) {
        bits.add(i); // DLID, length, SLID (not the 5 reserved bits before the length)
      }
    }
    for (int i = 4; i < 8; i++) {
      bits.add((Lrh.LENGTH + 1) * 8 + i); // BTH byte 1 low nibble: TVER
    }
    return bits.stream().mapToInt(Integer::intValue).toArray();
  }

  private static ByteBuf malformed(int i, SplittableRandom rnd) {
    ByteBuf b = Unpooled.buffer(128);
    switch (i % 4) {
      case 0 -> {
        int n = 1 + rnd.nextInt(120);
        for (int j = 0; j < n; j++) {
          b.writeByte(rnd.nextInt(256));
        }
        if (n >= Lrh.LENGTH) {
          b.setByte(1, b.getByte(1) & ~3); // LNH 0: random bytes that could pass as a packet are not random
        }
      }
      case 1 -> {
        int len = packet(b, 0x123);
        b.writerIndex(1 + rnd.nextInt(len - 1)); // truncated
      }
      case 2 -> {
        packet(b, 0x123);
        int bit = CHECKED_BITS[rnd.nextInt(CHECKED_BITS.length)];
        int byteAt = bit / 8;
        b.setByte(byteAt, b.getByte(byteAt) ^ (0x80 >>> (bit % 8)));
      }
      default -> {
        packet(b, 0x123);
        packet(b, 0x123);
        b.writerIndex(b.writerIndex() - 1 - rnd.nextInt(16)); // a train whose second packet is cut
      }
    }
    return b;
  }

  /**
   * A member of the job (it holds the secret, as every process on this host can) opens its own
   * connection to B as node A and writes the frames: A's own connection stays free for the
   * ping-pong, as it would with a third process flooding.
   */
  private static int flood(FabricNode a, FabricNode b, AtomicBoolean flooding) throws IOException {
    String coord = a.options().get(FabricOptions.COORDINATOR);
    JobSecret secret = JobSecret.forCoordinator(System.getenv(), Integer.parseInt(coord.substring(coord.lastIndexOf(':') + 1)));
    SocketChannel ch = null;
    for (String addr : b.directory().node(b.nodeId()).address().split(",")) {
      if (addr.startsWith("tcp:") && ch == null) {
        int colon = addr.lastIndexOf(':');
        ch = SocketChannel.open(new InetSocketAddress(addr.substring(4, colon), Integer.parseInt(addr.substring(colon + 1))));
      }
    }
    try (SocketChannel c = ch) {
      Handshake h = Handshake.client(secret, Handshake.Kind.DATA, a.nodeId(), b.nodeId());
      c.write(ByteBuffer.wrap(h.hello()));
      ByteBuffer challenge = ByteBuffer.allocate(Handshake.CHALLENGE_LENGTH);
      while (challenge.hasRemaining()) {
        if (c.read(challenge) < 0) {
          throw new IOException("B closed the connection during the handshake");
        }
      }
      c.write(ByteBuffer.wrap(h.answer(challenge.array())));
      long t0 = System.nanoTime();
      SplittableRandom rnd = new SplittableRandom(23);
      ByteBuf batch = Unpooled.buffer(1 << 16);
      for (int i = 0; i < FLOOD; i++) {
        ByteBuf p = malformed(i, rnd);
        FrameHeader.write(batch, FrameHeader.TYPE_DATA, 0, 1, a.nodeId(), b.nodeId(), FabricPacketPort.TAG, p.readableBytes(), 0, 0);
        batch.writeBytes(p);
        if (batch.readableBytes() > 60_000 || i == FLOOD - 1) {
          ByteBuffer nio = batch.nioBuffer();
          while (nio.hasRemaining()) {
            c.write(nio);
          }
          batch.clear();
        }
      }
      System.out.printf("flood written in %.1f ms; B dropped %d so far%n", (System.nanoTime() - t0) / 1e6, b.metrics().drops(DropReason.MALFORMED));
    } finally {
      flooding.set(false);
    }
    return FLOOD;
  }

  /**
   * Runs in a child JVM of its own: the test JVMs track every buffer for leaks (paranoid), which
   * costs ~0.5 ms per frame under load, and this is about 100,000 frames.
   */
  @Test
  void malformedFramesAreCountedOnArrivalAndNeverStopAPingPong() {
    try (ChildJvm child = ChildJvm.builder(MalformedFloodTest.class).name("ib-malformed-flood").start()) {
      int exit = child.waitFor(Duration.ofSeconds(600));
      assertEquals(0, exit, child.output());
      assertTrue(child.output().contains("malformed flood: 100000 frames dropped on arrival"), child.output());
    }
  }

  /**
   * The scenario; exits 0 if every check holds.
   *
   * @param args none
   * @throws Exception on failure (exit 1)
   */
  public static void main(String[] args) throws Exception {
    run();
    System.exit(0);
  }

  private static void run() throws Exception {
    try (TwoNodes n = TwoNodes.netty(Map.of())) {
      CompletionQueue cqA = n.a.createCq(64, null, 0);
      CompletionQueue cqB = n.b.createCq(64, null, 0);
      QpCap cap = QpCap.builder().maxSendWr(16).maxRecvWr(16).build();
      QueuePair qa = n.qp(n.pdA, QpType.RC, cqA, cap);
      QueuePair qb = n.qp(n.pdB, QpType.RC, cqB, cap);
      MemoryRegion ma = n.pdA.allocateMemory(64, TwoNodes.ALL);
      MemoryRegion mb = n.pdB.allocateMemory(64, TwoNodes.ALL);
      try {
        // A transport timer of ~4.3 s (timeout 20): the machine the suite runs on may be loaded far
        // beyond its cores; what is tested is that no malformed frame reaches the engine.
        n.connect(qa, n.a, qb, n.b, 0x10, 0x20, io.github.verbs4j.verbs.Mtu.MTU_1024, 20, 7, 7, 12, 4);
        FabricNode a = ((IbContext) n.a).fabricNode();
        FabricNode b = ((IbContext) n.b).fabricNode();
        AtomicBoolean flooding = new AtomicBoolean(true);
        CompletableFuture<Integer> flood = Async.supply(() -> {
          try {
            return flood(a, b, flooding);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
        // Ping-pong (8 B each way) for as long as the flood lasts, and some rounds after.
        int rounds = 0;
        int after = 0;
        WorkCompletion[] wc = WorkCompletion.array(1);
        org.HdrHistogram.Histogram during = new org.HdrHistogram.Histogram(3);
        org.HdrHistogram.Histogram quiet = new org.HdrHistogram.Histogram(3);
        while (after < 200) {
          boolean inFlood = flooding.get();
          long t0 = System.nanoTime();
          qb.postRecv(new RecvWr().wrId(rounds).sge(mb, 0, 8));
          qa.postRecv(new RecvWr().wrId(rounds).sge(ma, 8, 8));
          qa.postSend(new SendWr().wrId(rounds).opcode(WrOpcode.SEND).signaled(true).sge(ma, 0, 8));
          for (WorkCompletion c : n.poll(cqB, 1, Duration.ofSeconds(60))) {
            TwoNodes.assertOk(c);
          }
          qb.postSend(new SendWr().wrId(rounds).opcode(WrOpcode.SEND).signaled(true).sge(mb, 0, 8));
          WorkCompletion[] got = n.poll(cqA, 2, Duration.ofSeconds(60));
          for (WorkCompletion c : got) {
            TwoNodes.assertOk(c);
          }
          for (WorkCompletion c : n.poll(cqB, 1, Duration.ofSeconds(60))) {
            TwoNodes.assertOk(c);
          }
          (inFlood ? during : quiet).recordValue((System.nanoTime() - t0) / 1000);
          rounds++;
          if (!flooding.get()) {
            after++;
          }
        }
        assertEquals(FLOOD, flood.get(120, TimeUnit.SECONDS));
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (b.metrics().drops(DropReason.MALFORMED) < FLOOD && System.nanoTime() < until) {
          Thread.sleep(10);
        }
        IbContext ib = (IbContext) n.b;
        assertEquals(0, ib.counters().get(Counter.DROP_MALFORMED), "a malformed frame reached B's engine");
        assertEquals(0, ib.counters().get(Counter.CRC_DROPS));
        assertEquals(0, ib.counters().get(Counter.DROP_UNKNOWN_QP), "a flood packet (to QP 0x123) reached B's engine");
        assertEquals(0, ib.counters().get(Counter.DROP_INBOUND_FULL));
        assertEquals(FLOOD, b.metrics().totalDrops(), "drops other than malformed on B");
        assertEquals(QpState.RTS, qa.state());
        assertEquals(QpState.RTS, qb.state());
        assertTrue(a.directory().node(b.nodeId()).up() && b.directory().node(a.nodeId()).up(), "a connection died");
        assertTrue(rounds >= 200, "ping-pong rounds " + rounds);
        System.out.printf("malformed flood: %d frames dropped on arrival; 8 B ping-pong round trip p50/p99 us: "
            + "during the flood %d/%d (%d rounds), after it %d/%d (%d rounds)%n", FLOOD, during.getValueAtPercentile(50),
            during.getValueAtPercentile(99), during.getTotalCount(), quiet.getValueAtPercentile(50),
            quiet.getValueAtPercentile(99), quiet.getTotalCount());
      } finally {
        TwoNodes.closeAll(qa, qb, ma, mb, cqA, cqB);
      }
    }
  }
}
