package io.github.verbs4j.verbs.spi.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.config.VerbsConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Where the local rank count comes from, and what the idle numbers become when it oversubscribes. */
class HostShareTest {
  @Test
  void theLaunchersVariableWinsOverOpenMpiAndMpich() {
    HostShare s = HostShare.of(Map.of(HostShare.LOCAL_RANKS_ENV, "16", "OMPI_COMM_WORLD_LOCAL_SIZE", "2",
        "MPI_LOCALNRANKS", "3"), 2);
    assertEquals(new HostShare(16, 2), s);
    assertTrue(s.oversubscribed());
    assertEquals(3, HostShare.of(Map.of("MPI_LOCALNRANKS", "3"), 4).localRanks());
    assertEquals(2, HostShare.of(Map.of("OMPI_COMM_WORLD_LOCAL_SIZE", " 2 "), 4).localRanks());
  }

  @Test
  void aProcessNoLauncherDescribesIsAlone() {
    HostShare s = HostShare.of(Map.of(), 1);
    assertEquals(1, s.localRanks());
    assertFalse(s.oversubscribed());
  }

  @Test
  void asManyRanksAsProcessorsIsNotOversubscribed() {
    assertFalse(HostShare.of(Map.of(HostShare.LOCAL_RANKS_ENV, "2"), 2).oversubscribed());
    assertTrue(HostShare.of(Map.of(HostShare.LOCAL_RANKS_ENV, "3"), 2).oversubscribed());
  }

  @Test
  void aBadCountIsRejectedNamingTheVariable() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> HostShare.of(Map.of("OMPI_COMM_WORLD_LOCAL_SIZE", "many"), 2));
    assertEquals("OMPI_COMM_WORLD_LOCAL_SIZE=many is not an integer", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> HostShare.of(Map.of(HostShare.LOCAL_RANKS_ENV, "0"), 2));
    assertEquals(HostShare.LOCAL_RANKS_ENV + "=0 must be at least 1", e.getMessage());
  }

  @Test
  void theDefaultBackoffStopsSpinningAndYieldingWhenOversubscribed() {
    VerbsConfig config = VerbsConfig.of(Map.of());
    IdleStrategyKey.Backoff alone = IdleStrategyKey.of(config, new HostShare(2, 2));
    assertEquals(new IdleStrategyKey.Backoff(200, 50, 10_000, 1_000_000), alone);
    assertTrue(alone.busy());
    IdleStrategyKey.Backoff crowded = IdleStrategyKey.of(config, new HostShare(16, 2));
    assertEquals(new IdleStrategyKey.Backoff(0, 0, 10_000, 1_000_000), crowded);
    assertFalse(crowded.busy());
  }

  @Test
  void anExplicitStrategyIsKeptWhenOversubscribed() {
    HostShare crowded = new HostShare(16, 2);
    assertEquals(Integer.MAX_VALUE,
        IdleStrategyKey.of(VerbsConfig.of(Map.of("verbs.idle-strategy", "spin")), crowded).spins());
    assertEquals(Integer.MAX_VALUE,
        IdleStrategyKey.of(VerbsConfig.of(Map.of("verbs.idle-strategy", "yield")), crowded).yields());
  }
}
