package io.github.verbs4j.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.VerbsException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

/**
 * Self-test of the kit harness with rank 1 in a child JVM ({@link KitPeerMain}), on {@link
 * SelfTestProvider}: the child is created from this class, runs its rank, and its failure, skip or
 * disappearance reaches the parent.
 */
class KitHarnessProcessesTest extends AbstractConformance {
  @Override
  protected KitEnvironment environment() {
    return new SelfTestEnvironment(true, Duration.ofSeconds(30));
  }

  public void exchangeBody(Peer p) {
    long[] theirs = p.exchange("values", p.rank(), ProcessHandle.current().pid());
    assertEquals(p.other(), theirs[0]);
    assertEquals(p.rank() == 1, Boolean.getBoolean("verbs4j.kit.peer"), "only the child has verbs4j.kit.peer");
    if (p.rank() == 0) {
      assertTrue(theirs[1] != ProcessHandle.current().pid(), "rank 1 must run in another process");
    }
    p.barrier("done");
    assertArrayEquals(new long[] {p.other() + 1}, p.exchange("lid", p.ctx().queryPort(1).lid()));
  }

  @Test
  void rank1RunsInAChildJvmAndExchangesWithRank0() throws Exception {
    SelfTestRegistration.run(() -> twoSided("exchangeBody"));
  }

  public void rank1FailsBody(Peer p) {
    if (p.rank() == 1) {
      throw new AssertionError("rank 1 broke on purpose");
    }
    p.barrier("never-completed");
  }

  @Test
  void aFailingChildFailsTheTestWithItsOutput() {
    AssertionError e = assertThrows(AssertionError.class,
        () -> SelfTestRegistration.run(() -> twoSided("rank1FailsBody")));
    assertTrue(e.getMessage().contains("exit code 1"), e.getMessage());
    assertTrue(e.getMessage().contains("rank 1 broke on purpose"), "the child's output tail: " + e.getMessage());
  }

  public void rank0FailsBody(Peer p) {
    if (p.rank() == 0) {
      p.barrier("child-started");
      throw new AssertionError("rank 0 broke on purpose");
    }
    p.barrier("child-started");
    p.barrier("never-completed");
  }

  @Test
  void aFailingRank0KillsTheChild() throws IOException {
    AssertionError e = assertThrows(AssertionError.class,
        () -> SelfTestRegistration.run(() -> twoSided("rank0FailsBody")));
    assertEquals("rank 0 broke on purpose", e.getMessage());
    try (Stream<Path> logs = Files.list(Path.of("target/kit-peers"))) {
      assertTrue(logs.anyMatch(f -> f.getFileName().toString().startsWith(getClass().getSimpleName()
          + ".rank0FailsBody.")), "the child's log is kept under target/kit-peers");
    }
    assertFalse(KitRunner.lastChildren.stream().anyMatch(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive)
        .orElse(false)), "the child must have been killed");
  }

  public void skipBody(Peer p) {
    Assumptions.assumeTrue(p.rank() != 1, "rank 1 lacks a capability");
    p.barrier("never-completed");
  }

  @Test
  void aSkippingChildSkipsTheTest() {
    assertThrows(TestAbortedException.class, () -> SelfTestRegistration.run(() -> twoSided("skipBody")));
  }

  @Test
  void aChildThatSkippedExplainsARank0ThatCouldNotOpen() {
    // as a fabric join fails when the only peer skipped at once and left during it
    assertThrows(TestAbortedException.class, () -> SelfTestRegistration.run(
        () -> twoSided("skipBody", Map.of(SelfTestProvider.FAIL_OPEN_RANK.name(), "0"))));
  }

  public void rank1PassesBody(Peer p) {
    assertEquals(1, p.rank(), "rank 0 never opens in this scenario");
  }

  @Test
  void aRank0ThatCannotOpenFailsTheTestWhenNoChildSkipped() {
    VerbsException e = assertThrows(VerbsException.class, () -> SelfTestRegistration.run(
        () -> twoSided("rank1PassesBody", Map.of(SelfTestProvider.FAIL_OPEN_RANK.name(), "0"))));
    assertTrue(e.getMessage().contains("cannot join the self-test job"), e.getMessage());
  }

  public void allGatherBody(Peer p) {
    long[][] all = p.allGather("pids", p.rank(), ProcessHandle.current().pid());
    assertEquals(p.size(), all.length);
    Set<Long> pids = new HashSet<>();
    for (int r = 0; r < p.size(); r++) {
      assertEquals(r, all[r][0], "rank " + r + "'s values sit at index " + r);
      pids.add(all[r][1]);
    }
    assertEquals(p.size(), pids.size(), "every rank runs in a process of its own: " + pids);
    assertEquals(p.rank() != 0, Boolean.getBoolean("verbs4j.kit.peer"), "only the children have verbs4j.kit.peer");
    p.barrier("done");
  }

  @Test
  void fourRanksRunInFourProcessesAndGatherEachOthersValues() throws Exception {
    SelfTestRegistration.run(() -> spmd(4, "allGatherBody"));
  }

  public void settingsBody(Peer p) {
    assertEquals(77, p.ctx().queryPort(1).lid(), "the scenario's setting reached rank " + p.rank());
    p.barrier("done");
  }

  @Test
  void aScenariosSettingsReachEveryChild() throws Exception {
    SelfTestRegistration.run(() -> spmd(3, "settingsBody", Map.of(SelfTestProvider.LID.name(), "77")));
  }

  public void rank2FailsBody(Peer p) {
    if (p.rank() == 2) {
      throw new AssertionError("rank 2 broke on purpose");
    }
    p.barrier("never-completed");
  }

  @Test
  void aFailingThirdRankFailsTheTestAndTheOthersAreStopped() {
    AssertionError e = assertThrows(AssertionError.class,
        () -> SelfTestRegistration.run(() -> spmd(3, "rank2FailsBody")));
    assertTrue(e.getMessage().contains("rank 2"), e.getMessage());
    assertTrue(e.getMessage().contains("rank 2 broke on purpose"), "the child's output tail: " + e.getMessage());
    assertFalse(KitRunner.lastChildren.stream().anyMatch(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive)
        .orElse(false)), "every child must have ended");
  }
}
