package io.github.verbs4j.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FrameHeader;
import io.github.verbs4j.fabric.local.LocalNode;
import io.github.verbs4j.ib.engine.PacketPort;
import io.github.verbs4j.ib.wire.Bth;
import io.github.verbs4j.ib.wire.Icrc;
import io.github.verbs4j.ib.wire.Lrh;
import io.github.verbs4j.ib.wire.Opcode;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Each source's share of the engine's inbound queue: a peer that sends faster than the engine
 * takes frames cannot starve another peer; its excess is dropped as {@code source_share}.
 */
class InboundShareTest {
  private static final int QUEUE = 64;

  /** A well-formed 8-byte RC SEND from {@code slid} to {@code dlid} (no ICRC), payload byte {@code tag}. */
  private static ByteBuf packet(FabricNode from, int slid, int dlid, int tag) {
    int len = Opcode.RC_SEND_ONLY.headerLength() + 8 + Icrc.LENGTH;
    ByteBuf b = from.alloc().directBuffer(len);
    Lrh.write(b, 0, 0, 0, dlid, slid, len, true);
    Bth.write(b, Lrh.LENGTH, Opcode.RC_SEND_ONLY.value(), false, 0, Bth.DEFAULT_PKEY, 0x123, false, tag);
    b.setZero(Opcode.RC_SEND_ONLY.headerLength(), 8 + Icrc.LENGTH);
    b.setByte(Opcode.RC_SEND_ONLY.headerLength(), tag);
    b.writerIndex(len);
    return b;
  }

  /**
   * Three nodes; B's engine is stalled (its queue only fills). A sends 1,000 frames, C sends 8
   * among them: all of C's reach the queue, A gets its reserve and the pool, and the rest of A's
   * are counted as {@code source_share}. Once the engine takes them, A may send again.
   */
  @Test
  void aFloodingSourceCannotStarveAQuietOne() {
    String name = "share-test-" + System.nanoTime();
    FabricNode[] n = new FabricNode[3];
    for (int r = 0; r < 3; r++) {
      n[r] = Fabric.open(Map.of("verbs.fabric", "local", "verbs.fabric.name", name, "verbs.fabric.mode", "deterministic",
          "verbs.size", "3", "verbs.rank", Integer.toString(r)), new SimpleMeterRegistry());
    }
    FabricNode a = n[0];
    FabricNode b = n[1];
    FabricNode c = n[2];
    FabricPacketPort portB = new FabricPacketPort(b, 64, QUEUE);
    ArrayDeque<ByteBuf> queue = new ArrayDeque<>(); // the stalled engine's queue
    portB.bind(new PacketPort.Receiver() {
      @Override
      public void onPacket(int slid, ByteBuf packet, long arrival) {
        queue.add(packet);
      }

      @Override
      public void onPeerDown(int lid) {}

      @Override
      public void onWritable(int dlid) {}
    });
    try {
      int reserved = portB.shares().reserved();
      int pool = portB.shares().pool();
      assertEquals(QUEUE / 6, reserved);
      assertEquals(QUEUE - 3 * reserved, pool);
      for (int i = 0; i < 1000; i++) {
        a.send(b.nodeId(), FabricPacketPort.TAG, FrameHeader.FLAG_UNCHECKED, packet(a, a.nodeId(), b.nodeId(), 1));
        if (i % 100 == 50 && i < 850) {
          c.send(b.nodeId(), FabricPacketPort.TAG, FrameHeader.FLAG_UNCHECKED, packet(c, c.nodeId(), b.nodeId(), 2));
        }
        ((LocalNode) a).fabric().runUntilIdle();
      }
      int fromA = 0;
      int fromC = 0;
      for (ByteBuf f : queue) {
        int src = Lrh.slid(f, f.readerIndex());
        if (src == a.nodeId()) {
          fromA++;
        } else if (src == c.nodeId()) {
          fromC++;
        }
      }
      assertEquals(8, fromC, "the quiet source's frames");
      assertEquals(reserved + pool, fromA, "the flood's frames admitted");
      assertEquals(1000 - reserved - pool, b.metrics().drops(DropReason.SOURCE_SHARE), "the flood's drops");
      assertEquals(1000 - reserved - pool, b.metrics().totalDrops(), "drops other than source_share");
      // The engine catches up: every slot comes back and A is admitted again.
      ByteBuf f;
      while ((f = queue.poll()) != null) {
        portB.taken(f);
        f.release();
      }
      assertEquals(0, portB.shares().held(a.nodeId()));
      assertEquals(0, portB.shares().held(c.nodeId()));
      a.send(b.nodeId(), FabricPacketPort.TAG, FrameHeader.FLAG_UNCHECKED, packet(a, a.nodeId(), b.nodeId(), 1));
      ((LocalNode) a).fabric().runUntilIdle();
      assertEquals(1, queue.size());
    } finally {
      queue.forEach(ByteBuf::release);
      portB.close();
      for (FabricNode x : n) {
        x.close();
      }
    }
  }

