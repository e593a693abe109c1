package io.github.verbs4j.fabric.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.fabric.coord.CoordinatorState.StepReport;
import io.github.verbs4j.fabric.coord.CoordinatorState.StepResult;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The coordinator's rounds of modelled-time steps ({@code verbs.fabric.mode=deterministic} on netty). */
class CoordinatorStepsTest {
  @Test
  void aRoundCompletesWhenEveryRankHasReportedWithTheEarliestEventAndTheFrameCounts() {
    CoordinatorState st = new CoordinatorState(3);
    CompletableFuture<StepResult> a = st.step(0, 0, new StepReport(500, 4, 2, false, false));
    CompletableFuture<StepResult> b = st.step(0, 2, new StepReport(Long.MAX_VALUE, 1, 3, true, false));
    assertFalse(a.isDone(), "rank 1 has not reported");
    CompletableFuture<StepResult> c = st.step(0, 1, new StepReport(300, 0, 0, false, false));
    assertEquals(new StepResult(300, 5, 5, false, false), a.join());
    assertEquals(a.join(), b.join());
    assertEquals(a.join(), c.join());

    CompletableFuture<StepResult> next = st.step(1, 0, new StepReport(Long.MAX_VALUE, 5, 5, true, false));
    st.step(1, 1, new StepReport(Long.MAX_VALUE, 0, 0, true, false));
    st.step(1, 2, new StepReport(Long.MAX_VALUE, 0, 0, true, false));
    assertTrue(next.join().allLeft(), "every rank left");
  }

  @Test
  void aReportForAnotherRoundOrASecondReportOfARankIsRefusedByName() {
    CoordinatorState st = new CoordinatorState(2);
    st.step(0, 0, new StepReport(1, 0, 0, false, false));
    IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
        () -> st.step(0, 0, new StepReport(1, 0, 0, false, false)));
    assertTrue(twice.getMessage().contains("rank=0"), twice.getMessage());
    IllegalArgumentException ahead = assertThrows(IllegalArgumentException.class,
        () -> st.step(1, 1, new StepReport(1, 0, 0, false, false)));
    assertTrue(ahead.getMessage().contains("round=1") && ahead.getMessage().contains("open round is 0"), ahead.getMessage());
    IllegalArgumentException stranger = assertThrows(IllegalArgumentException.class,
        () -> st.step(0, 7, new StepReport(1, 0, 0, false, false)));
    assertTrue(stranger.getMessage().contains("rank=7"), stranger.getMessage());
  }
}
