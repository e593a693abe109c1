package io.github.verbs4j.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.CompletionChannel;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.DeviceOptions;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

/**
 * Self-test of the kit harness with both ranks as threads, on {@link SelfTestProvider}: exchange
 * and barrier, failure of either rank, skip, timeout, and the bounded waits of {@link Peer}.
 */
class KitHarnessThreadsTest extends AbstractConformance {
  private Duration timeout = Duration.ofSeconds(20);

  @Override
  protected KitEnvironment environment() {
    return new SelfTestEnvironment(false, timeout);
  }

  public void exchangeBody(Peer p) {
    long[] theirs = p.exchange("values", p.rank(), 0xFEED + p.rank(), -1L, Long.MIN_VALUE);
    assertArrayEquals(new long[] {p.other(), 0xFEED + p.other(), -1L, Long.MIN_VALUE}, theirs);
    p.barrier("after-values");
    assertEquals(p.other() + 1, p.exchange("lid", p.ctx().queryPort(1).lid())[0]);
    assertEquals(0, p.exchange("empty").length);
    assertEquals(p.uniqueName("rc"), "rc#1");
  }

  @Test
  void twoRanksExchangeValuesAndPassBarriers() throws Exception {
    SelfTestRegistration.run(() -> twoSided("exchangeBody"));
  }

  public void rank1FailsBody(Peer p) {
    if (p.rank() == 1) {
      throw new AssertionError("rank 1 broke on purpose");
    }
    p.barrier("never-completed");
  }

  @Test
  void aFailureOfRank1FailsTheTestAndStopsRank0() {
    AssertionError e = assertThrows(AssertionError.class,
        () -> SelfTestRegistration.run(() -> twoSided("rank1FailsBody")));
    assertEquals("rank 1 broke on purpose", e.getMessage());
    assertTrue(Arrays.stream(e.getSuppressed()).anyMatch(s -> s instanceof KitAbortedException),
        "rank 0 must have been stopped by the abort, not by its timeout: " + Arrays.toString(e.getSuppressed()));
  }

  public void skipBody(Peer p) {
    Assumptions.assumeTrue(p.rank() != 1, "rank 1 lacks a capability");
    p.barrier("never-completed");
  }

  @Test
  void aSkipOnEitherRankSkipsTheTest() {
    TestAbortedException e = assertThrows(TestAbortedException.class,
        () -> SelfTestRegistration.run(() -> twoSided("skipBody")));
    assertTrue(e.getMessage().contains("rank 1 lacks a capability"), e.getMessage());
  }

  public void hangBody(Peer p) {
    if (p.rank() == 0) {
      LockSupport.parkNanos(Duration.ofSeconds(6).toNanos());
    }
  }

  @Test
  void aHangingRankFailsTheTestAfterTheTimeout() {
    timeout = Duration.ofSeconds(1);
    AssertionError e = assertThrows(AssertionError.class, () -> SelfTestRegistration.run(() -> twoSided("hangBody")));
    assertTrue(e.getMessage().contains("timed out"), e.getMessage());
  }

  public void ringBody(Peer p) {
    long[][] all = p.allGather("ranks", p.rank() * 10L);
    for (int r = 0; r < p.size(); r++) {
      assertEquals(r * 10L, all[r][0]);
    }
    p.barrier("done");
  }

  @Test
  void fiveRanksAsThreadsGatherEachOthersValues() throws Exception {
    SelfTestRegistration.run(() -> spmd(5, "ringBody"));
  }

  @Test
  void aOneSidedScenariosSettingsReachItsContext() throws Exception {
    AtomicInteger lid = new AtomicInteger();
    SelfTestRegistration.run(() -> oneSided(Map.of(SelfTestProvider.LID.name(), "42"),
        p -> lid.set(p.ctx().queryPort(1).lid())));
    assertEquals(42, lid.get());
  }

  @Test
  void oneSidedScenariosRunAsRank0OfOne() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    SelfTestRegistration.run(() -> oneSided(p -> {
      assertEquals(0, p.rank());
      assertEquals(1, p.size());
      p.barrier("alone");
      assertThrows(IllegalStateException.class, p::other);
      ran.incrementAndGet();
    }));
    assertEquals(1, ran.get());
  }

  @Test
  void aOneSidedFailureIsRethrownAsIs() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> SelfTestRegistration.run(() -> oneSided(p -> {
          throw new IllegalStateException("solo broke");
        })));
    assertEquals("solo broke", e.getMessage());
  }

  /** A CQ that hands out {@code available} completions, then none. */
  private static final class ScriptedCq implements CompletionQueue {
    private int available;

    ScriptedCq(int available) {
      this.available = available;
    }

    @Override
    public int poll(WorkCompletion[] wcs) {
      return poll(wcs, wcs.length);
    }

    @Override
    public int poll(WorkCompletion[] wcs, int max) {
      int n = Math.min(available, max);
      for (int i = 0; i < n; i++) {
        wcs[i].reset(100 + i, WcStatus.SUCCESS, WcOpcode.SEND, 9);
      }
      available -= n;
      return n;
    }

    @Override
    public void requestNotify(boolean solicitedOnly) {}

    @Override
    public void ackEvents(int n) {}

    @Override
    public int cqe() {
      return 16;
    }

    @Override
    public void resize(int cqe) {}

    @Override
    public CompletionChannel channel() {
      return null;
    }

    @Override
    public Context context() {
      return null;
    }

    @Override
    public void close() {}
  }

  private Peer soloPeer() {
    KitEnvironment env = environment();
    Context ctx = new SelfTestProvider().open("", env.config(0, 1, "solo"), DeviceOptions.none());
    return new Peer(env, "solo", 0, 1, ctx, new AbortSignal());
  }

  @Test
  void pollUntilReturnsCopiesInOrder() {
    List<WorkCompletion> wcs = soloPeer().pollUntil(new ScriptedCq(3), 3);
    assertEquals(3, wcs.size());
    assertEquals(100, wcs.get(0).wrId());
    assertEquals(102, wcs.get(2).wrId());
  }

  @Test
  void pollUntilFailsNamingHowManyArrived() {
    AssertionError e = assertThrows(AssertionError.class,
        () -> soloPeer().pollUntil(new ScriptedCq(1), 3, Duration.ofMillis(100)));
    assertTrue(e.getMessage().contains("expected 3") && e.getMessage().contains("1 arrived"), e.getMessage());
  }

  @Test
  void expectNoCompletionFailsWhenOneArrives() {
    Peer p = soloPeer();
    p.expectNoCompletion(new ScriptedCq(0), Duration.ofMillis(50));
    AssertionError e = assertThrows(AssertionError.class,
        () -> p.expectNoCompletion(new ScriptedCq(1), Duration.ofMillis(50)));
    assertTrue(e.getMessage().contains("expected no completion"), e.getMessage());
  }

  @Test
  void waitsStopAtOnceWhenTheJobIsAborted() {
    KitEnvironment env = environment();
    Context ctx = new SelfTestProvider().open("", env.config(0, 2, "aborted"), DeviceOptions.none());
    AbortSignal abort = new AbortSignal();
    Peer p = new Peer(env, "aborted", 0, 2, ctx, abort);
    abort.abort("rank 1 failed: test");
    KitAbortedException e = assertThrows(KitAbortedException.class, () -> p.barrier("x"));
    assertTrue(e.getMessage().contains("rank 1 failed"), e.getMessage());
    assertThrows(KitAbortedException.class, () -> p.pollUntil(new ScriptedCq(0), 1));
  }
}