  /**
   * The real engine with the smallest inbound queue: RC traffic completes, and when it is over
   * every slot the port gave out has come back (the engine reports each frame it takes).
   */
  @Test
  void theEngineGivesBackEverySlotItTakes() throws Exception {
    Map<String, String> cfg = new HashMap<>();
    cfg.put("verbs.ib.inbound-queue", "16");
    try (TwoNodes t = TwoNodes.threaded(cfg)) {
      CompletionQueue cqA = t.a.createCq(256, null, 0);
      CompletionQueue cqB = t.b.createCq(256, null, 0);
      QpCap cap = QpCap.builder().maxSendWr(128).maxRecvWr(128).build();
      QueuePair qa = t.qp(t.pdA, QpType.RC, cqA, cap);
      QueuePair qb = t.qp(t.pdB, QpType.RC, cqB, cap);
      MemoryRegion ma = t.pdA.allocateMemory(8 * 64, TwoNodes.ALL);
      MemoryRegion mb = t.pdB.allocateMemory(8 * 64, TwoNodes.ALL);
      try {
        t.connect(qa, qb);
        int rounds = 20;
        int burst = 64;
        for (int r = 0; r < rounds; r++) {
          for (int i = 0; i < burst; i++) {
            qb.postRecv(new RecvWr().wrId(i).sge(mb, 8 * i, 8));
          }
          for (int i = 0; i < burst; i++) {
            ma.buffer().putLong(8 * i, r * 1000L + i);
            qa.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).signaled(true).sge(ma, 8 * i, 8));
          }
          for (WorkCompletion wc : t.poll(cqB, burst, Duration.ofSeconds(60))) {
            TwoNodes.assertOk(wc);
            assertEquals(r * 1000L + wc.wrId(), mb.buffer().getLong(8 * (int) wc.wrId()));
          }
          for (WorkCompletion wc : t.poll(cqA, burst, Duration.ofSeconds(60))) {
            TwoNodes.assertOk(wc);
          }
        }
        FabricPacketPort pa = (FabricPacketPort) ((IbContext) t.a).engine().port();
        FabricPacketPort pb = (FabricPacketPort) ((IbContext) t.b).engine().port();
        assertEquals(16, pb.shares().capacity());
        long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (heldAnywhere(pa, pb) && System.nanoTime() < until) {
          Thread.sleep(5);
        }
        assertTrue(!heldAnywhere(pa, pb), "slots still held: A from B " + pa.shares().held(2) + ", B from A "
            + pb.shares().held(1));
      } finally {
        TwoNodes.closeAll(qa, qb, ma, mb, cqA, cqB);
      }
    }
  }

  private static boolean heldAnywhere(FabricPacketPort pa, FabricPacketPort pb) {
    return pa.shares().held(1) + pa.shares().held(2) + pb.shares().held(1) + pb.shares().held(2) > 0;
  }
}
