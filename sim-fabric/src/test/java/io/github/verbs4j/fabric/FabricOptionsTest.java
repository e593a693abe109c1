package io.github.verbs4j.fabric;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class FabricOptionsTest {

  @Test
  void defaultsAreRankZeroOfOneLocalWall() {
    FabricOptions o = FabricOptions.defaults();
    assertEquals("local", o.fabric());
    assertEquals(0, o.rank());
    assertEquals(1, o.size());
    assertFalse(o.modelledTime());
    assertEquals(1048576, o.mtu());
  }

  @Test
  void rankAndSizeComeFromSlurmThenOpenMpiThenKeys() {
    FabricOptions s = FabricOptions.from(Map.of(), Map.of("SLURM_PROCID", "3", "SLURM_NTASKS", "8", "OMPI_COMM_WORLD_RANK", "1"));
    assertEquals(3, s.rank());
    assertEquals(8, s.size());
    FabricOptions m = FabricOptions.from(Map.of(), Map.of("OMPI_COMM_WORLD_RANK", "2", "OMPI_COMM_WORLD_SIZE", "4"));
    assertEquals(2, m.rank());
    assertEquals(4, m.size());
    FabricOptions k = FabricOptions.from(Map.of("verbs.rank", "1", "verbs.size", "2"), Map.of("SLURM_PROCID", "3", "SLURM_NTASKS", "8"));
    assertEquals(1, k.rank());
    assertEquals(2, k.size());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> FabricOptions.from(Map.of(), Map.of("SLURM_PROCID", "x")));
    assertTrue(e.getMessage().contains("SLURM_PROCID=x"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> FabricOptions.from(Map.of("verbs.rank", "4", "verbs.size", "4"), Map.of()));
    assertTrue(e.getMessage().contains("verbs.rank=4"), e.getMessage());
  }

  @Test
  void unknownFabricKeysAreErrorsNamingTheKeyOthersAreIgnored() {
    for (String k : new String[] {"verbs.fabric.colour", "verbs.link.speed", "verbs.fault.meteor"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FabricOptions.from(Map.of(k, "1"), Map.of()));
      assertTrue(e.getMessage().contains(k), e.getMessage());
    }
    assertEquals("local", FabricOptions.from(Map.of("verbs.provider", "tca"), Map.of()).fabric());
  }

  @Test
  void badValuesNameKeyAndValue() {
    assertMessage(Map.of("verbs.fabric", "carrier-pigeon"), "verbs.fabric=carrier-pigeon");
    assertMessage(Map.of("verbs.link.latency-ns", "-5"), "verbs.link.latency-ns=-5");
    assertMessage(Map.of("verbs.link.bandwidth-mb-s", "fast"), "verbs.link.bandwidth-mb-s=fast");
    assertMessage(Map.of("verbs.coordinator", "nowhere"), "verbs.coordinator=nowhere");
    assertMessage(Map.of("verbs.time", "sundial"), "verbs.time=sundial");
    assertMessage(Map.of("verbs.fabric.high-water-bytes", "100000", "verbs.fabric.max-pending-bytes", "2000"), "verbs.fabric.max-pending-bytes=2000");
  }

  private static void assertMessage(Map<String, String> s, String expected) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FabricOptions.from(s, Map.of()));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }

  @Test
  void everyKeyHasDefaultDocAndAppearsInToString() {
    FabricOptions o = FabricOptions.defaults();
    Set<String> names = FabricOptions.keys().stream().map(FabricOptions.Key::name).collect(Collectors.toSet());
    assertEquals(FabricOptions.keys().size(), names.size(), "no duplicate keys");
    for (FabricOptions.Key k : FabricOptions.keys()) {
      assertFalse(k.description().isBlank(), k.name());
      assertTrue(o.toString().contains(k.name() + "=" + k.defaultValue()), k.name());
      assertEquals(k.defaultValue(), o.get(k));
    }
    assertTrue(FabricOptions.ownKeys().stream().noneMatch(FabricOptions.Key::core));
    assertTrue(names.containsAll(Set.of("verbs.fabric", "verbs.coordinator", "verbs.rank", "verbs.size", "verbs.time", "verbs.topology")));
  }

  @Test
  void coordinatorAddressForms() {
    assertEquals(new FabricOptions.CoordinatorAddress(false, "h", 7), FabricOptions.CoordinatorAddress.parse("h:7"));
    assertEquals(new FabricOptions.CoordinatorAddress(true, "127.0.0.1", 7000), FabricOptions.CoordinatorAddress.parse("embedded:7000"));
    assertEquals(new FabricOptions.CoordinatorAddress(true, "0.0.0.0", 0), FabricOptions.CoordinatorAddress.parse("embedded:0.0.0.0:0"));
    assertThrows(IllegalArgumentException.class, () -> FabricOptions.CoordinatorAddress.parse("h:0"));
  }

  @Test
  void withRevalidates() {
    FabricOptions o = FabricOptions.from(Map.of(), Map.of("SLURM_PROCID", "1", "SLURM_NTASKS", "2"));
    FabricOptions p = o.with("verbs.time", "modelled");
    assertTrue(p.modelledTime());
    assertEquals(1, p.rank());
    assertEquals(2, p.size());
    assertThrows(IllegalArgumentException.class, () -> o.with("verbs.fabric.nope", "1"));
  }

  @Test
  void nettyJfrEventsAreSwitchedOffAtOpenUnlessTheJvmChoseOrTheOptionSaysNetty() {
    Properties fresh = new Properties();
    Fabric.applyNettyJfr(FabricOptions.defaults(), fresh);
    assertEquals("false", fresh.getProperty("io.netty.jfr.enabled"), "off by default");
    Properties chosen = new Properties();
    chosen.setProperty("io.netty.jfr.enabled", "true");
    Fabric.applyNettyJfr(FabricOptions.defaults(), chosen);
    assertEquals("true", chosen.getProperty("io.netty.jfr.enabled"), "the application's own setting wins");
    Properties left = new Properties();
    Fabric.applyNettyJfr(FabricOptions.from(Map.of("verbs.fabric.netty-jfr", "netty"), Map.of()), left);
    assertNull(left.getProperty("io.netty.jfr.enabled"), "netty: Netty decides");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> FabricOptions.from(Map.of("verbs.fabric.netty-jfr", "on"), Map.of()));
    assertTrue(e.getMessage().contains("verbs.fabric.netty-jfr=on"), e.getMessage());
  }
}
