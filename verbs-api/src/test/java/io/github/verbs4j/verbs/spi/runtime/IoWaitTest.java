package io.github.verbs4j.verbs.spi.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/** The wait in the fabric's I/O: blocks until ready, runs the before-block step each time, gives up when it cannot block. */
class IoWaitTest {
  private final List<String> steps = new ArrayList<>();
  private final IntSupplier work = () -> 0;

  @Test
  void aReadyWaitNeitherBlocksNorRunsTheBeforeBlockStep() {
    IoWait w = new IoWait((wk, ready, t) -> steps.add("block"), work, () -> steps.add("before"));
    assertTrue(w.await(() -> true, 1_000_000_000L));
    assertEquals(List.of(), steps);
  }

  @Test
  void blocksUntilReadyWithTheBeforeBlockStepBeforeEachBlock() {
    int[] blocks = {0};
    IoWait w = new IoWait((wk, ready, t) -> {
      assertTrue(wk == work, "the agent's run is handed to the I/O");
      assertTrue(t > 0, "a block gets the time left");
      steps.add("block");
      blocks[0]++;
      return true;
    }, work, () -> steps.add("before"));
    assertTrue(w.await(() -> blocks[0] == 3, 60_000_000_000L));
    assertEquals(List.of("before", "block", "before", "block", "before", "block"), steps);
  }

  @Test
  void anIoThatIsAnotherThreadsEndsTheWaitWithFalse() {
    IoWait w = new IoWait((wk, ready, t) -> {
      steps.add("block");
      return false;
    }, work);
    assertFalse(w.await(() -> false, 60_000_000_000L));
    assertEquals(List.of("block"), steps);
  }

  @Test
  void aWaitWhoseTimeIsUpEndsWithTrueAfterTheBeforeBlockStep() {
    IoWait w = new IoWait((wk, ready, t) -> steps.add("block"), work, () -> steps.add("before"));
    assertTrue(w.await(() -> false, 0));
    assertEquals(List.of("before"), steps);
  }
}
