package io.github.verbs4j.examples.mp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The hashed rank table: lookups by rank, and its size as a function of the records held. */
class PeerTableTest {
  @Test
  void sizeFollowsThePeersTalkedToNotTheJob() {
    PeerTable t = new PeerTable(1 << 16);
    assertEquals(PeerTable.bytes(0), t.bytes(), "empty");
    assertEquals(48 + 2 * (16 + 4 * 8), t.bytes(), "capacity 8: the map and two arrays of 8");
    Set<Integer> seen = new HashSet<>();
    for (int i = 1; i <= 3000; i++) {
      int rank = (i * 7919) % (1 << 16); // spread over the job, not 0..i
      Peer p = new Peer(rank);
      t.add(p);
      seen.add(rank);
      assertEquals(PeerTable.bytes(i), t.bytes(), "the model of Agrona's growth, at " + i + " records");
      assertSame(p, t.get(rank));
    }
    assertEquals(3000, t.peers());
    assertNull(t.get(1), "a rank never talked to");
    int n = 0;
    for (Peer p : t) {
      n++;
      assertEquals(true, seen.contains(p.rank));
    }
    assertEquals(3000, n);
    assertEquals(1 << 16, t.ranks());
    // 3,000 records: capacity 8,192 (the first power of two whose 65 % holds them), against 262 KB of a table of 2^16
    assertEquals(48 + 2 * (16 + 4L * 8192), t.bytes());
  }
}
