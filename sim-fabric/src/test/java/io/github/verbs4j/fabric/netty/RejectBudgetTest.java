package io.github.verbs4j.fabric.netty;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

/** {@link RejectBudget}: a burst, a steady rate, and when a spent connection may be read again. */
class RejectBudgetTest {
  private static final long MS = 1_000_000L;

  @Test
  void aBurstIsFreeThenTheRateHolds() {
    long t = 5_000 * MS;
    RejectBudget b = new RejectBudget(t);
    for (int i = 0; i < RejectBudget.BURST - 1; i++) {
      b.reject(t);
      assertFalse(b.spent(t), "frame " + i + " of the burst");
    }
    b.reject(t);
    assertTrue(b.spent(t), "the burst is spent");
    long wait = b.nanosToResume(t);
    assertEquals(RejectBudget.RESUME * MS / RejectBudget.PER_MILLI, wait, "RESUME frames at PER_MILLI per ms");
    assertFalse(b.spent(t + wait / 2), "budget is earned back as time passes");
    assertTrue(b.nanosToResume(t + wait / 2) > 0, "but not yet RESUME frames of it");
    assertEquals(0, b.nanosToResume(t + wait));
  }

  @Test
  void aBatchDecodedPastTheBudgetIsPaidForBeforeReadingAgain() {
    long t = 0;
    RejectBudget b = new RejectBudget(t);
    for (int i = 0; i < RejectBudget.BURST + 100; i++) {
      b.reject(t); // a batch decoded before anyone looked at the budget
    }
    long wait = b.nanosToResume(t);
    assertEquals((100 + RejectBudget.RESUME) * MS / RejectBudget.PER_MILLI, wait, "the debt, then RESUME");
    assertTrue(b.nanosToResume(t + wait - MS) > 0);
    assertEquals(0, b.nanosToResume(t + wait));
  }

  @Test
  void idleTimeRefillsTheBurstOnlyUpToItsSize() {
    RejectBudget b = new RejectBudget(0);
    for (int i = 0; i < RejectBudget.BURST; i++) {
      b.reject(0);
    }
    long later = 10_000 * MS; // enough for many bursts
    for (int i = 0; i < RejectBudget.BURST - 1; i++) {
      b.reject(later);
    }
    assertFalse(b.spent(later));
    b.reject(later);
    assertTrue(b.spent(later), "one burst, not what ten seconds would pay for");
  }

  @Test
  void aSteadyRateBelowTheLimitNeverSpendsIt() {
    RejectBudget b = new RejectBudget(0);
    long step = MS / RejectBudget.PER_MILLI * 2; // half the allowed rate
    for (int i = 0; i < 100_000; i++) {
      b.reject(i * step);
      assertFalse(b.spent(i * step), "frame " + i);
    }
  }
}
