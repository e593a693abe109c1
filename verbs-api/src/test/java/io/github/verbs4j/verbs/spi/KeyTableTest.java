package io.github.verbs4j.verbs.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.VerbsException;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link KeyTable}: keys resolve, are not sequential, and a stale key of a reused slot is rejected. */
class KeyTableTest {

  @Test
  void keysResolveToTheirObjectAndLkeyDiffersFromRkey() {
    KeyTable<String> t = new KeyTable<>(1);
    KeyTable.Keys k = t.insert("a", 10);
    assertNotEquals(k.lkey(), k.rkey());
    assertSame("a", t.byLkey(k.lkey()));
    assertSame("a", t.byRkey(k.rkey()));
    assertNull(t.byLkey(k.rkey()), "an rkey is not an lkey");
    assertNull(t.byRkey(k.lkey()), "an lkey is not an rkey");
    assertNull(t.byLkey(0));
    assertNull(t.byLkey(k.lkey() + 1));
  }

  @Test
  void keysAreNotSequential() {
    KeyTable<Integer> t = new KeyTable<>();
    Set<Integer> keys = new HashSet<>();
    Set<Integer> steps = new HashSet<>();
    int prev = 0;
    for (int i = 0; i < 64; i++) {
      KeyTable.Keys k = t.insert(i, 1000);
      assertTrue(keys.add(k.lkey()) && keys.add(k.rkey()), "keys are unique");
      if (i > 0) {
        steps.add(k.lkey() - prev);
      }
      prev = k.lkey();
    }
    assertTrue(steps.size() > 32, "consecutive lkeys must not differ by a constant step: " + steps.size()
        + " distinct steps");
  }

  @Test
  void removedKeysNoLongerResolve() {
    KeyTable<String> t = new KeyTable<>(2);
    KeyTable.Keys k = t.insert("a", 10);
    t.remove(k);
    assertNull(t.byLkey(k.lkey()));
    assertNull(t.byRkey(k.rkey()));
    assertEquals(0, t.size());
  }

  @Test
  void aStaleKeyOfAReusedSlotIsRejected() {
    KeyTable<Integer> t = new KeyTable<>(3);
    KeyTable.Keys[] keys = new KeyTable.Keys[KeyTable.MAX_ENTRIES - 1];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = t.insert(i, Integer.MAX_VALUE);
    }
    KeyTable.Keys old = keys[4];
    t.remove(old);
    KeyTable.Keys fresh = t.insert(-1, Integer.MAX_VALUE);
    assertEquals(old.lkey() & 0xFFFF, fresh.lkey() & 0xFFFF, "the only free slot is reused");
    assertNull(t.byLkey(old.lkey()), "the stale lkey must not reach the new object");
    assertNull(t.byRkey(old.rkey()), "the stale rkey must not reach the new object");
    assertEquals(-1, t.byLkey(fresh.lkey()));
  }

  @Test
  void insertBeyondTheLimitFailsWithEnomem() {
    KeyTable<String> t = new KeyTable<>(4);
    t.insert("a", 2);
    t.insert("b", 2);
    VerbsException e = assertThrows(VerbsException.class, () -> t.insert("c", 2));
    assertEquals(Errno.ENOMEM, e.errno());
    assertTrue(e.getMessage().contains("max_mr=2"), e.getMessage());
  }
}
