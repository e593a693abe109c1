package io.github.verbs4j.tca.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class VerbsCostsTest {
  @Test
  void defaultsAreTheDocumentedPrimitives() {
    VerbsCosts c = VerbsCosts.defaults();
    assertEquals(30, c.storeNs());
    assertEquals(450, c.hostPollNs());
    assertEquals(5000, c.copyMbs());
    assertEquals(700, c.gdrReadNs());
    assertEquals(1000, c.copyNs(5000), "5,000 bytes at 5,000 MB/s");
  }

  @Test
  void badValuesNameTheField() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new VerbsCosts(-1, 0, 1, 0));
    assertTrue(e.getMessage().contains("storeNs=-1"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> new VerbsCosts(0, 0, 0, 0));
    assertTrue(e.getMessage().contains("copyMbs=0"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> new VerbsCosts(0, 0, 1, -5));
    assertTrue(e.getMessage().contains("gdrReadNs=-5"), e.getMessage());
  }
}
