package io.github.verbs4j.examples.mp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.common.JobChannel;
import io.github.verbs4j.verbs.Job;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * {@link NodeRings}: the node's file, shared by two ranks' mappings, hands out each ring and RC
 * link once; a rank maps only a node file of its own, never what a member names.
 */
class NodeRingsTest {
  /** Two ranks' view of one job: a key-value store, barriers that return at once. */
  private static final class StoreJob implements Job {
    final Map<String, byte[]> kv;
    final int rank;

    StoreJob(Map<String, byte[]> kv, int rank) {
      this.kv = kv;
      this.rank = rank;
    }

    @Override
    public int rank() {
      return rank;
    }

    @Override
    public int size() {
      return 2;
    }

    @Override
    public void put(String key, byte[] value) {
      kv.put(key, value);
    }

    @Override
    public byte[] get(String key, Duration timeout) {
      return kv.get(key);
    }

    @Override
    public void barrier(String name, Duration timeout) {}
  }

  private static JobChannel channel(Map<String, byte[]> kv, int rank) {
    return new JobChannel(new StoreJob(kv, rank), "t", Duration.ofSeconds(1));
  }

  @Test
  void theRanksOfANodeShareItsRingsAndRcLinks() {
    Map<String, byte[]> kv = new ConcurrentHashMap<>();
    try (NodeRings first = NodeRings.create(channel(kv, 0), 0, 2, 3, 4096, 2);
        NodeRings second = NodeRings.join(channel(kv, 1), 1, 2, 3, 4096, 2)) {
      assertTrue(first.leader(0));
      assertFalse(second.leader(1));
      assertEquals(64 + 3 * 4096, first.bytes());
      ByteBuffer a = first.takeRing();
      ByteBuffer b = second.takeRing();
      ByteBuffer c = first.takeRing();
      assertNotNull(a);
      assertNotNull(b);
      assertNotNull(c);
      assertNull(second.takeRing(), "three rings for the node, not per rank");
      a.putLong(0, 0x1111L);
      b.putLong(0, 0x2222L);
      c.putLong(0, 0x3333L);
      assertEquals(3, second.ringsTaken());
      assertTrue(first.takeRcLink());
      assertTrue(second.takeRcLink());
      assertFalse(first.takeRcLink(), "two RC links for the node");
      second.releaseRcLink();
      assertEquals(1, first.rcLinksHeld());
      assertTrue(first.takeRcLink());
      first.unlink();
      assertFalse(Files.exists(Path.of(new String(kv.get("t/node-rings/0"), StandardCharsets.UTF_8))),
          "the name is gone once the node's ranks have mapped it");
    }
  }

  @Test
  void aRankMapsNoFileButANodeFileOfItsOwn() throws Exception {
    Map<String, byte[]> kv = new ConcurrentHashMap<>();
    kv.put("t/node-rings/0", "/etc/passwd".getBytes(StandardCharsets.UTF_8));
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> NodeRings.join(channel(kv, 1), 1, 2, 3, 4096, 2));
    assertTrue(e.getMessage().contains("rank 0 published node-rings='/etc/passwd', which is not a node file"),
        e.getMessage());
    Path target = Files.createTempFile("verbs4j-target", ".bin");
    Path link = NodeRings.directory().resolve("verbs4j-mp-" + UUID.randomUUID() + ".rings");
    try {
      Files.write(target, new byte[64 + 3 * 4096]);
      Files.createSymbolicLink(link, target);
      kv.put("t/node-rings/0", link.toString().getBytes(StandardCharsets.UTF_8));
      e = assertThrows(IllegalStateException.class, () -> NodeRings.join(channel(kv, 1), 1, 2, 3, 4096, 2));
      assertTrue(e.getMessage().contains("which is not a node file"), "a link is refused: " + e.getMessage());
    } finally {
      Files.deleteIfExists(link);
      Files.deleteIfExists(target);
    }
  }
}
