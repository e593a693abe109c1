package io.github.verbs4j.ib;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricMetrics;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.local.LocalNode;
import io.github.verbs4j.ib.engine.PacketPort;
import io.github.verbs4j.ib.wire.Bth;
import io.github.verbs4j.ib.wire.Lrh;
import io.github.verbs4j.ib.wire.Opcode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Packet trains: what one duty cycle sends to one LID travels as one frame; the receiving device
 * splits it by the LRH lengths (the receiver here splits it the same way, with {@link
 * Lrh#trainPacketBytes}).
 */
class FabricPacketPortTest {
  /** The train length these tests use (verbs.ib.train-packets). */
  private static final int TRAIN = 64;
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
    portA = new FabricPacketPort(a, TRAIN);
    portB = new FabricPacketPort(b, TRAIN);
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
      public void onPacket(int slid, ByteBuf packet, long arrival) {
        int at = packet.readerIndex();
        int end = packet.writerIndex();
        int len;
        while (at < end && (len = Lrh.trainPacketBytes(packet, at, end)) > 0) {
          into.add(ByteBufUtil.getBytes(packet, at, len));
          at += len;
        }
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
    return packet(total, seed, false);
  }

  /** {@link #packet(int, int)}, marked as sent without an ICRC if {@code noIcrc}. */
  private ByteBuf packet(int total, int seed, boolean noIcrc) {
    ByteBuf p = a.alloc().directBuffer(total);
    for (int i = 0; i < total; i++) {
      p.writeByte(seed * 31 + i);
    }
    headers(p, 0, total, noIcrc);
    return p;
  }

  /**
   * A well-formed LRH and BTH (a SEND_ONLY from a to b; the rest is the pattern), since the port
   * checks every packet's headers on arrival.
   */
  private void headers(ByteBuf p, int at, int total, boolean noIcrc) {
    Lrh.write(p, at, 0, 0, b.nodeId(), a.nodeId(), total, noIcrc);
    Bth.write(p, at + Lrh.LENGTH, Opcode.RC_SEND_ONLY.value(), false, 0, Bth.DEFAULT_PKEY, 1, false, 0);
  }

  private void run() {
    ((LocalNode) a).fabric().runUntilIdle();
  }

  /**
   * Sends a stream of built packets to b until one train of the full capacity has left, so that
   * the next train to b is as large as a train can be (a train is sized from the last one to its
   * LID); forgets what b got.
   *
   * @return frames A has sent so far
   */
  private long warm() {
    int cap = portA.trainBytes(1, 1 << 29);
    portA.beginBatch();
    ByteBuf full = null;
    for (int i = 0; full == null || portA.trainRoom(b.nodeId(), 4128) == full; i++) {
      ByteBuf room = portA.trainRoom(b.nodeId(), 4128);
      if (room.capacity() == cap) {
        full = room;
      }
      buildIn(room, 4128, i);
      portA.transmit(b.nodeId(), room);
    }
    portA.endBatch();
    run();
    got.clear();
    return a.metrics().framesSent();
  }

  @Test
  void packetsOfOneCycleToOneLidTravelAsOneFrameAndArriveSplitInOrderByteExact() {
    long f0 = warm();
    List<byte[]> sent = new ArrayList<>();
    portA.beginBatch();
    for (int i = 0; i < 100; i++) { // more than one train holds (TRAIN packets)
      ByteBuf p = packet(i % 3 == 0 ? 4128 : 28 + 4 * i, i);
      sent.add(ByteBufUtil.getBytes(p));
      portA.transmit(b.nodeId(), p);
    }
    assertEquals(1, a.metrics().framesSent() - f0, "a full train (TRAIN packets) leaves at once; the rest is held");
    portA.endBatch();
    run();
    assertEquals(2, a.metrics().framesSent() - f0, "100 packets in two frames");
    assertEquals(sent.size(), got.size());
    for (int i = 0; i < sent.size(); i++) {
      assertArrayEquals(sent.get(i), got.get(i), "packet " + i);
    }
  }

  @Test
  void theTrainLengthIsThePortsSetting() {
    FabricPacketPort short3 = new FabricPacketPort(a, 3);
    short3.beginBatch();
    for (int i = 0; i < 7; i++) {
      short3.transmit(b.nodeId(), packet(64, i));
    }
    assertEquals(2, a.metrics().framesSent(), "two full trains of 3 left during the cycle");
    short3.endBatch();
    run();
    assertEquals(3, a.metrics().framesSent(), "7 packets in trains of 3, 3 and 1");
    assertEquals(7, got.size());
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> new FabricPacketPort(a, 0));
    assertTrue(e.getMessage().contains("maxTrainPackets") && e.getMessage().contains("0"), e.getMessage());
  }

  @Test
  void outsideACycleEachPacketIsAFrame() {
    portA.transmit(b.nodeId(), packet(64, 1));
    portA.transmit(b.nodeId(), packet(64, 2));
    run();
    assertEquals(2, a.metrics().framesSent());
    assertEquals(2, got.size());
  }

  /** Writes a packet like {@link #packet} at {@code room}'s writer index and moves the index past it. */
  private byte[] buildIn(ByteBuf room, int total, int seed) {
    return buildIn(room, total, seed, false);
  }

  /** {@link #buildIn(ByteBuf, int, int)}, marked as sent without an ICRC if {@code noIcrc}. */
  private byte[] buildIn(ByteBuf room, int total, int seed, boolean noIcrc) {
    int at = room.writerIndex();
    for (int i = 0; i < total; i++) {
      room.setByte(at + i, seed * 31 + i);
    }
    headers(room, at, total, noIcrc);
    room.writerIndex(at + total);
    return ByteBufUtil.getBytes(room, at, total);
  }

  /**
   * Sends one cycle to b: a packet held as sent, then one built in the train, each marked as
   * without ICRC or not.
   */
  private void cycle(boolean heldNoIcrc, boolean builtNoIcrc) {
    portA.beginBatch();
    portA.transmit(b.nodeId(), packet(64, 1, heldNoIcrc));
    ByteBuf room = portA.trainRoom(b.nodeId(), 128);
    buildIn(room, 128, 2, builtNoIcrc);
    portA.transmit(b.nodeId(), room);
    portA.endBatch();
    run();
  }

  @Test
  void aFrameHoldingAPacketWithoutIcrcIsLostWhereFaultInjectionWouldCorruptIt() {
    assertFalse(portA.mayCorrupt(), "no corruption configured");
    ((LocalNode) a).fabric().faults().link(a.nodeId(), b.nodeId()).corruptRate(1.0);
    assertTrue(portA.mayCorrupt(), "a corruption rate is set");
    FabricMetrics m = a.metrics();

    portA.transmit(b.nodeId(), packet(64, 1, true)); // one packet, one frame
    run();
    assertEquals(1, m.drops(DropReason.UNCHECKED_CORRUPT));
    assertTrue(got.isEmpty(), "nothing unchecked is delivered corrupted");
    portA.transmit(b.nodeId(), packet(64, 2, false));
    run();
    assertEquals(1, m.framesReceived(), "a checked packet is delivered, corrupted, for its ICRC to catch");

    cycle(false, true); // the packet built in place lacks the ICRC
    assertEquals(2, m.drops(DropReason.UNCHECKED_CORRUPT));
    cycle(true, false); // the packet held as sent (then copied into the train) lacks it
    assertEquals(3, m.drops(DropReason.UNCHECKED_CORRUPT));
    cycle(false, false);
    assertEquals(3, m.drops(DropReason.UNCHECKED_CORRUPT), "a train of checked packets is not lost");
    assertEquals(2, m.framesReceived());
  }

  @Test
  void packetsBuiltInTheTrainTravelWithPacketsSentAsBuffersInOrder() {
    long f0 = warm();
    List<byte[]> sent = new ArrayList<>();
    portA.beginBatch();
    ByteBuf p = packet(64, 1);
    sent.add(ByteBufUtil.getBytes(p));
    portA.transmit(b.nodeId(), p); // held as sent, then copied into the train
    ByteBuf room = portA.trainRoom(b.nodeId(), 4128);
    sent.add(buildIn(room, 4128, 2));
    assertTrue(portA.transmit(b.nodeId(), room));
    ByteBuf abandoned = portA.trainRoom(b.nodeId(), 4128);
    assertSame(room, abandoned, "the same train while it has room");
    p = packet(128, 3); // the abandoned room is overwritten
    sent.add(ByteBufUtil.getBytes(p));
    portA.transmit(b.nodeId(), p);
    portA.endBatch();
    run();
    assertEquals(1, a.metrics().framesSent() - f0);
    assertEquals(sent.size(), got.size());
    for (int i = 0; i < sent.size(); i++) {
      assertArrayEquals(sent.get(i), got.get(i), "packet " + i);
    }
  }

  @Test
  void aTrainWithoutRoomLeavesAndAnUnusedRoomSendsNothing() {
    long f0 = warm();
    portA.beginBatch();
    int n = 0;
    ByteBuf first = portA.trainRoom(b.nodeId(), 8000);
    ByteBuf room = first;
    while (room == first) {
      buildIn(room, 8000, n++);
      portA.transmit(b.nodeId(), room);
      room = portA.trainRoom(b.nodeId(), 8000);
    }
    assertTrue(n > 1 && n < TRAIN, "the train's capacity, not its packet limit, ended it: " + n);
    assertEquals(1, a.metrics().framesSent() - f0, "the full train left when room was asked for");
    portA.endBatch(); // the second train's room was never used
    run();
    assertEquals(1, a.metrics().framesSent() - f0);
    assertEquals(n, got.size());
    assertNull(portA.trainRoom(b.nodeId(), 64), "no room outside a duty cycle");
  }

  @Test
  void aTrainArrivesAsOneBufferOfItsPacketsBackToBack() {
    ByteBuf p1 = packet(64, 1);
    ByteBuf p2 = packet(4128, 2);
    byte[] both = new byte[64 + 4128];
    p1.getBytes(0, both, 0, 64);
    p2.getBytes(0, both, 64, 4128);
    List<byte[]> frames = new ArrayList<>();
    portB.bind(new PacketPort.Receiver() {
      @Override
      public void onPacket(int slid, ByteBuf frame, long arrival) {
        frames.add(ByteBufUtil.getBytes(frame));
        frame.release();
      }

      @Override
      public void onPeerDown(int lid) {}

      @Override
      public void onWritable(int dlid) {}
    });
    portA.beginBatch();
    portA.transmit(b.nodeId(), p1);
    portA.transmit(b.nodeId(), p2);
    portA.endBatch();
    run();
    assertEquals(1, frames.size());
    assertArrayEquals(both, frames.get(0));
  }

  @Test
  void aTrainsBufferIsSizedFromTheLastTrainToItsLidAndGrowsWithAStream() {
    List<byte[]> sent = new ArrayList<>();
    portA.beginBatch();
    ByteBuf room = portA.trainRoom(b.nodeId(), 4128);
    assertEquals(FabricPacketPort.MIN_TRAIN_BYTES, room.capacity(), "a lone 4 KiB packet takes a small buffer");
    sent.add(buildIn(room, 4128, 0));
    portA.transmit(b.nodeId(), room);
    portA.endBatch();
    // A stream: each full buffer leaves and the next one is twice the last train, up to the cap.
    portA.beginBatch();
    List<Integer> capacities = new ArrayList<>();
    ByteBuf last = null;
    for (int i = 1; i < 60; i++) {
      room = portA.trainRoom(b.nodeId(), 4128);
      if (room != last) {
        capacities.add(room.capacity());
        last = room;
      }
      sent.add(buildIn(room, 4128, i));
      portA.transmit(b.nodeId(), room);
    }
    portA.endBatch();
    run();
    assertEquals(List.of(16384, 32768, 65536, 131072, 262144), capacities);
    assertEquals(sent.size(), got.size());
    for (int i = 0; i < sent.size(); i++) {
      assertArrayEquals(sent.get(i), got.get(i), "packet " + i);
    }
    assertEquals(1, portA.trainBytes(1, 0) / FabricPacketPort.MIN_TRAIN_BYTES, "at least the minimum");
    int cap = TRAIN * (4096 + 128); // the capacity of a train of TRAIN packets
    assertEquals(cap, portA.trainBytes(4128, 700_000), "at most the capacity");
    assertEquals(cap, portA.trainBytes(4128, cap));
    assertEquals(16384, portA.trainBytes(4128, 5000), "a power of two");
    assertEquals(FabricPacketPort.MAX_TRAIN_BYTES, new FabricPacketPort(a).trainBytes(4128, 1 << 29));
  }
}
