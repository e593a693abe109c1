package io.github.verbs4j.examples.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.verbs4j.verbs.config.VerbsConfig;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class InProcessRanksTest {
  @Test
  void returnsRankZerosResult() throws Exception {
    int r = InProcessRanks.run("ib", 3, Map.of(), (ctx, cfg) -> cfg.getInt(VerbsConfig.RANK) + 10);
    assertEquals(10, r);
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS) // a hang guard: before, rank 0's wait hid rank 2's failure
  void aRankThatFailsWhileTheOthersWaitForItIsReportedAtOnce() {
    CountDownLatch never = new CountDownLatch(1);
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> InProcessRanks.run("ib", 3, Map.of(), (ctx, cfg) -> {
          if (cfg.getInt(VerbsConfig.RANK) == 2) {
            throw new IllegalStateException("rank 2 broke");
          }
          never.await(); // waits for rank 2, as a receive from it would
          return 0;
        }));
    assertEquals("rank 2 broke", e.getMessage());
  }
}
