package io.github.verbs4j.ib;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.local.LocalNode;
import io.github.verbs4j.ib.engine.PacketPort;
import io.github.verbs4j.ib.wire.Lrh;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Packet trains: what one duty cycle sends to one LID travels as one frame and arrives split. */
class FabricPacketPortTest {
  private FabricNode a;
  private FabricNode b;
  private FabricPacketPort portA;
  private FabricPacketPort portB;
  private final List<byte[]> got = new ArrayList<>();

  @BeforeEach
  void open() {
    String name = "port-test-" + System.nanoTime();
    a = Fabric.open(Map.of("verbs.fabric", "local", "verbs.fabric.name", name, "verbs.fabric.mode", "deterministic",
        "verbs.size", "2", "verbs.rank", "0"), new SimpleMeterRegistry());
    b = Fabric.open(Map.of("verbs.fabric", "local", "verbs.fabric.name", name, "verbs.fabric.mode", "deterministic",
        "verbs.size", "2", "verbs.rank", "1"), new SimpleMeterRegistry());
    portA = new FabricPacketPort(a);
    portB = new FabricPacketPort(b);
    portA.bind(receiver(new ArrayList<>()));
    portB.bind(receiver(got));
  }

  @AfterEach
  void close() {
    portA.close();
    portB.close();
    a.close();
    b.close();
  }

  private static PacketPort.Receiver receiver(List<byte[]> into) {
    return new PacketPort.Receiver() {
      @Override
      public void onPacket(int slid, ByteBuf packet) {
        into.add(ByteBufUtil.getBytes(packet));
        packet.release();
      }

      @Override
      public void onPeerDown(int lid) {}

      @Override
      public void onWritable(int dlid) {}
    };
  }

  /** A packet of {@code total} bytes (a multiple of 4) whose LRH states its length. */
  private ByteBuf packet(int total, int seed) {
    ByteBuf p = a.alloc().directBuffer(total);
    for (int i = 0; i < total; i++) {
      p.writeByte(seed * 31 + i);
    }
    Lrh.write(p, 0, 0, 0, b.nodeId(), a.nodeId(), total);
    return p;
  }

  private void run() {
    ((LocalNode) a).fabric().runUntilIdle();
  }

  @Test
  void packetsOfOneCycleToOneLidTravelAsOneFrameAndArriveSplitInOrderByteExact() {
    List<byte[]> sent = new ArrayList<>();
    portA.beginBatch();
    for (int i = 0; i < 100; i++) { // more than one train holds (64 packets)
      ByteBuf p = packet(i % 3 == 0 ? 4128 : 28 + 4 * i, i);
      sent.add(ByteBufUtil.getBytes(p));
      portA.transmit(b.nodeId(), p);
    }
    assertEquals(1, a.metrics().framesSent(), "a full train (64 packets) leaves at once; the rest is held");
    portA.endBatch();
    run();
    assertEquals(2, a.metrics().framesSent(), "100 packets in two frames");
    assertEquals(sent.size(), got.size());
    for (int i = 0; i < sent.size(); i++) {
      assertArrayEquals(sent.get(i), got.get(i), "packet " + i);
    }
  }

  @Test
  void outsideACycleEachPacketIsAFrame() {
    portA.transmit(b.nodeId(), packet(64, 1));
    portA.transmit(b.nodeId(), packet(64, 2));
    run();
    assertEquals(2, a.metrics().framesSent());
    assertEquals(2, got.size());
  }

  @Test
  void aTrainWithALengthThatDoesNotFitDeliversThePacketsBeforeItAndDropsTheRest() {
    ByteBuf p1 = packet(64, 1);
    byte[] first = ByteBufUtil.getBytes(p1);
    ByteBuf p2 = packet(64, 2);
    p2.setShort(Lrh.PKTLEN_OFFSET, Lrh.MAX_PKTLEN_WORDS); // as if corrupted on the wire: longer than the frame
    portA.beginBatch();
    portA.transmit(b.nodeId(), p1);
    portA.transmit(b.nodeId(), p2);
    portA.transmit(b.nodeId(), packet(64, 3));
    portA.endBatch();
    run();
    assertEquals(1, got.size());
    assertArrayEquals(first, got.get(0));
  }
}
