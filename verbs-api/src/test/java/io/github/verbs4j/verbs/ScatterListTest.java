package io.github.verbs4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@link ScatterList}: growth, and counts nobody could post refused without allocating them. */
class ScatterListTest {
  @Test
  void growsToWhatItIsAskedAndKeepsTheSgesSet() {
    RecvWr wr = new RecvWr();
    wr.sgList().sge(0).set(0x1000, 8, 7);
    wr.sgList().numSge(40);
    assertEquals(40, wr.sgList().numSge());
    assertEquals(0x1000, wr.sgList().sge(0).addr(), "the first SGE survives the growth");
    wr.sgList().sge(99).set(0x2000, 4, 7);
    assertEquals(40, wr.sgList().numSge(), "setting an SGE beyond the count leaves the count");
    wr.sgList().numSge(ScatterList.MAX_SGE);
    assertEquals(ScatterList.MAX_SGE, wr.sgList().numSge());
  }

  @Test
  void aCountOrIndexOutsideTheLimitsIsRefusedNamingIt() {
    SendWr wr = new SendWr();
    int before = wr.sgList().numSge();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> wr.sgList().numSge(Integer.MAX_VALUE));
    assertTrue(e.getMessage().startsWith("num_sge=2147483647 exceeds 65536"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> wr.sgList().numSge(-1));
    assertTrue(e.getMessage().contains("num_sge=-1"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> wr.sgList().sge(ScatterList.MAX_SGE));
    assertTrue(e.getMessage().startsWith("sge index=65536 is outside [0, 65536)"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> wr.sgList().sge(-3));
    assertTrue(e.getMessage().startsWith("sge index=-3 is outside"), e.getMessage());
    assertEquals(before, wr.sgList().numSge(), "the count is unchanged");
  }
}
