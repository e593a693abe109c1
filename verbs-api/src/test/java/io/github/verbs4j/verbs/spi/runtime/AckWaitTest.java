package io.github.verbs4j.verbs.spi.runtime;

import static io.github.verbs4j.verbs.spi.runtime.AckWait.UNKNOWN;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.verbs4j.verbs.spi.runtime.AckWait.Verdict;
import org.junit.jupiter.api.Test;

class AckWaitTest {
  private static final long ARMED = 1_000;
  private static final long T = 67_108_864; // timeout 14
  private static final long PATIENCE = AckWait.patience(T, 0);

  @Test
  void aPeerThatHadThePacketsAndAnAnswerThatCouldBeHeardIsARealTimeout() {
    AckWait w = new AckWait();
    assertEquals(Verdict.EXPIRED, w.judge(true, 0, UNKNOWN, UNKNOWN, ARMED, 0, PATIENCE));
    assertEquals(Verdict.EXPIRED, w.judge(true, 0, 5, ARMED + 1, ARMED, T, PATIENCE), "caught up after the start");
    assertEquals(Verdict.EXPIRED, w.judge(true, 0, 5, ARMED, ARMED, 2 * T, PATIENCE));
  }

  @Test
  void withoutMovementTheWaitLastsThePatienceThenEveryExpiryIsReal() {
    AckWait w = new AckWait();
    for (int i = 0; i < AckWait.BUDGET; i++) {
      assertEquals(Verdict.NOT_AT_PEER, w.judge(true, 0, 7, ARMED - 1, ARMED, i * T, PATIENCE), "expiry " + i);
    }
    assertEquals(Verdict.EXPIRED, w.judge(true, 0, 7, ARMED - 1, ARMED, AckWait.BUDGET * T, PATIENCE), "a stopped peer");
    assertEquals(Verdict.EXPIRED, w.judge(true, 0, 7, ARMED - 1, ARMED, (AckWait.BUDGET + 1) * T, PATIENCE));
    w.reset(); // an ACK
    assertEquals(Verdict.UNHEARD, w.judge(false, 0, UNKNOWN, UNKNOWN, ARMED, 20 * T, PATIENCE));
    assertEquals(Verdict.UNHEARD, w.judge(false, 100, 7, ARMED - 1, ARMED, 21 * T, PATIENCE), "this side first");
  }

  @Test
  void theFabricsPeerTimeoutIsThePatienceWhenLonger() {
    long peerTimeout = 3_000_000_000L;
    assertEquals(AckWait.BUDGET * T, AckWait.patience(T, 0));
    assertEquals(peerTimeout, AckWait.patience(T, peerTimeout));
    AckWait w = new AckWait();
    long p = AckWait.patience(T, peerTimeout);
    long now = 0;
    for (; now < peerTimeout; now += T) {
      assertEquals(Verdict.NOT_AT_PEER, w.judge(true, 0, 7, ARMED - 1, ARMED, now, p), "at " + now);
    }
    assertEquals(Verdict.EXPIRED, w.judge(true, 0, 7, ARMED - 1, ARMED, now, p));
  }

  @Test
  void aReaderThatKeepsReadingOrBytesThatKeepMovingRenewThePatience() {
    AckWait w = new AckWait();
    for (int i = 0; i < 5 * AckWait.BUDGET; i++) {
      assertEquals(Verdict.NOT_AT_PEER, w.judge(true, 0, 64L * i, ARMED - 1, ARMED, i * T, PATIENCE), "read " + i);
    }
    w.reset();
    long now = 0;
    for (long unsent = 1 << 20; unsent > 0; unsent -= 1 << 14) {
      now += T;
      assertEquals(Verdict.NOT_AT_PEER, w.judge(true, unsent, UNKNOWN, UNKNOWN, ARMED, now, PATIENCE));
    }
    assertEquals(Verdict.EXPIRED, w.judge(true, 0, UNKNOWN, UNKNOWN, ARMED, now + T, PATIENCE));
  }

  @Test
  void anExhaustedWaitJudgesEveryExpiryRealUntilProgress() {
    AckWait w = new AckWait();
    w.exhaust();
    assertEquals(Verdict.EXPIRED, w.judge(false, 1 << 20, 1, 0, ARMED, 0, PATIENCE));
    w.reset();
    assertEquals(Verdict.UNHEARD, w.judge(false, 1 << 20, 1, 0, ARMED, 0, PATIENCE));
  }
}
