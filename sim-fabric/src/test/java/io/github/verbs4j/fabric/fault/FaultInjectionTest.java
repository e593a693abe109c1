package io.github.verbs4j.fabric.fault;

import static org.junit.jupiter.api.Assertions.*;

import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.FrameHeader;
import io.github.verbs4j.fabric.local.LocalFabric;
import io.github.verbs4j.fabric.local.LocalNode;
import io.github.verbs4j.fabric.topo.SwitchTopology;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;

class FaultInjectionTest {

  /** Sends n frames 1 -> 2 each carrying its index and a CRC; returns what node 2 observed. */
  private static List<String> run(Map<String, String> settings, int n) {
    Map<String, String> s = new HashMap<>(settings);
    s.put("verbs.fabric.mode", "deterministic");
    try (LocalFabric f = LocalFabric.create(FabricOptions.from(s, Map.of()), new SimpleMeterRegistry())) {
      LocalNode a = f.addNode();
      LocalNode b = f.addNode();
      List<String> seen = new ArrayList<>();
      b.setReceiver((h, p) -> {
        int idx = p.getInt(p.readerIndex());
        CRC32 crc = new CRC32();
        crc.update(p.nioBuffer(p.readerIndex(), 60));
        boolean ok = crc.getValue() == p.getUnsignedInt(p.readerIndex() + 60);
        seen.add(idx + (ok ? "" : "!corrupt") + "@" + h.arrivalTimeNanos());
        p.release();
      });
      for (int i = 0; i < n; i++) {
        ByteBuf buf = Unpooled.buffer(64).writeInt(i).writeZero(56);
        CRC32 crc = new CRC32();
        crc.update(buf.nioBuffer(0, 60));
        buf.writeInt((int) crc.getValue());
        a.send(2, buf);
        a.clock().charge(100);
        if (i % 7 == 0) {
          f.runUntilIdle();
        }
      }
      f.runUntilIdle();
      seen.add("drops=" + f.metrics().drops(DropReason.FAULT_DROP) + " dup=" + f.faults().injected(FaultAction.DUPLICATE)
          + " reorder=" + f.faults().injected(FaultAction.REORDER) + " corrupt=" + f.faults().injected(FaultAction.CORRUPT));
      return seen;
    }
  }

  private static Map<String, String> rates(long seed) {
    return Map.of("verbs.time", "modelled", "verbs.fault.seed", Long.toString(seed), "verbs.fault.drop", "0.05",
        "verbs.fault.duplicate", "0.05", "verbs.fault.reorder", "0.05", "verbs.fault.corrupt", "0.05", "verbs.fault.delay", "0.05");
  }

  @Test
  void sameSeedGivesSameFaultsAndDifferentSeedDifferentOnes() {
    List<String> a = run(rates(42), 2000);
    List<String> b = run(rates(42), 2000);
    List<String> c = run(rates(43), 2000);
    assertEquals(a, b);
    assertNotEquals(a, c);
    String stats = a.get(a.size() - 1);
    // every kind of fault happened, at roughly its rate (5% of 2000 = 100)
    for (String kind : new String[] {"drops=", "dup=", "reorder=", "corrupt="}) {
      int at = stats.indexOf(kind) + kind.length();
      int v = Integer.parseInt(stats.substring(at).split(" ")[0]);
      assertTrue(v > 50 && v < 170, kind + v + " in " + stats);
    }
    assertTrue(a.stream().anyMatch(x -> x.contains("!corrupt")), "the CRC caught corruption");
    List<Integer> order = a.stream().filter(x -> x.contains("@")).map(x -> Integer.parseInt(x.split("[!@]")[0])).toList();
    boolean reordered = false;
    for (int i = 1; i < order.size(); i++) {
      reordered |= order.get(i) < order.get(i - 1);
    }
    assertTrue(reordered, "some frame was overtaken");
  }

  @Test
  void scriptDropsCorruptsAndTakesThePairDownAtExactFrames() {
    List<String> seen = run(Map.of("verbs.fault.script", "1-2:drop@3;1-2:corrupt@5;*-2:down@8;1-*:up@10;2-1:drop@0"), 12);
    List<String> ids = seen.stream().filter(x -> x.contains("@")).map(x -> x.split("@")[0]).toList();
    assertEquals(List.of("0", "1", "2", "4", "5!corrupt", "6", "7", "10", "11"), ids);
  }

  @Test
  void programmaticLinkFaultsAndTopologyLinkDown() {
    try (LocalFabric f = LocalFabric.create(FabricOptions.from(Map.of("verbs.fabric.mode", "deterministic"), Map.of()),
        new SimpleMeterRegistry())) {
      LocalNode a = f.addNode();
      LocalNode b = f.addNode();
      List<Integer> got = new ArrayList<>();
      b.setReceiver((h, p) -> {
        got.add(p.readInt());
        p.release();
      });
      f.faults().link(1, 2).at(1, FaultAction.DROP).at(2, FaultAction.DUPLICATE);
      for (int i = 0; i < 4; i++) {
        assertTrue(a.send(2, Unpooled.buffer().writeInt(i)));
      }
      f.runUntilIdle();
      assertEquals(List.of(0, 2, 2, 3), got);
      f.faults().linkDown(SwitchTopology.downlink(2));
      assertFalse(a.send(2, Unpooled.buffer().writeInt(9)), "a down link on the route drops at once");
      assertEquals(1, f.metrics().drops(DropReason.LINK_DOWN));
      f.faults().linkUp(SwitchTopology.downlink(2));
      f.faults().link(1, 2).down();
      assertFalse(a.send(2, Unpooled.buffer().writeInt(10)));
      f.faults().link(1, 2).up();
      assertTrue(a.send(2, Unpooled.buffer().writeInt(11)));
      f.runUntilIdle();
      assertEquals(List.of(0, 2, 2, 3, 11), got);
      assertEquals(2, f.metrics().drops(DropReason.LINK_DOWN));
      assertEquals(1, f.metrics().drops(DropReason.FAULT_DROP));
    }
  }

