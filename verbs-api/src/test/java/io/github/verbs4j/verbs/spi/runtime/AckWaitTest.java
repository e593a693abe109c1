package io.github.verbs4j.verbs.spi.runtime;

import static io.github.verbs4j.verbs.spi.runtime.AckWait.UNKNOWN;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.verbs4j.verbs.spi.runtime.AckWait.Verdict;
import org.junit.jupiter.api.Test;

class AckWaitTest {
  private static final long ARMED = 1_000;

  @Test
  void aPeerThatHadThePacketsAndAnAnswerThatCouldBeHeardIsARealTimeout() {
    AckWait w = new AckWait();
    assertEquals(Verdict.EXPIRED, w.judge(true, 0, UNKNOWN, UNKNOWN, ARMED));
    assertEquals(Verdict.EXPIRED, w.judge(true, 0, 5, ARMED + 1, ARMED), "caught up after the timer started");
    assertEquals(Verdict.EXPIRED, w.judge(true, 0, 5, ARMED, ARMED));
  }

  @Test
  void framesNotYetTakenOnEitherSideReArmAtMostTheBudgetWithoutMovement() {
    AckWait w = new AckWait();
    for (int i = 0; i < AckWait.BUDGET; i++) {
      assertEquals(Verdict.NOT_AT_PEER, w.judge(true, 0, 7, ARMED - 1, ARMED), "expiry " + i);
    }
    assertEquals(Verdict.EXPIRED, w.judge(true, 0, 7, ARMED - 1, ARMED), "a stopped peer ends");
    w.reset(); // an ACK
    assertEquals(Verdict.UNHEARD, w.judge(false, 0, UNKNOWN, UNKNOWN, ARMED));
    assertEquals(Verdict.UNHEARD, w.judge(false, 100, 7, ARMED - 1, ARMED), "this side first");
  }

  @Test
  void aReaderThatKeepsReadingOrBytesThatKeepMovingRenewTheBudget() {
    AckWait w = new AckWait();
    for (int i = 0; i < 5 * AckWait.BUDGET; i++) {
      assertEquals(Verdict.NOT_AT_PEER, w.judge(true, 0, 64L * i, ARMED - 1, ARMED), "read " + i);
    }
    w.reset();
    for (long unsent = 1 << 20; unsent > 0; unsent -= 1 << 14) {
      assertEquals(Verdict.NOT_AT_PEER, w.judge(true, unsent, UNKNOWN, UNKNOWN, ARMED));
    }
    assertEquals(Verdict.EXPIRED, w.judge(true, 0, UNKNOWN, UNKNOWN, ARMED));
  }

  @Test
  void anExhaustedWaitJudgesEveryExpiryReal() {
    AckWait w = new AckWait();
    w.exhaust();
    assertEquals(Verdict.EXPIRED, w.judge(false, 1 << 20, 1, 0, ARMED));
  }
}