  @Test
  void delayAddsToModelledArrival() {
    List<String> plain = run(Map.of("verbs.time", "modelled"), 1);
    List<String> delayed = run(Map.of("verbs.time", "modelled", "verbs.fault.script", "1-2:delay@0", "verbs.fault.delay-ns", "7000"), 1);
    long a = Long.parseLong(plain.get(0).split("@")[1]);
    long b = Long.parseLong(delayed.get(0).split("@")[1]);
    assertEquals(7000, b - a);
  }

  @Test
  void mayCorruptTurnsOnWithTheFirstCorruptionSettingAndStaysOn() {
    assertFalse(new FaultInjector(FabricOptions.defaults()).mayCorrupt());
    FaultInjector f = new FaultInjector(FabricOptions.from(Map.of("verbs.fault.drop", "0.1"), Map.of()));
    f.link(1, 2).dropRate(0.2).duplicateRate(0.1).corruptRate(0.0).at(3, FaultAction.DROP);
    assertFalse(f.mayCorrupt(), "drops, duplicates and a zero corruption rate corrupt nothing");
    f.link(2, 1).corruptRate(0.01);
    assertTrue(f.mayCorrupt());
    f.link(2, 1).corruptRate(0.0);
    assertTrue(f.mayCorrupt(), "monotonic: a frame built while corruption was possible may still be in flight");
    FaultInjector scripted = new FaultInjector(FabricOptions.defaults());
    scripted.link(1, 3).at(7, FaultAction.CORRUPT);
    assertTrue(scripted.mayCorrupt());
    assertTrue(new FaultInjector(FabricOptions.from(Map.of("verbs.fault.corrupt", "0.001"), Map.of())).mayCorrupt());
    assertTrue(new FaultInjector(FabricOptions.from(Map.of("verbs.fault.script", "*-2:corrupt@4"), Map.of())).mayCorrupt());
    assertFalse(new FaultInjector(FabricOptions.from(Map.of("verbs.fault.script", "*-2:drop@4"), Map.of())).mayCorrupt());
  }

  @Test
  void aFrameFlaggedUncheckedIsLostInsteadOfCorrupted() {
    try (LocalFabric f = LocalFabric.create(FabricOptions.from(Map.of("verbs.fabric.mode", "deterministic"), Map.of()),
        new SimpleMeterRegistry())) {
      LocalNode a = f.addNode();
      LocalNode b = f.addNode();
      assertFalse(a.mayCorrupt());
      List<String> got = new ArrayList<>();
      b.setReceiver((h, p) -> {
        got.add(p.getLong(p.readerIndex()) + "/" + Integer.toHexString(h.tag()) + "/" + h.flags());
        p.release();
      });
      f.faults().link(1, 2).at(0, FaultAction.CORRUPT).at(1, FaultAction.CORRUPT);
      assertTrue(a.mayCorrupt() && b.mayCorrupt(), "one injector for the whole in-JVM fabric");
      assertTrue(a.send(2, 0x1B, FrameHeader.FLAG_UNCHECKED, Unpooled.buffer().writeLong(0)));
      assertTrue(a.send(2, 0x1B, Unpooled.buffer().writeLong(0)));
      assertTrue(a.send(2, 0x1B, FrameHeader.FLAG_UNCHECKED, Unpooled.buffer().writeLong(0)));
      f.runUntilIdle();
      assertEquals(2, got.size(), got.toString());
      assertNotEquals("0/1b/0", got.get(0), "the checked frame arrives with one bit flipped");
      assertEquals(1, Long.bitCount(Long.parseLong(got.get(0).split("/")[0])), got.toString());
      assertEquals("0/1b/" + FrameHeader.FLAG_UNCHECKED, got.get(1), "the third frame (no fault) arrives intact, tag and flags");
      assertEquals(1, f.metrics().drops(DropReason.UNCHECKED_CORRUPT));
      assertEquals(2, f.faults().injected(FaultAction.CORRUPT));
    }
  }

  @Test
  void badScriptsAndRatesNameTheKey() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> FabricOptions.from(Map.of("verbs.fault.script", "1-2:explode@3"), Map.of()));
    assertTrue(e.getMessage().contains("verbs.fault.script") && e.getMessage().contains("explode"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> FabricOptions.from(Map.of("verbs.fault.drop", "1.5"), Map.of()));
    assertTrue(e.getMessage().contains("verbs.fault.drop=1.5"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new FaultInjector(FabricOptions.defaults()).link(1, 2).dropRate(-0.1));
  }
}
